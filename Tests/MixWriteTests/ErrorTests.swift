import Foundation
import Testing
import TestSupport

/// Bad input gets one line naming the file, the documented exit code, and leaves nothing behind.
@Suite("errors: bad input and existing output")
struct ErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var fx: String
        var base: String
        var code: Int32
        var message: String
        var testDescription: String { name }
    }

    static let notMedia: String = {
        let path = (try? Oracle.scratch("notmedia")).map { $0 + "/notes.mov" } ?? "/tmp/notes.mov"
        _ = FileManager.default.createFile(atPath: path, contents: Data("this is not a movie\n".utf8))
        return path
    }()

    static let cases: [Case] = [
        Case(name: "missing fx", fx: "/nonexistent/fx.mov", base: Oracle.fixture("base.mov"), code: 2, message: "/nonexistent/fx.mov: no such file"),
        Case(name: "missing base", fx: Oracle.fixture("fx.mov"), base: "/nonexistent/base.mov", code: 2, message: "/nonexistent/base.mov: no such file"),
        Case(name: "not media", fx: notMedia, base: Oracle.fixture("base.mov"), code: 2, message: "\(notMedia): not a media file"),
        Case(name: "audio-only fx", fx: Oracle.fixture("tone.m4a"), base: Oracle.fixture("base.mov"), code: 2, message: "tone.m4a: has no video stream"),
        Case(name: "audio-only base", fx: Oracle.fixture("fx.mov"), base: Oracle.fixture("tone.m4a"), code: 2, message: "tone.m4a: has no video stream"),
    ]

    @Test("bad input: exit 2, one line naming the file, no output", arguments: cases)
    func badInput(_ c: Case) throws {
        let dir = try Oracle.scratch()
        let out = dir + "/out.mov"
        let r = try Oracle.mixwrite([c.fx, c.base, "-o", out])
        #expect(r.status == c.code)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1, "stderr: \(r.stderr)")
        #expect(r.stderr.hasPrefix("mixwrite: error: "))
        #expect(r.stderr.contains(c.message), "stderr: \(r.stderr)")
        #expect(try Oracle.listing(dir).isEmpty, "left behind: \((try? Oracle.listing(dir)) ?? [])")
    }

    @Test("an existing output is kept without -y (exit 3) and replaced with it")
    func existingOutput() throws {
        let dir = try Oracle.scratch()
        let out = dir + "/out.mov"
        let original = Data("precious".utf8)
        #expect(FileManager.default.createFile(atPath: out, contents: original))
        let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", out])
        #expect(r.status == 3)
        #expect(r.stderr.contains("\(out): already exists"), "stderr: \(r.stderr)")
        #expect(FileManager.default.contents(atPath: out) == original)
        #expect(try Oracle.listing(dir) == ["out.mov"])

        let again = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", out, "-y"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try Oracle.probe(out).video.count == 1)
        #expect(try Oracle.listing(dir) == ["out.mov"], "no temporary file left")
    }

    @Test("bad usage exits 1 with one line")
    func badUsage() throws {
        let dir = try Oracle.scratch()
        for args in [["--threshold", "2"], ["--key-color", "green"], ["--size", "big"], ["--preset", "turbo"], ["--bogus"]] {
            let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", dir + "/o.mov"] + args)
            #expect(r.status == 1, "\(args): \(r.status) \(r.stderr)")
            #expect(r.stderr.hasPrefix("mixwrite: error: "), "\(args): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(args): \(r.stderr)")
        }
        let unknownType = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", dir + "/o.avi"])
        #expect(unknownType.status == 1)
        #expect(try Oracle.listing(dir).isEmpty)
    }

    @Test("the output may not be one of the inputs, even with -y")
    func outputIsInput() throws {
        let dir = try Oracle.scratch()
        let copy = dir + "/base.mov"
        try FileManager.default.copyItem(atPath: Oracle.fixture("base.mov"), toPath: copy)
        let before = FileManager.default.contents(atPath: copy)
        let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), copy, "-o", dir + "/./base.mov", "-y"])
        #expect(r.status == 3)
        #expect(r.stderr.contains("is also an input"), "stderr: \(r.stderr)")
        #expect(FileManager.default.contents(atPath: copy) == before)
    }

    @Test("the small things a new user meets: the bare command's usage, did-you-mean, plurals, a name without an extension, probe's rates and a 0-channel WAV, key's codecs, strict JSON with line and column")
    func newUserMessages() throws {
        let dir = try Oracle.scratch()
        let (fx, base) = (Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"))
        let bare = try Oracle.mixwrite([])
        #expect(bare.status == 1 && bare.stderr.hasPrefix("usage: mixwrite FX BASE -o OUT") && bare.stderr.contains("--help"), "\(bare.stderr)")
        let colour = try Oracle.mixwrite([fx, base, "-o", dir + "/a.mov", "--key-colour", "00FF00"])
        #expect(colour.status == 1 && colour.stderr.contains("unknown option '--key-colour' (did you mean '--key-color'?)"), "\(colour.stderr)")
        let noext = try Oracle.mixwrite([fx, base, "-o", dir + "/noext"])
        #expect(noext.status == 1 && noext.stderr.contains("noext: has no extension, which names the container; use .mov"), "\(noext.stderr)")
        let one = try Oracle.mixwrite(["remix", Oracle.fixture("tone.m4a"), "-o", dir + "/one.m4a"])
        #expect(one.status == 0 && one.stderr.contains("(2.00s, 1 audio track mixed)"), "\(one.stderr)")
        // probe: a rate as a person reads it; a WAV header with no channels is said to be unusable.
        let ntsc = dir + "/ntsc.mp4", wav = dir + "/zero.wav"
        #expect(try Oracle.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc=s=64x48:r=30000/1001:d=0.2", ntsc]).status == 0)
        var header = [UInt8]("RIFF".utf8) + [36, 0, 0, 0] + Array("WAVEfmt ".utf8) + [16, 0, 0, 0, 1, 0, 0, 0, 0x44, 0xAC, 0, 0]
        header += [0x88, 0x58, 0x01, 0, 4, 0, 16, 0] + Array("data".utf8) + [0, 0, 0, 0]
        try Data(header).write(to: URL(fileURLWithPath: wav))
        let probe = try Oracle.mixwrite(["probe", ntsc, wav])
        #expect(probe.stdoutText.contains("29.97 fps") && !probe.stdoutText.contains("30000/1001 fps"), "\(probe.stdoutText)")
        #expect(probe.stdoutText.contains("0 channels  NOT USABLE: no channels"), "\(probe.stdoutText)")
        let keyHelp = try Oracle.mixwrite(["key", "--help"])
        #expect(keyHelp.stdoutText.contains("--codec prores|vp9") && !keyHelp.stdoutText.contains("h264|"), "\(keyHelp.stdoutText)")
        // A job file: strict JSON (a trailing comma said with its line and column), a misspelt key's likely name.
        let jobs = dir + "/jobs.json"
        try Data("{\"jobs\": [\n  {\"kind\": \"remix\", \"movie\": \"\(base)\", \"output\": \"\(dir)/r.mov\"},\n]}".utf8)
            .write(to: URL(fileURLWithPath: jobs))
        let comma = try Oracle.mixwrite(["batch", jobs])
        #expect(comma.status == 2 && comma.stderr.contains("jobs.json: is not JSON: line 3, column 1: a comma before ']'"), "\(comma.stderr)")
        try Data(#"{"jobs": [{"kind": "blend", "fx": "\#(fx)", "base": "\#(base)", "output": "\#(dir)/t.mov", "treshold": 0.3}]}"#.utf8)
            .write(to: URL(fileURLWithPath: jobs))
        let misspelt = try Oracle.mixwrite(["batch", jobs])
        #expect(misspelt.status == 2 && misspelt.stderr.contains("'treshold' is not an option of a blend job (did you mean 'threshold'?)"),
                "\(misspelt.stderr)")
    }

    @Test("batch checks every job's options and inputs before the first render: each bad one reported, the good ones rendered")
    func batchChecksFirst() throws {
        let dir = try Oracle.scratch()
        let (fx, base) = (Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"))
        let jobs = dir + "/jobs.json"
        try Data(#"""
            {"jobs": [{"kind": "remix", "movie": "\#(dir)/missing.mov", "output": "\#(dir)/0.mov"},
                      {"kind": "blend", "fx": "\#(fx)", "base": "\#(base)", "output": "\#(dir)/1.mov", "threshold": 5},
                      {"kind": "remix", "movie": "\#(base)", "output": "\#(dir)/2.mov"},
                      {"kind": "remix", "movie": "\#(dir)/2.mov", "output": "\#(dir)/3.mkv"}]}
            """#.utf8).write(to: URL(fileURLWithPath: jobs))
        // The last job reads what the one before it writes: not there before the first render, and not refused for it.
        let r = try Oracle.mixwrite(["batch", jobs, "--json", "--jobs", "1"], timeout: 300)
        let results = try JSONSerialization.jsonObject(with: r.stdout) as? [[String: Any]] ?? []
        #expect(results.map { $0["status"] as? String } == ["failed", "failed", "done", "done"], "\(r.stdoutText)")
        #expect((results.first?["error"] as? String)?.contains("missing.mov: no such file") == true, "\(results.first ?? [:])")
        #expect((results.dropFirst().first?["error"] as? String)?.contains("--threshold") == true, "\(results.dropFirst().first ?? [:])")
        #expect(r.status == 2 && FileManager.default.fileExists(atPath: dir + "/2.mov") && !FileManager.default.fileExists(atPath: dir + "/1.mov"))
    }
}
