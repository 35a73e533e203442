import Foundation
import Testing
import TestSupport
@testable import MixWrite

/// FATE's habit: the framemd5 of a few fixture renders, committed in `Tests/Golden/` and checked, so that an
/// output that changes by one bit fails a test, not a reader's eye. What is hashed is what mixwrite itself computes,
/// never an encoder's or a decoder's version (FFmpeg 5.1, 7.1 and 9.0 must all give the recorded hashes):
///
/// - Pictures are rendered lossless (`--crf 0`: x264 at qp 0 gives back the keyer's own bytes, whatever its
///   version or threads) and read back by the ffmpeg CLI.
/// - Sound comes from fixtures whose tracks are FLAC (`fx-flac.mkv`, `base-flac.mkv`, `tone.flac`: the AAC decoders
///   of 5.1 and 9.0 differ in the last bits) and is written as 24-bit PCM (`--audio-codec pcm`), so its hash is
///   the mix itself; it is compared sample block by sample block, without the decoder's timestamps (in a
///   Matroska file they are milliseconds, which 5.1 and 9.0 turn back into samples differently).
/// - Pictures' timestamps are compared from the first one on (a Matroska remix's first picture is at 1 ms on 5.1,
///   at 0 on 9.0: FFmpeg's timestamps, not mixwrite's pictures).
///
/// When an output is meant to change, re-record and say why in the commit:
/// `MIXWRITE_RECORD=1 swift test --filter GoldenTests` (after `swift build`), then `git diff Tests/Golden`.
@Suite("golden: framemd5 of fixture renders")
struct GoldenTests {
    struct Render: CustomTestStringConvertible, Sendable {
        var name: String
        var arguments: [String]
        var output = "out.mov"
        var testDescription: String { name }
    }

    static let renders: [Render] = {
        let (fx, base, edges, tone) = (Oracle.fixture("fx-flac.mkv"), Oracle.fixture("base-flac.mkv"), Oracle.fixture("edges.mov"),
                                       Oracle.fixture("tone.flac"))
        let pcm = ["--audio-codec", "pcm"]
        return [
            Render(name: "blend", arguments: [fx, base, "--crf", "0"] + pcm),
            Render(name: "blend-edges-despill", arguments: [edges, base, "--crf", "0", "--despill", "--audio", tone] + pcm),
            Render(name: "blend-hard-edge", arguments: [edges, base, "--crf", "0", "--threshold", "0.3", "--smoothing", "0"] + pcm),
            Render(name: "blend-publish", arguments: [fx, base, "--crf", "0", "--loudness", "-18", "--duck", "base=9", "--fade-in", "0.5"] + pcm),
            Render(name: "concat", arguments: ["concat", base, fx, "--crf", "0"] + pcm),
            Render(name: "remix", arguments: ["remix", fx, "--audio", tone, "--gain", "movie:2=-6"] + pcm, output: "out.mkv"),
        ]
    }()

    static var recording: Bool { ProcessInfo.processInfo.environment["MIXWRITE_RECORD"] == "1" }

    /// The sound's hashes hold for FFmpeg's float code paths on a CPU with AVX2 and FMA, where they were recorded
    /// (the resampler chooses SIMD versions by CPU, and those round differently).
    static let soundAsRecorded: Bool = {
        let info = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let flags = Set(info.split(separator: "\n").first { $0.hasPrefix("flags") }?.split(separator: " ").map(String.init) ?? [])
        return flags.contains("avx2") && flags.contains("fma")
    }()

