import Foundation
import Testing
import TestSupport
@_spi(Benchmarks) @_spi(Tools) @testable import MixWrite

/// `--start` and `--length` (the tuning page's audition), and a job written back as a command and a job-file
/// entry (`BlendJob.commandLine`, `jobEntry`).
@Suite("excerpts, and jobs written back as text")
struct ExcerptTests {
    static let fx = Oracle.fixture("fx.mov"), base = Oracle.fixture("base.mov")

    @Test("--start 0.8 --length 0.6: the whole blend's frames 20 to 34, and the whole mix's sound at those times")
    func excerpt() throws {
        let dir = try Oracle.scratch()
        let whole = dir + "/whole.mov", part = dir + "/part.mov"
        // Lossless, so the pictures compare exactly; a fade-in over the first second shows on which timeline
        // the sound was mixed (the part must not fade in again).
        let options = ["--crf", "0", "--fade-in", "1", "--progress", "none"]
        for (out, extra) in [(whole, [String]()), (part, ["--start", "0.8", "--length", "0.6"])] {
            let r = try Oracle.mixwrite([Self.fx, Self.base, "-o", out] + options + extra)
            try #require(r.status == 0, "\(r.stderr)")
        }
        #expect(try Oracle.probe(part).video.first?.frames == 15)
        #expect(abs(try Oracle.decodedDuration(part, stream: "a:0") - 0.6) <= 1024.0 / 48000 + 1e-6)

        let w = try Oracle.decodeRGB(whole), p = try Oracle.decodeRGB(part)
        try #require(w.frames.count == 50 && p.frames.count == 15)
        for i in 0..<15 { #expect(p.frames[i] == w.frames[20 + i], "frame \(i) of the part is not frame \(20 + i) of the whole") }

        let ws = Oracle.channel(try Oracle.decodeAudio(whole, channels: 2), 0, of: 2)
        let ps = Oracle.channel(try Oracle.decodeAudio(part, channels: 2), 0, of: 2)
        func level(_ s: [Float], _ from: Double, _ to: Double) -> Double { Oracle.rms(s[Int(from * 48000)..<Int(to * 48000)]) }
        let early = (part: level(ps, 0.05, 0.15), whole: level(ws, 0.85, 0.95))
        let late = (part: level(ps, 0.35, 0.55), whole: level(ws, 1.15, 1.35))
        print("excerpt levels: part \(early.part) / \(late.part) dB, whole \(early.whole) / \(late.whole) dB")
        #expect(abs(early.part - early.whole) < 0.5, "the part's first 0.1 s is not the whole mix's 0.85-0.95 s")
        #expect(abs(late.part - late.whole) < 0.5)
        #expect(late.part - early.part > 0.5, "still fading in at 0.8 s, as in the whole")
    }

    @Test("concat and still --start 0.8 --length 0.6: the whole movie's frames from 0.8 s, and its mix's sound (PCM) there",
          arguments: ["concat", "still"])
    func sequenceExcerpt(kind: String) throws {
        let dir = try Oracle.scratch("excerpt-\(kind)")
        let whole = dir + "/whole.mkv", part = dir + "/part.mkv"
        let inputs = kind == "concat" ? ["concat", Self.base, Self.fx] : ["still", Self.fx, Oracle.fixture("tone.flac")]
        let options = ["--crf", "0", "--audio-codec", "pcm", "--fade-in", "1", "--progress", "none"]
        for (out, extra) in [(whole, [String]()), (part, ["--start", "0.8", "--length", "0.6"])] {
            let r = try Oracle.mixwrite(inputs + ["-o", out] + options + extra)
            try #require(r.status == 0, "\(r.stderr)")
        }
        let w = try Oracle.decodeRGB(whole), p = try Oracle.decodeRGB(part)
        let stated = try #require(try Oracle.probe(whole).video.first?.raw["r_frame_rate"]?.split(separator: "/").compactMap { Double($0) })
        let rate = stated[0] / stated[1]
        let first = Int((0.8 * rate).rounded(.down))
        try #require(!p.frames.isEmpty && first + p.frames.count <= w.frames.count, "\(p.frames.count) of \(w.frames.count) frames")
        #expect(abs(Double(p.frames.count) / rate - 0.6) <= 1 / rate + 1e-6, "\(p.frames.count) frames at \(rate)")
        for i in p.frames.indices { #expect(p.frames[i] == w.frames[first + i], "frame \(i) of the part is not frame \(first + i) of the whole") }
        // The sound: the whole mix's samples from the part's first frame (PCM, so exactly, to the decoder's floats).
        let ws = Oracle.channel(try Oracle.decodeAudio(whole, channels: 2), 0, of: 2)
        let ps = Oracle.channel(try Oracle.decodeAudio(part, channels: 2), 0, of: 2)
        let from = Int((Double(first) / rate * 48000).rounded())
        let n = min(ps.count, ws.count - from)
        try #require(n > 20_000, "\(ps.count) samples")
        let difference = (0..<n).map { ps[$0] - ws[from + $0] }
        let level = Oracle.rms(difference[...]) - Oracle.rms(ws[from..<(from + n)])
        print("\(kind) excerpt: \(p.frames.count) frames from \(first), sound \(level) dB from the whole's")
        #expect(level <= -60)
    }

    @Test("--start past the end, --length 0, or with --frame: exit 1, one line, no output")
    func refused() throws {
        let dir = try Oracle.scratch()
        for extra in [["--start", "5"], ["--length", "0"], ["--start", "x"], ["--frame", "1", "--start", "1"]] {
            let out = dir + "/out.mov"
            let r = try Oracle.mixwrite([Self.fx, Self.base, "-o", out, "--progress", "none"] + extra)
            #expect(r.status == 1, "\(extra): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains(extra[0]), "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }

    /// A job with every option away from its default.
    static func busyJob(output: String) -> BlendJob {
        var j = BlendJob(fx: fx, base: base, output: output)
        (j.picture.width, j.picture.height, j.picture.frameRate) = (160, 120, Rational(15, 1))
        (j.picture.crf, j.picture.preset, j.duration, j.picture.fit) = (23, "ultrafast", .shortest, .fit)
        // In microseconds, as a job file's seconds are read (MediaTime encodes its value and timescale as they are).
        j.excerpt = .init(start: MediaTime(seconds: 0.25)!, length: MediaTime(seconds: 1.0)!)
        j.key = ChromaKeyBlend.Settings(keyColor: KeyColor(r: 0.1, g: 0.9, b: 0.2), threshold: 0.35, smoothing: 0.125, despill: true)
        j.audio.files = [Oracle.fixture("tone.m4a")]
        j.audio.mute = ["fx:2"]
        j.audio.gains = ["base": -3.5, "audio1": 2]
        j.audio.offsets = ["audio1": 0.25]
        (j.audio.channels, j.audio.sampleRate, j.audio.bitRate) = (1, 44100, 96_000)
        (j.audio.loudness, j.audio.truePeak, j.audio.levelMatch) = (-20, -2, true)
        j.audio.duck = ["base": 9]
        (j.audio.fadeIn, j.audio.fadeOut) = (0.25, 0.5)
        j.run.overwrite = true
        return j
    }

    @Test("the job-file entry reads back through JobFile as the same job")
    func entryRoundTrip() throws {
        let dir = try Oracle.scratch()
        let job = Self.busyJob(output: dir + "/out.mov")
        let path = dir + "/jobs.json"
        try Data(#"{"jobs": [\#(job.jobEntry)]}"#.utf8).write(to: URL(fileURLWithPath: path))
        let read = try #require(try JobFile(path: path).jobs.first as? BlendJob)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let (got, wanted) = (String(decoding: try encoder.encode(read), as: UTF8.self), String(decoding: try encoder.encode(job), as: UTF8.self))
        #expect(got == wanted)
    }

    @Test("the command line and the job entry run the same job: the same report")
    func commandMatchesEntry() throws {
        let dir = try Oracle.scratch()
        let byCommand = Self.busyJob(output: dir + "/command.mov"), byEntry = Self.busyJob(output: dir + "/entry.mov")
        let shell = byCommand.commandLine.replacingOccurrences(of: "mixwrite ", with: "'\(Oracle.mixwrite)' ", options: .anchored)
        let r1 = try Oracle.run("/bin/sh", ["-c", shell + " --json -q"])
        try #require(r1.status == 0, "\(byCommand.commandLine): \(r1.stderr)")
        try Data(#"{"jobs": [\#(byEntry.jobEntry)]}"#.utf8).write(to: URL(fileURLWithPath: dir + "/jobs.json"))
        let r2 = try Oracle.mixwrite(["batch", dir + "/jobs.json", "--json", "-q"])
        try #require(r2.status == 0, "\(r2.stderr)")

        let a = try #require(try JSONSerialization.jsonObject(with: r1.stdout) as? [String: Any])
        let batch = try #require(try JSONSerialization.jsonObject(with: r2.stdout) as? [[String: Any]])
        let b = try #require(batch.first?["report"] as? [String: Any])
        for key in ["video", "audio", "key", "duration"] {
            let x = try JSONSerialization.data(withJSONObject: ["v": a[key] ?? NSNull()], options: .sortedKeys)
            let y = try JSONSerialization.data(withJSONObject: ["v": b[key] ?? NSNull()], options: .sortedKeys)
            #expect(x == y, "\(key) differs: \(String(decoding: x, as: UTF8.self)) vs \(String(decoding: y, as: UTF8.self))")
        }
        #expect((a["duration"] as? Double).map { abs($0 - 1) < 1e-9 } == true, "the excerpt is 1 s")
        let loudness = (a["audio"] as? [String: Any])?["loudness"] as? [String: Any]
        #expect(loudness?["target"] as? Double == -20)
    }
}

extension ExcerptTests {
    @Test("the job entry, every option in it, is valid by the JSON Schema (python3 jsonschema)",
          .enabled(if: Oracle.hasJSONSchema, "python3 with jsonschema is not installed: the schema is not checked"))
    func entryFollowsSchema() throws {
        let dir = try Oracle.scratch()
        try Data(#"{"jobs": [\#(Self.busyJob(output: dir + "/out.mov").jobEntry)]}"#.utf8).write(to: URL(fileURLWithPath: dir + "/jobs.json"))
        let script = """
            import json, sys, jsonschema
            jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
            """
        let r = try Oracle.run("/usr/bin/env", ["python3", "-c", script, Oracle.root.path + "/Schemas/jobs.schema.json", dir + "/jobs.json"])
        #expect(r.status == 0, "\(r.stderr)")
    }
}

extension ExcerptTests {
    @Test("measurements kept between jobs: the same mix is measured once, a changed gain or excerpt as the key says")
    func measurementsKept() throws {
        let dir = try Oracle.scratch()
        var job = BlendJob(fx: Self.fx, base: Self.base, output: dir + "/out.mov")
        job.audio.loudness = -20
        var plan = try #require(try job.prepare().audio)
        let cache = MeasurementCache()
        nonisolated(unsafe) var calls = 0
        plan.measurements = cache
        // publish strips the excerpt and the cache before the key is made: an excerpt of the same mix is the same mix.
        let first = try AudioMixStage.publish(plan)
        var excerpt = plan
        excerpt.cut(from: MediaTime(seconds: 0.5)!, length: MediaTime(seconds: 1)!)
        let second = try AudioMixStage.publish(excerpt)
        #expect(first.plan.outputGainDB == second.plan.outputGainDB && first.plan.outputGainDB != 0)
        #expect(second.plan.window == excerpt.window, "the excerpt keeps its window")
        // The cache itself: the kept figures come back without measuring; a changed gain is another mix.
        var whole = plan
        (whole.window, whole.measurements) = (nil, nil)
        _ = try cache.published(whole) { p throws(MixWriteError) in calls += 1; return (p, nil, []) }
        #expect(calls == 0, "publish kept the whole mix's figures under this key")
        whole.sources[0].gainDB += 1
        let changed = try cache.published(whole) { p throws(MixWriteError) in calls += 1; return (p, nil, ["measured"]) }
        #expect(calls == 1 && changed.warnings == ["measured"])
    }
}

extension ExcerptTests {
    /// The corpus's cut XAVC file (MXF) has its parameter sets only at the start: a seek lands where nothing
    /// decodes, and the reader must go back to the top instead of finding "no decodable picture". Its frames are on a
    /// 25 fps grid and 0.24 s of them decode (its header says 12.5 fps and 13.44 s).
    @Test("an excerpt of a file whose seek lands where nothing decodes: the whole blend's frame, from the top",
          .enabled(if: Oracle.corpus != nil, "MIXWRITE_CORPUS is not set: the corpus XAVC file is not run"))
    func excerptAfterUndecodableSeek() throws {
        let corpus = try #require(Oracle.corpus)
        let dir = try Oracle.scratch()
        let fx = corpus + "/greenscreen/fx_hud_ring_gs_720p_aacST.mov", base = corpus + "/multiaudio/xavc_1080p_4xpcm24_mono.mxf"
        let small = ["--size", "320x180", "--crf", "0", "--audio-tracks", "none", "--progress", "none"]
        for (out, extra) in [(dir + "/whole.mov", [String]()), (dir + "/part.mov", ["--start", "0.08", "--length", "0.12"])] {
            let r = try Oracle.mixwrite([fx, base, "-o", out] + small + extra)
            try #require(r.status == 0, "\(extra): \(r.stderr)")
        }
        let frame = try Oracle.mixwrite([fx, base, "-o", dir + "/frame.png", "--frame", "0.08", "--size", "320x180"])
        #expect(frame.status == 0, "\(frame.stderr)")
        // 25 frames a second: 0.08 s is frame 2.
        let whole = try Oracle.decodeRGB(dir + "/whole.mov"), part = try Oracle.decodeRGB(dir + "/part.mov")
        try #require(whole.frames.count == 6 && part.frames.count == 3, "\(whole.frames.count) and \(part.frames.count) frames")
        for i in 0..<3 { #expect(part.frames[i] == whole.frames[2 + i], "frame \(i) of the part") }
    }
}
