import Foundation
import Testing
import TestSupport
@_spi(Tools) @testable import MixWrite

/// Each kind of job is described once (`JobOption`): its job-file keys, its command line written back and its
/// `Codable` form all come from that list. These tests hold the other copies to it: the JSON Schema's keys, the
/// command line's options (`--help`), and a job of every kind with every option away from its default, read back.
@Suite("one description of a job: schema, command line and job file agree")
struct DescriptionTests {
    /// Every kind of the one list, `JobFile.kinds` (a list of objects is a job file's `layers` and the command line's
    /// `--layer`: `commandName`).
    static var kinds: [(name: String, options: [String], forms: [OptionForm])] {
        JobFile.kinds.map { ($0.kind, $0.declarations.map(\.name), $0.declarations.map(\.form)) }
    }

    @Test("Schemas/jobs.schema.json is what the declarations write (MIXWRITE_RECORD=1, or make schema, writes it)")
    func schemaIsGenerated() throws {
        let url = Oracle.root.appendingPathComponent("Schemas/jobs.schema.json")
        if ProcessInfo.processInfo.environment["MIXWRITE_RECORD"] == "1" {
            try Data(JobSchema.text.utf8).write(to: url)
        }
        let committed = try String(contentsOf: url, encoding: .utf8)
        #expect(committed == JobSchema.text, "Schemas/jobs.schema.json was edited by hand or not regenerated: run make schema")
        // Read as JSON by an independent parser: every kind, with exactly its declared keys.
        let schema = try #require(try JSONSerialization.jsonObject(with: Data(committed.utf8)) as? [String: Any])
        let job = try #require((schema["$defs"] as? [String: Any])?["job"] as? [String: Any])
        let variants = try #require(job["oneOf"] as? [[String: Any]])
        #expect(variants.count == Self.kinds.count)
        for (v, kind) in zip(variants, Self.kinds) {
            let properties = try #require(v["properties"] as? [String: Any])
            #expect((properties["kind"] as? [String: Any])?["const"] as? String == kind.name)
            #expect(Set(properties.keys).subtracting(["kind"]) == Set(kind.options), "\(kind.name)")
            #expect(kind.options.count == Set(kind.options).count, "\(kind.name): an option declared twice")
        }
    }

    @Test("Docs/options.md is what the declarations write (make docs writes it), naming every command's every option")
    func optionReference() throws {
        let r = try Oracle.mixwrite(["---options-reference"])
        try #require(r.status == 0, "\(r.stderr)")
        let committed = try String(contentsOf: Oracle.root.appendingPathComponent("Docs/options.md"), encoding: .utf8)
        #expect(committed == r.stdoutText, "Docs/options.md was edited by hand or not regenerated: run make docs")
        for kind in Self.kinds {
            #expect(committed.contains("| `\(kind.name)` | `mixwrite "), "\(kind.name) has no usage line")
            for (name, form) in zip(kind.options, kind.forms) where form != .positional {
                let word = "`--" + (name == "layers" ? "layer" : name) + "`"
                #expect(committed.contains(word), "\(kind.name): \(word) is not in Docs/options.md")
            }
        }
    }

