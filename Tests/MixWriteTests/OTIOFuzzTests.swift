import Foundation
import Testing
import TestSupport
@_spi(Tools) @testable import MixWrite

/// The OTIO reader against timelines from other people's tools, mutated: a seeded mutation loop over a timeline OTIO's
/// library wrote (and its schema names, numbers and nesting), each case read, laid out and (one in twenty) planned as a
/// render. No crash, no hang: every case is read or refused with a message. `MIXWRITE_FUZZ_CASES` sets how many
/// (scripts/fuzz-otio.sh runs 100,000), `MIXWRITE_FUZZ_SECONDS` for how long (CI: half a minute); else 3,000.
@Suite("the OTIO reader, fuzzed")
struct OTIOFuzzTests {
    /// A timeline as opentimelineio 0.18 writes it (two video tracks, an audio track, a dissolve, a gap, markers),
    /// its media the fixtures.
    static var seed: String {
        let (base, fx) = (Oracle.fixture("base.mov"), Oracle.fixture("fx.mov"))
        func rt(_ v: Double) -> String { #"{"OTIO_SCHEMA": "RationalTime.1", "rate": 25.0, "value": \#(v)}"# }
        func range(_ s: Double, _ d: Double) -> String { #"{"OTIO_SCHEMA": "TimeRange.1", "duration": \#(rt(d)), "start_time": \#(rt(s))}"# }
        func marker(_ name: String, _ at: Double) -> String {
            #"{"OTIO_SCHEMA": "Marker.2", "metadata": {}, "name": "\#(name)", "color": "RED", "marked_range": \#(range(at, 0)), "comment": ""}"#
        }
        func clip(_ name: String, _ url: String, _ s: Double, _ d: Double, _ meta: String = "{}") -> String {
            let head: String = #"{"OTIO_SCHEMA": "Clip.2", "metadata": \#(meta), "name": "\#(name)", "source_range": \#(range(s, d)), "effects": [], "#
            let marks: String = #""markers": [\#(marker("in " + name, s + 2))], "enabled": true, "color": null, "media_references": {"DEFAULT_MEDIA": "#
            let media: String = #"{"OTIO_SCHEMA": "ExternalReference.1", "metadata": {}, "name": "", "available_range": \#(range(0, 50)), "#
            let url: String = #""available_image_bounds": null, "target_url": "file://\#(url)"}}, "active_media_reference_key": "DEFAULT_MEDIA"}"#
            return head + marks + media + url
        }
        func track(_ name: String, _ kind: String, _ children: [String]) -> String {
            #"{"OTIO_SCHEMA": "Track.1", "metadata": {}, "name": "\#(name)", "source_range": null, "effects": [], "markers": [], "#
                + #""enabled": true, "color": null, "children": [\#(children.joined(separator: ", "))], "kind": "\#(kind)"}"#
        }
        let dissolve = #"{"OTIO_SCHEMA": "Transition.1", "metadata": {}, "name": "", "in_offset": \#(rt(5)), "out_offset": \#(rt(5)), "transition_type": "SMPTE_Dissolve"}"#
        let gap = #"{"OTIO_SCHEMA": "Gap.1", "metadata": {}, "name": "", "source_range": \#(range(0, 10)), "effects": [], "markers": [], "enabled": true, "color": null}"#
        let tracks = [track("V1", "Video", [clip("a", base, 5, 30), dissolve, clip("b", fx, 10, 25), gap]),
                      track("V2", "Video", [gap, clip("c", fx, 0, 20, #"{"mixwrite": {"place": "160,120,160,120", "opacity": 0.5, "gain": -6}}"#)]),
                      track("A1", "Audio", [clip("d", base, 0, 50)])]
        return #"{"OTIO_SCHEMA": "Timeline.1", "metadata": {}, "name": "fuzz", "global_start_time": null, "tracks": "#
            + #"{"OTIO_SCHEMA": "Stack.1", "metadata": {}, "name": "tracks", "source_range": null, "effects": [], "#
            + #""markers": [\#(marker("top", 30))], "enabled": true, "color": null, "children": [\#(tracks.joined(separator: ", "))]}}"#
    }

    /// Words a mutation puts in place of another: schema names and versions, extreme numbers, odd values.
    static let words = ["\"Clip.9\"", "\"Stack.1\"", "\"Track.1\"", "\"Gap.1\"", "\"Transition.0\"", "\"LinearTimeWarp.1\"", "\"Marker.7\"",
                        "1e308", "-1", "0", "-0.0", "1e-300", "99999999999", "0.5", "null", "true", "[]", "{}", "\"\"", "\"Video\"",
                        "\"Audio\"", "\"Other\"", "\"SMPTE_Dissolve\"", "\"file:///dev/zero\"", "\"http://example.com/a.mov\"", "23.976",
                        // The numbers an attacker tried (issue 74): past Int64 in ticks, near its limits, tiny rates.
                        "99999999999.5", "9.2233720368547758e18", "-9.2233720368547758e18", "-1e15", "1e300", "0.01", "1e-9",
                        "9223372036854775807", "-9223372036854775808", "4294967296", "300"]

    /// One mutation of `text`, by `rng`.
    static func mutate(_ text: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var t = text
        let at = Int.random(in: 0..<t.count, using: &rng)
        switch Int.random(in: 0..<12, using: &rng) {
        case 0: t[at] = UInt8.random(in: 0x20...0x7E, using: &rng)
        case 1: t.removeSubrange(at..<min(t.count, at + Int.random(in: 1...40, using: &rng)))
        case 2:
            let from = Int.random(in: 0..<t.count, using: &rng)
            t.insert(contentsOf: t[from..<min(t.count, from + Int.random(in: 1...400, using: &rng))], at: at)
        case 3...10:
            // A value (a number, a string, a literal) replaced by a word.
            guard let colon = t[at...].firstIndex(of: UInt8(ascii: ":")) else { return t }
            var end = colon + 1
            while end < t.count, t[end] == 0x20 { end += 1 }
            var stop = end
            if stop < t.count, t[stop] == UInt8(ascii: "\"") {
                stop += 1
                while stop < t.count, t[stop] != UInt8(ascii: "\"") { stop += 1 }
                stop = min(t.count, stop + 1)
            } else {
                while stop < t.count, !",}]".utf8.contains(t[stop]) { stop += 1 }
            }
            t.replaceSubrange(end..<stop, with: Array(words.randomElement(using: &rng)!.utf8))
        default:
            // Deep nesting where a track's children start.
            let open = Array(#"{"OTIO_SCHEMA": "Stack.1", "children": ["#.utf8), n = Int.random(in: 1...400, using: &rng)
            guard let k = String(decoding: t, as: UTF8.self).range(of: "\"children\": [") else { return t }
            let i = String(decoding: t, as: UTF8.self).utf8.distance(from: String(decoding: t, as: UTF8.self).startIndex, to: k.upperBound)
            t.insert(contentsOf: Array(repeating: open, count: n).flatMap { $0 } + Array(repeating: Array("]}".utf8), count: n).flatMap { $0 }, at: i)
        }
        return t
    }

    /// Case `n` at `path` read and laid out and, one in twenty, planned as a render writing `output`; a refusal is one
    /// line. Whether it was read, planned, refused (read and then refused when its plan is).
    static func attempt(_ path: String, case n: Int, output: String) -> (read: Bool, planned: Bool, refused: Bool) {
        var read = false
        do throws(MixWriteError) {
            let timeline = try OTIOTimeline(path: path)
            for track in timeline.tracks { _ = try track.layout() }
            read = true
            guard n % 20 == 0 else { return (true, false, false) }
            _ = try RenderJob(timeline: path, output: output).prepare()
            return (true, true, false)
        } catch {
            #expect(!error.description.isEmpty && !error.description.contains("\n"), "case \(n): \(error.description)")
            return (read, false, true)
        }
    }

    @Test("mutated timelines are read or refused with a message: no crash, no hang")
    func mutations() throws {
        let dir = try Oracle.scratch()
        let environment = ProcessInfo.processInfo.environment
        // MIXWRITE_FUZZ_SECONDS (CI's half minute): as many cases as fit in that time; else MIXWRITE_FUZZ_CASES, or 3,000.
        let seconds = environment["MIXWRITE_FUZZ_SECONDS"].flatMap(Double.init)
        let cases = Int(environment["MIXWRITE_FUZZ_CASES"] ?? "") ?? (seconds == nil ? 3000 : 1_000_000)
        var rng = SplitMix64(seed: 0x07_10_2026)
        let seed = Array(Self.seed.utf8), path = dir + "/case.otio"
        // The seed itself is a good timeline.
        try Data(seed).write(to: URL(fileURLWithPath: path))
        let t = try OTIOTimeline(path: path)
        #expect(t.tracks.count == 3 && t.markers.count == 1)
        let started = ContinuousClock.now
        var (read, refused, planned, done) = (0, 0, 0, 0)
        for n in 0..<cases {
            if let seconds, ContinuousClock.now - started > .seconds(seconds) { break }
            done += 1
            var text = seed
            for _ in 0..<Int.random(in: 1...3, using: &rng) { text = Self.mutate(text, &rng) }
            try Data(text).write(to: URL(fileURLWithPath: path))
            let outcome = Self.attempt(path, case: n, output: dir + "/out-\(n).mp4")
            read += outcome.read ? 1 : 0
            planned += outcome.planned ? 1 : 0
            refused += outcome.refused ? 1 : 0
            #expect(!FileManager.default.fileExists(atPath: dir + "/out-\(n).mp4"), "case \(n): a plan writes nothing")
        }
        print("OTIO fuzz: \(done) cases in \(ContinuousClock.now - started): \(read) read, \(refused) refused, \(planned) planned")
        #expect(read > done / 20 && refused > done / 20, "the mutations both keep and break timelines")
    }
    @Test("mutated .otioz bundles (their zip records, the deflated timeline, the stored media) are read or refused with a message",
          .enabled(if: Oracle.hasOTIO, "python3's opentimelineio is not installed (scripts/install-deps.sh test installs it)"))
    func bundleMutations() throws {
        let dir = try Oracle.scratch()
        let plain = dir + "/seed.otio", bundle = dir + "/seed.otioz"
        try Data(Self.seed.utf8).write(to: URL(fileURLWithPath: plain))
        // OTIO's otioz adapter makes the bundle from the seed (its media copied in, stored; its timeline deflated).
        let w = try Oracle.run("/usr/bin/env", ["python3", "-c", "import sys, opentimelineio as o; o.adapters.write_to_file(o.adapters.read_from_file(sys.argv[1]), sys.argv[2])", plain, bundle])
        try #require(w.status == 0, "\(w.stderr)")
        let seed = [UInt8](try Data(contentsOf: URL(fileURLWithPath: bundle)))
        #expect(try OTIOTimeline(path: bundle).tracks.count == 3)
        let cases = Int(ProcessInfo.processInfo.environment["MIXWRITE_FUZZ_CASES"] ?? "") ?? 2000
        var rng = SplitMix64(seed: 0x07_10_7A)
        var (read, refused) = (0, 0)
        let path = dir + "/case.otioz"
        // The zip's records: the local headers (at the start and before each medium) and the directory at the end.
        let records = [0..<min(seed.count, 200), max(0, seed.count - 600)..<seed.count]
        for n in 0..<cases {
            var bytes = seed
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let range = Int.random(in: 0..<4, using: &rng) == 0 ? 0..<bytes.count : records.randomElement(using: &rng)!
                guard !range.isEmpty, range.upperBound <= bytes.count else { continue }
                let at = Int.random(in: range, using: &rng)
                switch Int.random(in: 0..<5, using: &rng) {
                case 0: bytes[at] = UInt8.random(in: 0...255, using: &rng)
                case 1:
                    // A length, an offset, a count at its extreme (zip64's markers among them).
                    let value: [UInt8] = [[0xFF, 0xFF, 0xFF, 0xFF], [0, 0, 0, 0], [0xFF, 0xFF], [0x00, 0x80]].randomElement(using: &rng)!
                    for (k, b) in value.enumerated() where at + k < bytes.count { bytes[at + k] = b }
                case 2: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...64, using: &rng)))
                case 3: bytes = Array(bytes[..<at])
                default: bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + 46)], at: at)
                }
            }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let outcome = Self.attempt(path, case: n, output: dir + "/out.mp4")
            read += outcome.read && !outcome.refused ? 1 : 0
            refused += outcome.refused ? 1 : 0
        }
        print("OTIO bundle fuzz: \(cases) cases: \(read) read, \(refused) refused")
        #expect(read > cases / 50 && refused > cases / 5, "the mutations both keep and break bundles")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.mp4"), "a plan writes nothing")
    }
}

