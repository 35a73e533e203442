import Foundation
import Testing
import TestSupport

/// `--codec` and `--audio-codec`: every encoder in a container that holds it, read back by the ffmpeg CLI (ffprobe's
/// streams, a decode without an error, the pictures against the H.264 render's, each source's tone in the sound);
/// a combination the container cannot hold refused before any work.
@Suite("codecs: every video and audio codec, and what each container holds")
struct CodecTests {
    /// The fixture blend (fx's 440 and 1000 Hz, base's 660 Hz) into `name` with `options`, read back.
    static func render(_ dir: String, _ name: String, _ options: [String]) throws -> String {
        let out = dir + "/" + name
        let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", out, "-q", "--progress", "none"] + options)
        try #require(r.status == 0, "\(name): \(r.stderr)")
        try #require(r.stderr.isEmpty, "\(name): nothing on stderr with -q: \(r.stderr)")
        let check = try Oracle.ffmpeg(["-v", "error", "-i", out, "-f", "null", "-"])
        #expect(check.status == 0 && check.stderr.isEmpty, "\(name) decodes cleanly: \(check.stderr)")
        return out
    }

    /// The levels of the mix's three tones (fx's 440 and 1000 Hz, base's 660 Hz), left channel, 0.2 … 1.8 s.
    static func tones(_ path: String) throws -> [Double] {
        let left = Oracle.channel(try Oracle.decodeAudio(path), 0, of: 2)
        let span = Array(left[Int(0.2 * 48000) ..< Int(1.8 * 48000)])
        return [440.0, 660, 1000].map { Oracle.toneLevel(span, frequency: $0) }
    }

