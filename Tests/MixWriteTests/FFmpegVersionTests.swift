import Foundation
import Testing
import TestSupport

/// What a binary says of the FFmpeg it runs on, against the ffmpeg CLI of the same system (both link the system's
/// libraries): behaviour differs between FFmpeg 5.1, 7.1 and 9.0, so a user's report must say which.
@Suite("the FFmpeg libraries a binary runs on")
struct FFmpegVersionTests {
    /// `libavcodec 59.37.100` for each library the CLI's `-version` lists (`libavcodec     59. 37.100 / 59. 37.100`:
    /// the second column is the library it runs on).
    static func cliLibraries() throws -> [String] {
        let r = try Oracle.ffmpeg(["-version"])
        try #require(r.status == 0, "\(r.stderr)")
        return r.stdoutText.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("lib"), let slash = line.firstIndex(of: "/") else { return nil }
            let name = line.prefix { $0 != " " }
            let version = line[line.index(after: slash)...].filter { $0 != " " }
            return "\(name) \(version)"
        }
    }

    @Test("--version names every library mixwrite links at the version the system's ffmpeg CLI reports; the --json report says the same")
    func version() throws {
        let v = try Oracle.mixwrite(["--version"])
        #expect(v.status == 0, "\(v.stderr)")
        let lines = v.stdoutText.split(separator: "\n").map(String.init)
        try #require(lines.count == 2, "\(v.stdoutText)")
        #expect(lines[0].hasPrefix("mixwrite "))
        let cli = try Self.cliLibraries()
        for library in ["libavformat", "libavcodec", "libavfilter", "libswscale", "libswresample", "libavutil"] {
            let theirs = try #require(cli.first { $0.hasPrefix(library + " ") }, "the CLI lists \(library): \(cli)")
            #expect(lines[1].contains(theirs), "\(lines[1]) names \(theirs)")
        }

        let dir = try Oracle.scratch()
        let r = try Oracle.mixwrite(["still", Oracle.fixture("base.mov"), Oracle.fixture("tone.m4a"), "-o", dir + "/s.mp4",
                                     "--json", "-q", "--progress", "none"])
        try #require(r.status == 0, "\(r.stderr)")
        let report = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any]
        #expect(report?["ffmpeg"] as? String == lines[1])
    }
}