/// Job files fuzzed as timelines are: a seeded mutation loop over a job file with every kind (and the numbers an
/// attacker tried), each case read, its tasks and shards taken and each job checked (`validate`, no render). No crash,
/// no hang, no trap: every case is read or refused with a message. `MIXWRITE_FUZZ_SECONDS` as for timelines.
@Suite("job files, fuzzed")
struct JobFileFuzzTests {
    static var seed: String {
        let (fx, base, tone) = (Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), Oracle.fixture("tone.m4a"))
        return #"""
        {"jobs": [
          {"kind": "blend", "fx": "\#(fx)", "base": "\#(base)", "output": "o/a.mp4", "threshold": 0.35, "gain": {"fx": -6},
           "offset": {"base:1": 0.5}, "layers": [{"fx": "\#(fx)", "at": 0.5, "place": "0,0,160,120"}], "parts": 2, "part": 1},
          {"kind": "concat", "clips": ["\#(base)", "\#(fx)"], "output": "o/b.mp4", "transition": "fade:0.5"},
          {"kind": "still", "image": "\#(base)", "audio": ["\#(tone)"], "output": "o/c.mp4", "size": "320x240"},
          {"kind": "remix", "movie": "\#(base)", "audio": ["\#(tone)"], "output": "o/d.mov", "duck": {"audio1": 15}, "loudness": -16},
          {"kind": "key", "fx": "\#(fx)", "output": "o/e.mov", "threshold": 0.3, "key-color": "auto"},
          {"kind": "render", "timeline": "\#(base)", "output": "o/f.mp4", "parts": 3, "part": 2}
        ]}
        """#
    }

    @Test("mutated job files are read or refused with a message: no crash, no hang, no trap")
    func mutations() throws {
        let dir = try Oracle.scratch()
        let environment = ProcessInfo.processInfo.environment
        let seconds = environment["MIXWRITE_FUZZ_SECONDS"].flatMap(Double.init)
        let cases = Int(environment["MIXWRITE_FUZZ_CASES"] ?? "") ?? (seconds == nil ? 3000 : 1_000_000)
        var rng = SplitMix64(seed: 0x74_12_2026)
        let seed = Array(Self.seed.utf8), path = dir + "/jobs.json"
        try Data(seed).write(to: URL(fileURLWithPath: path))
        #expect(try JobFile(path: path).jobs.count == 6, "the seed is a good job file")
        let started = ContinuousClock.now
        var (read, refused, done) = (0, 0, 0)
        for n in 0..<cases {
            if let seconds, ContinuousClock.now - started > .seconds(seconds) { break }
            done += 1
            var text = seed
            for _ in 0..<Int.random(in: 1...3, using: &rng) { text = OTIOFuzzTests.mutate(text, &rng) }
            try Data(text).write(to: URL(fileURLWithPath: path))
            do throws(MixWriteError) {
                let file = try JobFile(path: path)
                read += 1
                // Its tasks, a shard of them at odd sizes, and every job's checks.
                let tasks = file.tasks
                let n = Int.random(in: 1...Int.max, using: &rng)
                _ = file.shard(Int.random(in: 1...n, using: &rng), of: n)
                _ = JobFile.makers(tasks)
                for job in file.jobs { try? (job as? any PlannedJob)?.validate() }
            } catch {
                refused += 1
                #expect(!error.description.isEmpty && !error.description.contains("\n"), "case \(n): \(error.description)")
            }
        }
        print("job file fuzz: \(done) cases in \(ContinuousClock.now - started): \(read) read, \(refused) refused")
        #expect(read > done / 20 && refused > done / 20, "the mutations both keep and break job files")
    }
}