    /// The three tones of the mix, each within 3 dB of the H.264 + AAC render's (the codec keeps every source).
    static func expectTones(_ path: String, like reference: [Double], _ what: String) throws -> [Double] {
        let levels = try tones(path)
        for (l, r) in zip(levels, reference) { #expect(abs(l - r) <= 3, "\(what): tones \(levels) dB, the AAC render's \(reference)") }
        return levels
    }

    @Test("each video codec (HEVC in .mp4, ProRes in .mov, AV1 in .mkv, VP9 in .webm by default): its stream and colour tags, a clean decode, the same frames as the H.264 render within 35 dB; a .webm's sound Opus")
    func videoCodecs() throws {
        let dir = try Oracle.scratch()
        let reference = try Self.render(dir, "h264.mov", ["--crf", "10"])
        let frames = try Oracle.decodeRGB(reference).frames
        let tags = try #require(try Oracle.probe(reference).video.first).raw
        let cases: [(String, [String], String, String?)] = [
            ("hevc.mp4", ["--codec", "hevc"], "hevc", "yuv420p"),
            ("prores.mov", ["--codec", "prores"], "prores", "yuv422p10le"),
            // Its fourcc (ap4h) names 4444, which FFmpeg's decoder reads as 12-bit, as it does the CLI's prores_ks 4444.
            ("prores4444.mkv", ["--codec", "prores", "--prores-profile", "4444"], "prores", "yuv444p12le"),
            ("av1.mkv", ["--codec", "av1"], "av1", "yuv420p"),
            ("vp9.webm", [], "vp9", "yuv420p"),
        ]
        for (name, options, codec, format) in cases {
            let out = try Self.render(dir, name, options + ["--crf", "10"])
            let probe = try Oracle.probe(out)
            let v = try #require(probe.video.first, "\(name)")
            #expect(v.codec == codec && v.raw["pix_fmt"] == format, "\(name): \(v.raw)")
            // The colour tags the H.264 render has (ProRes carries them in its frame headers, from each picture's own).
            for tag in ["color_space", "color_primaries", "color_transfer"] {
                #expect(v.raw[tag] == tags[tag] && tags[tag] != nil && tags[tag] != "unknown", "\(name): \(tag) \(v.raw[tag] ?? "none"), H.264's \(tags[tag] ?? "none")")
            }
            #expect(probe.audio.first?.codec == (name.hasSuffix(".webm") ? "opus" : "aac"), "\(name): \(probe.audio.map(\.codec))")
            let got = try Oracle.decodeRGB(out).frames
            #expect(got.count == frames.count, "\(name): \(got.count) frames, the H.264 render \(frames.count)")
            // In 4:2:0 (ProRes's 4:2:2 and 4:4:4 brought back to it): the pictures, not two chroma upsamplings.
            let r = try Oracle.ffmpeg(["-i", out, "-i", reference, "-lavfi", "[0:v]format=yuv420p[a];[1:v]format=yuv420p[b];[a][b]psnr",
                                       "-f", "null", "-"])
            let line = r.stderr.split(separator: "\n").last { $0.contains("PSNR") } ?? ""
            let psnr = line.split(separator: " ").first { $0.hasPrefix("average:") }.flatMap { Double($0.dropFirst("average:".count)) } ?? 0
            print("\(name): PSNR against the H.264 render \(psnr) dB (Y, U, V average, 4:2:0)")
            #expect(psnr >= 35, "\(name)")
        }
    }

    @Test("each audio codec (Opus, FLAC, PCM; AAC as reference): the stream, and every source's tone at its level")
    func audioCodecs() throws {
        let dir = try Oracle.scratch()
        let reference = try Self.tones(try Self.render(dir, "aac.mov", []))
        #expect(reference.allSatisfy { $0 > -20 }, "the AAC render holds every tone: \(reference)")
        for (name, options, codec) in [("opus.mp4", ["--audio-codec", "opus"], "opus"), ("flac.mkv", ["--audio-codec", "flac"], "flac"),
                                       ("pcm.mov", ["--audio-codec", "pcm"], "pcm_s24le"), ("opus.webm", [], "opus")] {
            let out = try Self.render(dir, name, options)
            let a = try #require(try Oracle.probe(out).audio.first, "\(name)")
            #expect(a.codec == codec, "\(name): \(a.codec)")
            let levels = try Self.expectTones(out, like: reference, name)
            print("\(name): tones \(levels) dB (AAC \(reference))")
            let length = try Oracle.decodedDuration(out, stream: "a:0")
            #expect(abs(length - 2) < 0.03, "\(name): \(length) s of sound")
        }
    }

    @Test("each ProRes profile's .mov carries its own sample description (apco … ap4x) and profile, as the ffmpeg CLI's prores_ks writes it; key's 4444 layer is ap4h")
    func proresProfilesTagged() throws {
        let dir = try Oracle.scratch()
        func tag(_ path: String) throws -> (String, String) {
            let v = try #require(try Oracle.probe(path).video.first, "\(path)")
            return (v.raw["codec_tag_string"] ?? "none", v.raw["profile"] ?? "none")
        }
        for (n, (profile, fourcc)) in [("proxy", "apco"), ("lt", "apcs"), ("standard", "apcn"), ("hq", "apch"), ("4444", "ap4h"),
                                      ("4444xq", "ap4x")].enumerated() {
            let out = dir + "/\(profile).mov", peer = dir + "/cli-\(profile).mov"
            let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", out, "-q", "--progress", "none",
                                         "--codec", "prores", "--prores-profile", profile, "--length", "0.2"])
            try #require(r.status == 0, "\(profile): \(r.stderr)")
            let cli = try Oracle.ffmpeg(["-v", "error", "-i", Oracle.fixture("base.mov"), "-t", "0.2", "-an", "-c:v", "prores_ks",
                                         "-profile:v", "\(n)", peer])
            try #require(cli.status == 0, "the CLI's prores_ks \(profile): \(cli.stderr)")
            let (ours, theirs) = (try tag(out), try tag(peer))
            #expect(ours.0 == fourcc && ours == theirs, "\(profile): ours \(ours), the CLI's \(theirs), expected \(fourcc)")
        }
        let layer = dir + "/layer.mov"
        let r = try Oracle.mixwrite(["key", Oracle.fixture("fx.mov"), "-o", layer, "-q", "--progress", "none"])
        try #require(r.status == 0, "key: \(r.stderr)")
        let (fourcc, profile) = try tag(layer)
        #expect(fourcc == "ap4h" && profile == "4444", "key's layer: \(fourcc) \(profile)")
    }

    @Test("what the container cannot hold is refused before any work: exit 1, one line naming what works, no output")
    func refused() throws {
        let dir = try Oracle.scratch()
        for (options, name, message) in [(["--audio-codec", "opus"], "a.mov", "opus in .mov: use .mp4, .mkv or .webm"),
                                         (["--codec", "prores"], "b.mp4", "prores in .mp4: use .mov or .mkv"),
                                         (["--codec", "hevc"], "c.webm", "hevc in .webm: use .mov, .mp4 or .mkv"),
                                         (["--audio-codec", "flac"], "d.mp4", "flac in .mp4: use .mkv"),
                                         (["--audio-codec", "opus", "--sample-rate", "44100"], "e.mkv", "opus takes 48000")] {
            let out = dir + "/" + name
            let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", out, "--progress", "none"] + options)
            #expect(r.status == 1 && r.stderr.split(separator: "\n").count == 1 && r.stderr.contains(message), "\(options): \(r.stderr)")
            #expect(try !FileManager.default.fileExists(atPath: out) && Oracle.listing(dir).allSatisfy { !$0.hasSuffix(".tmp") })
        }
        // --hdr keep writes HEVC: another codec is refused.
        let hdr = try ColorTests.hdrClip("arib-std-b67", in: dir)
        let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), hdr, "--hdr", "keep", "--codec", "vp9", "-o", dir + "/f.mkv", "--progress", "none"])
        #expect(r.status == 1 && r.stderr.contains("--hdr keep writes HEVC Main 10; --codec vp9"), "\(r.stderr)")
    }

    @Test("concat, still and remix take the codecs too (ProRes + PCM, VP9 + Opus, FLAC)")
    func otherCommands() throws {
        let dir = try Oracle.scratch()
        let concat = dir + "/concat.mov", still = dir + "/still.webm", remix = dir + "/remix.mkv"
        for (args, out, expected) in [
            (["concat", Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "--codec", "prores", "--prores-profile", "proxy", "--audio-codec", "pcm"],
             concat, ["prores", "pcm_s24le"]),
            (["still", Oracle.fixture("noaudio.mov"), Oracle.fixture("tone.m4a")], still, ["vp9", "opus"]),
            (["remix", Oracle.fixture("base.mov"), "--audio-codec", "flac"], remix, ["h264", "flac"]),
        ] {
            let r = try Oracle.mixwrite(args + ["-o", out, "-q", "--progress", "none"])
            try #require(r.status == 0, "\(args[0]): \(r.stderr)")
            let p = try Oracle.probe(out)
            #expect([p.video.first?.codec, p.audio.first?.codec] == expected.map { Optional($0) }, "\(args[0]): \(p.video.map(\.codec)) \(p.audio.map(\.codec))")
            let check = try Oracle.ffmpeg(["-v", "error", "-i", out, "-f", "null", "-"])
            #expect(check.status == 0 && check.stderr.isEmpty, "\(args[0]) decodes cleanly: \(check.stderr)")
        }
    }
}