    /// framemd5 of one kind of stream, as compared: without the line naming the software (its version is not the
    /// output); a picture's timestamps counted from the first picture's; a block of samples without its timestamps.
    static func framemd5(_ path: String, _ stream: String) throws -> String {
        // Samples hashed as 32-bit integers: all 24 bits of the PCM mixwrite wrote (framemd5's own s16 would drop 8).
        let samples = stream == "a" ? ["-c:a", "pcm_s32le"] : []
        let r = try Oracle.run("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-cpuflags", "0", "-i", path, "-map", "0:\(stream)"]
                               + samples + ["-f", "framemd5", "-"])
        guard r.status == 0 else { throw OracleError("ffmpeg framemd5 of \(path): \(r.stderr)") }
        var origin: Int?
        let lines = r.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#software") }.map { line -> String in
            if line.hasPrefix("#stream#") && stream == "a" { return "#stream#, duration, size, hash" }
            guard !line.hasPrefix("#") else { return String(line) }
            // stream, dts, pts, duration, size, md5[, side data]
            var f = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard f.count >= 6, let dts = Int(f[1]), let pts = Int(f[2]) else { return String(line) }
            if stream == "a" { f.removeSubrange(1...2) } else {
                origin = origin ?? pts
                (f[1], f[2]) = (String(dts - origin!), String(pts - origin!))
            }
            return f.joined(separator: ", ")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test("each render's pictures as recorded in Tests/Golden", arguments: renders)
    func golden(_ render: Render) throws {
        try check(render, kinds: ["v"])
    }

    @Test("each render's sound as recorded in Tests/Golden",
          .enabled(if: soundAsRecorded || recording, "the sound's hashes were recorded on a CPU with AVX2 and FMA; this one lacks them"),
          arguments: renders)
    func goldenSound(_ render: Render) throws {
        try check(render, kinds: ["a"])
    }

    /// The keyer's levels below this CPU's best (`MIXWRITE_KERNEL_LEVEL`; 0 is the scalar reference): the same
    /// pictures, so the movie does not depend on the machine.
    @Test("every kernel level renders the recorded pictures",
          .enabled(if: !recording && KeyKernel.best >= 1, "this CPU has the scalar level alone: there is no other level to compare"),
          arguments: renders.filter { $0.name.hasPrefix("blend") })
    func everyLevel(_ render: Render) throws {
        let best = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "--length", "0.2", "-o",
                                        try Oracle.scratch("golden-level") + "/best.mov", "--json", "-q"])
        let report = try JSONSerialization.jsonObject(with: best.stdout) as? [String: Any]
        let top = try #require(report?["kernelLevel"] as? Int, "the report names the kernel level: \(best.stdoutText)")
        #expect(top == Int(KeyKernel.best) && top >= 1, "the render runs this CPU's best level")
        for level in 0..<top { try check(render, kernelLevel: level, kinds: ["v"]) }
    }

    func check(_ render: Render, kernelLevel: Int? = nil, kinds: [String]) throws {
        let dir = try Oracle.scratch("golden-\(render.name)-\(kinds.joined())-\(kernelLevel.map(String.init) ?? "best")")
        let out = dir + "/" + render.output
        let r = try Oracle.run(Oracle.mixwrite, render.arguments + ["-o", out, "-q"],
                               environment: ["MIXWRITE_KERNEL_LEVEL": kernelLevel.map(String.init) ?? ""], timeout: 120)
        try #require(r.status == 0, "\(r.stderr)")
        for (stream, kind) in [("v", "video"), ("a", "audio")] where kinds.contains(stream) {
            let file = Oracle.root.appendingPathComponent("Tests/Golden/\(render.name).\(kind).framemd5")
            let hashes = try Self.framemd5(out, stream)
            if Self.recording {
                try Data(hashes.utf8).write(to: file)
                print("recorded \(file.path)")
                continue
            }
            let expected = try String(contentsOf: file, encoding: .utf8)
            let (got, want) = (hashes.split(separator: "\n"), expected.split(separator: "\n"))
            let first = zip(want, got).first { $0.0 != $0.1 }.map { "\($0.0) → \($0.1)" } ?? "none"
            let same = got == want
            #expect(same, "\(render.name) \(kind) (kernel level \(kernelLevel.map(String.init) ?? "best")): \(got.count) lines against \(want.count) recorded; first difference: \(first) (MIXWRITE_RECORD=1 re-records)")
        }
    }
}
