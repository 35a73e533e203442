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
}