    @Test("a bare mixwrite and the root help name every kind of the one list, render and key included")
    func kindsNamed() throws {
        let bare = try Oracle.mixwrite([])
        let help = try Oracle.mixwrite(["--help"])
        #expect(bare.status == 1 && help.status == 0)
        let named = try #require(bare.stderr.split(separator: "\n").dropFirst().first).split(separator: " ")[1].split(separator: "|")
        for kind in JobFile.kindDescriptions {
            if kind.name != "blend" { #expect(named.contains(Substring(kind.name)), "the bare usage does not name \(kind.name)") }
            #expect(help.stdoutText.contains(kind.example.prefix(30)), "--help has no example of \(kind.name)")
        }
    }

    @Test("every option the description writes on a command line is one the command accepts (--help)")
    func commandOptions() throws {
        for kind in Self.kinds {
            let r = try Oracle.mixwrite(["help", kind.name])
            try #require(r.status == 0, "\(r.stderr)")
            for (name, form) in zip(kind.options, kind.forms) {
                switch form {
                case .positional: continue
                case .short(let flag): #expect(r.stdoutText.contains(flag + ","), "\(kind.name): \(flag) not in --help")
                case .named:
                    let word = "--" + (name == "layers" ? "layer" : name)
                    #expect(r.stdoutText.contains(word + " ") || r.stdoutText.contains(word + "\n"), "\(kind.name): \(word) not in --help")
                }
            }
        }
    }

    /// A job of each kind with every option away from its default (files from `Fixtures/`).
    static func busyJobs(in dir: String) -> [any MixJob] {
        var audio = AudioOptions()
        audio.files = [Oracle.fixture("tone.m4a")]
        (audio.tracks, audio.mute, audio.mode) = (.first, ["base"], .average)
        (audio.gains, audio.offsets, audio.duck) = (["audio1": -2.5], ["audio1": 0.5], ["audio1": 6])
        (audio.channels, audio.sampleRate, audio.bitRate) = (1, 44100, 96_000)
        (audio.loudness, audio.truePeak, audio.levelMatch, audio.fadeIn, audio.fadeOut) = (-20, -2, true, 0.25, 0.5)
        (audio.codec, audio.stems) = (.pcm, true)
        (audio.autoOffsets, audio.syncTo, audio.drift) = (["base:1"], "audio1", .off)
        var busy = PictureSettings(fit: .fill, proresProfile: .lt)
        (busy.width, busy.height, busy.frameRate, busy.crf, busy.preset, busy.codec) = (160, 96, Rational(12, 1), 30, "ultrafast", .prores)
        func picture(_ p: inout PictureSettings) { p = busy }
        let srt = dir + "/captions.srt"
        try? "1\n00:00:00,100 --> 00:00:00,400\nHi\n".write(toFile: srt, atomically: true, encoding: .utf8)
        var captions = CaptionSettings()
        (captions.files, captions.burn) = ([Caption(file: srt, language: "eng", title: "English")], true)
        captions.files[0].encoding = "latin1"
        var tracks = captions
        tracks.burn = false
        var concat = ConcatJob(clips: [Oracle.fixture("base.mov"), Oracle.fixture("fx.mov")], output: dir + "/concat.mp4")
        picture(&concat.picture)
        (concat.audio, concat.eventChapters, concat.run.strict, concat.run.overwrite) = (audio, true, true, true)
        concat.events = [ClipEvent(clip: 1, time: 0.5, name: "B")]
        (concat.run.smart, concat.run.trustCopies) = (.off, true)
        (concat.run.parts, concat.run.part) = (3, 1)
        (concat.run.start, concat.run.length) = (0.5, 1)   // described only: the job is never run (parts refuse --start)
        (concat.retiming.interpolation, concat.retiming.freezeAudio) = (.blend, .hold)
        (concat.transition, concat.transitionsAt, concat.transitionCurve) = (Transition(kind: .fadeblack, seconds: 0.5),
                                                                             [1: Transition(kind: .wipeleft, seconds: 0.25)], .tri)
        concat.hdr = .keep
        var still = StillJob(image: Oracle.fixture("fx.mov"), audioFiles: [Oracle.fixture("tone.m4a")], output: dir + "/still.mov")
        picture(&still.picture)
        (still.background, still.audio, still.run.overwrite, still.run.strict) = ([1, 0, 0.5], audio, true, true)
        still.audio.files = []
        (still.run.start, still.run.length) = (0.25, 0.5)
        var remix = RemixJob(movie: Oracle.fixture("base.mov"), output: dir + "/remix.mkv")
        (remix.audio, remix.run.strict, remix.run.overwrite) = (audio, true, true)
        var blend = ExcerptTests.busyJob(output: dir + "/blend.mov")
        (blend.autoKeyColor, blend.run.strict, blend.audio.tracks, blend.audio.mode) = (true, true, .first, .average)
        (blend.compositing, blend.hdr, blend.run.smart, blend.run.trustCopies) = (.chroma, .keep, .off, true)
        (blend.picture.codec, blend.picture.proresProfile, blend.audio.codec, blend.audio.stems) = (.hevc, .lt, .pcm, true)
        (blend.audio.autoOffsets, blend.audio.syncTo, blend.audio.drift) = (["fx:1"], "base", .off)
        (blend.run.parts, blend.run.part) = (4, 2)   // described only: the job is never run (parts refuse --start)
        (blend.placement.at, blend.placement.from, blend.placement.to) = (0.5, 0.25, 1.5)
        (blend.placement.place, blend.placement.opacity, blend.placement.speed) = ([-10, 20, 100, 60], 0.75, 1.5)
        (blend.placement.reverse, blend.placement.freeze, blend.placement.pitchFollows) = (true, 0.5, true)
        var extra = Layer(fx: Oracle.fixture("edges.mov"))
        (extra.placement.at, extra.placement.from, extra.placement.to, extra.placement.place, extra.placement.opacity) = (1, 0.5, 1.75, [80, 0, 80, 60], 0.5)
        extra.placement.speed = 0.5
        (extra.placement.reverse, extra.placement.freeze, extra.placement.pitchFollows) = (true, 1.25, true)
        (extra.key.keyColor, extra.key.threshold, extra.key.smoothing, extra.key.despill) = (KeyColor(r: 0, g: 0, b: 1), 0.3, 0.2, true)
        extra.compositing = .chroma
        var second = Layer(fx: Oracle.fixture("fx.mov"))
        (second.autoKeyColor, second.compositing) = (true, .alpha)
        (extra.key.keyer, extra.key.despillStrength, extra.key.garbage, extra.key.choke, extra.key.feather) = (.fine, 0.5, [[0, 0, 60, 40]], 1, 2)
        extra.key.cleanPlate = Oracle.fixture("edges.mov")
        blend.layers = [extra, second]
        (blend.key.keyer, blend.key.despillStrength, blend.key.garbage, blend.key.choke, blend.key.feather) = (.fine, 0.75, [[0, 0, 100, 90], [120, 0, 40, 40]], 2, 3)
        blend.key.cleanPlate = Oracle.fixture("fx.mov")
        var layer = KeyJob(fx: Oracle.fixture("fx.mov"), output: dir + "/layer.mkv")
        picture(&layer.picture)
        (layer.key.threshold, layer.key.smoothing, layer.key.despill, layer.autoKeyColor) = (0.3, 0.05, true, true)
        (layer.key.keyer, layer.key.despillStrength, layer.key.garbage, layer.key.choke, layer.key.feather) = (.fine, 0.25, [[10, 10, 100, 60]], 1, 1)
        layer.key.cleanPlate = Oracle.fixture("fx.mov")
        (layer.audio, layer.run.strict, layer.run.overwrite, layer.picture.proresProfile) = (audio, true, true, .standard)
        var render = RenderJob(timeline: Oracle.fixture("base.mov"), output: dir + "/render.mp4")   // described only: never run
        picture(&render.picture)
        (render.audio, render.run.strict, render.run.overwrite, render.run.parts, render.run.part, render.run.smart) = (audio, true, true, 2, 2, .on)
        (render.run.start, render.run.length, render.transitionCurve, render.timelineName, render.run.trustCopies) = (0.5, 1, .qsin, "Cut 2", true)
        (render.retiming.interpolation, render.retiming.freezeAudio) = (.motion, .hold)
        (blend.captions, concat.captions, still.captions, remix.captions, render.captions) = (captions, captions, captions, tracks, captions)
        var tags = MovieTags()
        (tags.title, tags.timecode) = ("A title", "01:00:00;02")
        (blend.tags, concat.tags, still.tags, remix.tags, render.tags) = (tags, tags, tags, tags, tags)
        return [blend, concat, still, remix, layer, render]
    }

    @Test("a job of every kind, every option away from its default: its entry reads back as the same job, and its command names every option")
    func roundTrips() throws {
        let dir = try Oracle.scratch()
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(Self.busyJobs(in: dir).map { $0.kind } == JobFile.kinds.map { $0.kind }, "a busy job of every kind, in the list's order")
        for job in Self.busyJobs(in: dir) {
            let path = dir + "/\(job.kind).json"
            try Data(#"{"jobs": [\#(job.jobEntry)]}"#.utf8).write(to: URL(fileURLWithPath: path))
            let read = try #require(try JobFile(path: path).jobs.first)
            #expect(read.kind == job.kind)
            let (got, wanted) = (String(decoding: try encoder.encode(read), as: UTF8.self), String(decoding: try encoder.encode(job), as: UTF8.self))
            #expect(got == wanted, "\(job.kind)")
            // This job sets every option away from its default: the entry has them all.
            let entry = try #require(try JSONSerialization.jsonObject(with: Data(job.jobEntry.utf8)) as? [String: Any])
            let kind = try #require(Self.kinds.first { $0.name == job.kind })
            let missing = Set(kind.options).subtracting(entry.keys)
            #expect(missing.isEmpty, "\(job.kind): not written: \(missing.sorted())")
            for (name, form) in zip(kind.options, kind.forms) where name != "events" {
                let word = "--" + (name == "layers" ? "layer" : name)
                if case .named = form { #expect(job.commandWords.contains(word), "\(job.kind): \(word) not written") }
            }
        }
    }

    @Test("a job of every kind, every option away from its default: its command line, read back, is the same job")
    func commandLinesReadBack() throws {
        let dir = try Oracle.scratch()
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // The words after the command's own (`mixwrite concat`), read as the command reads them.
        func readBack<J: DescribedJob>(_ job: J) throws -> any MixJob {
            try CommandWords.parse(Array(job.commandWords.dropFirst(J.command.count)), as: J.self, own: []).job
        }
        for job in Self.busyJobs(in: dir) {
            let described = try #require(job as? any DescribedJob)
            let read = try readBack(described)
            // Events have no command-line form (a file does): the rest must be the same.
            var expected = job
            if var c = expected as? ConcatJob { c.events = []; expected = c }
            #expect(String(decoding: try encoder.encode(read), as: UTF8.self) == String(decoding: try encoder.encode(expected), as: UTF8.self),
                    "\(job.kind): \(job.commandLine)")
        }
    }

    @Test("every declared default is the field's initial value: a blank job writes none of its options, and a default read into it changes nothing")
    func defaultsAreInitialValues() throws {
        func check<J: DescribedJob>(_ type: J.Type) throws {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            // The inputs and the output (in their places on the command line, or -o): given, so that the entry decodes.
            let files = J.options.filter { o in
                switch (o.declaration.shape, o.declaration.form) {
                case (.path, .named), (.paths, .named): return o.declaration.required
                case (.path, _), (.paths, _): return true
                default: return false
                }
            }
            for o in J.options where !files.map(\.name).contains(o.name) {
                #expect(o.write(J.blank) == nil, "\(J.kind): --\(o.name)'s field starts away from its declared default")
            }
            var entry: [String: Any] = ["kind": J.kind]
            for o in files {
                if case .paths = o.declaration.shape { entry[o.name] = ["a.mov"] } else { entry[o.name] = "a.mov" }
            }
            let plain = try JSONDecoder().decode(J.self, from: JSONSerialization.data(withJSONObject: entry))
            var defaults = 0
            for o in J.options {
                let given: Any
                switch o.declaration.defaultValue {
                case .number(let x)?: given = x
                case .text(let t)?: given = t
                case nil: continue
                case let other?: Issue.record("\(J.kind): --\(o.name)'s default \(other) is of no kind a default takes"); continue
                }
                defaults += 1
                var with = entry
                with[o.name] = given
                let read = try JSONDecoder().decode(J.self, from: JSONSerialization.data(withJSONObject: with))
                #expect(try encoder.encode(read) == encoder.encode(plain), "\(J.kind): --\(o.name) \(given), its declared default, changes the job")
            }
            #expect(defaults >= 3, "\(J.kind): the defaults were read")
        }
        for kind in JobFile.kinds { try check(kind) }
    }

    @Test("a kind's entry decoded as another kind, and an entry with a misspelt key, are refused with the key named")
    func refusals() throws {
        let blend = #"{"kind": "blend", "fx": "a.mov", "base": "b.mov", "output": "o.mov"}"#
        #expect(throws: (any Error).self) { try JSONDecoder().decode(RemixJob.self, from: Data(blend.utf8)) }
        let misspelt = #"{"kind": "remix", "movie": "a.mov", "output": "o.mov", "loudnes": -16}"#
        do {
            _ = try JSONDecoder().decode(RemixJob.self, from: Data(misspelt.utf8))
            Issue.record("a misspelt key was accepted")
        } catch {
            #expect("\(error)".contains("'loudnes' is not an option of a remix job"), "\(error)")
        }
        // Decoded on its own (no job file), a relative path is kept as it is.
        let plain = try JSONDecoder().decode(RemixJob.self, from: Data(#"{"movie": "a.mov", "output": "o.mov"}"#.utf8))
        #expect(plain.movie == "a.mov" && plain.output == "o.mov")
    }
}
