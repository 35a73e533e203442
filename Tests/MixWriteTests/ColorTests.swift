import Foundation
import Testing
import TestSupport

/// HDR input: an HLG or PQ picture tone-mapped to SDR BT.709 as FFmpeg's own zscale + tonemap chain does it,
/// read back against that chain run by the ffmpeg CLI (mean CIEDE2000), with the output's colour tags from
/// ffprobe. The clips are made here from SDR by zscale (320×240, 1 s, HEVC Main 10).
@Suite("colour: HDR input tone-mapped to SDR BT.709")
struct ColorTests {
    /// The ffmpeg CLI's own HDR-to-SDR chain, the reference.
    static let cliChain = cliChainToLinear709 + ",tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p"
    /// The chain's first half: linear light in BT.709's primaries (units of 100 cd/m²), before the tone map.
    static let cliChainToLinear709 = "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709"

    /// An HDR clip made from SDR test pictures: `transfer` is zscale's name (smpte2084, arib-std-b67).
    static func hdrClip(_ transfer: String, in dir: String, size: String = "320x240") throws -> String {
        let path = dir + "/hdr-\(transfer)-\(size).mov"
        let r = try Oracle.ffmpeg(["-y", "-f", "lavfi", "-i", "testsrc2=s=\(size):r=25:d=1", "-vf",
                                   "zscale=tin=709:pin=709:min=709:rin=tv:t=\(transfer):p=2020:m=2020_ncl:r=tv:npl=100,format=yuv420p10le",
                                   "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error",
                                   "-color_primaries", "bt2020", "-color_trc", transfer, "-colorspace", "bt2020nc", path])
        try #require(r.status == 0, "\(r.stderr)")
        return path
    }

    /// The mean CIEDE2000 between two movies' frames (the first `frames`), frame by frame (same size).
    static func meanDifference(_ a: String, _ b: String, frames: Int? = nil) throws -> Double {
        let (x, y) = (try Oracle.decodeRGB(a, frames: frames), try Oracle.decodeRGB(b, frames: frames))
        try #require(x.width == y.width && x.height == y.height && !x.frames.isEmpty, "\(x.width)x\(x.height) vs \(y.width)x\(y.height)")
        let n = min(x.frames.count, y.frames.count)
        return (0..<n).map { ColorDifference.meanCIEDE2000(x.frames[$0], y.frames[$0]) }.reduce(0, +) / Double(n)
    }

    @Test("the colour difference itself: Sharma's published pair gives 2.0425")
    func oracle() {
        let d = ColorDifference.ciede2000((50, 2.6772, -79.7751), (50, 0, -82.7485))
        #expect(abs(d - 2.0425) < 0.0001, "\(d)")
    }

    @Test("an HLG and a PQ clip through concat: tagged BT.709, within CIEDE2000 1.5 of the ffmpeg CLI's chain (passed through untouched: over 5); the report and a warning say so",
          arguments: [("arib-std-b67", "HLG"), ("smpte2084", "PQ")])
    func toneMapped(transfer: String, name: String) throws {
        let dir = try Oracle.scratch("tonemap-\(name)")
        let clip = try Self.hdrClip(transfer, in: dir)
        let out = dir + "/out.mp4"
        let r = try Oracle.mixwrite(["concat", clip, "-o", out, "--json", "--progress", "none"])
        try #require(r.status == 0, "\(r.stderr)")
        let expected = "\(clip): HDR (\(name), bt2020) tone-mapped to SDR BT.709"
        #expect(r.stderr.contains("warning: " + expected), "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        let video = report["video"] as? [String: Any]
        #expect(video?["conversions"] as? [String] == [expected], "\(video ?? [:])")
        #expect(video?["matrix"] as? String == "bt709")
        let probe = try Oracle.mixwrite(["probe", clip, "--json"])
        let stream = ((try JSONSerialization.jsonObject(with: probe.stdout) as? [[String: Any]])?.first?["streams"] as? [[String: Any]])?.first
        #expect(stream?["hdr"] as? String == name && stream?["primaries"] as? String == "bt2020", "\(stream ?? [:])")
        let v = try #require(try Oracle.probe(out).video.first)
        #expect([v.raw["color_space"], v.raw["color_transfer"], v.raw["color_primaries"]] == ["bt709", "bt709", "bt709"], "\(v.raw)")

        let reference = dir + "/reference.mp4", untouched = dir + "/untouched.mp4"
        for (path, filters, tags) in [(reference, Self.cliChain, [String]()),
                                      (untouched, "format=yuv420p", ["-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709"])] {
            let c = try Oracle.ffmpeg(["-y", "-i", clip, "-vf", filters, "-c:v", "libx264", "-qp", "0"] + tags + [path])
            try #require(c.status == 0, "\(c.stderr)")
        }
        let mapped = try Self.meanDifference(out, reference), passed = try Self.meanDifference(untouched, reference)
        print("\(name): mean CIEDE2000 against the CLI's chain \(mapped); the HDR values passed through untouched \(passed)")
        #expect(mapped <= 1.5)
        #expect(passed > 5, "the check tells a tone-mapped picture from an untouched one")
    }

    @Test("an HDR clip larger than the output is scaled first, then tone-mapped: within CIEDE2000 1.5 of the CLI's scale then chain")
    func shrunkFirst() throws {
        let dir = try Oracle.scratch()
        let clip = try Self.hdrClip("arib-std-b67", in: dir, size: "640x480")
        let out = dir + "/out.mp4", reference = dir + "/reference.mp4"
        let r = try Oracle.mixwrite(["concat", clip, "--size", "320x240", "-o", out, "-q", "--progress", "none"])
        try #require(r.status == 0, "\(r.stderr)")
        let c = try Oracle.ffmpeg(["-y", "-i", clip, "-vf", "scale=320:240:flags=bicubic," + Self.cliChain, "-c:v", "libx264", "-qp", "0", reference])
        try #require(c.status == 0, "\(c.stderr)")
        let d = try Self.meanDifference(out, reference)
        print("640x480 HLG into 320x240: mean CIEDE2000 against the CLI's scale then chain \(d)")
        #expect(d <= 1.5)
    }

    @Test("fx over an HDR base: base tone-mapped (named in the report), fx as before; an SD BT.601 base stays BT.601")
    func hdrBase() throws {
        let dir = try Oracle.scratch()
        let base = try Self.hdrClip("arib-std-b67", in: dir)
        let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), base, "-o", dir + "/out.mov", "--json", "-q", "--progress", "none"])
        try #require(r.status == 0, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        let video = report["video"] as? [String: Any]
        #expect(video?["conversions"] as? [String] == ["\(base): HDR (HLG, bt2020) tone-mapped to SDR BT.709"], "\(video ?? [:])")
        #expect(try Oracle.probe(dir + "/out.mov").video.first?.raw["color_transfer"] == "bt709")

        let sd = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", dir + "/sd.mov", "--json", "-q", "--progress", "none"])
        let sdVideo = (try JSONSerialization.jsonObject(with: sd.stdout) as? [String: Any])?["video"] as? [String: Any]
        #expect(sdVideo?["matrix"] as? String == "bt601" && (sdVideo?["conversions"] as? [String])?.isEmpty == true, "\(sdVideo ?? [:])")
    }

    /// A flat fx movie of `colour` (320×240, 1 s, lossless).
    static func flatFx(_ colour: String, in dir: String) throws -> String {
        let path = dir + "/fx-\(colour).mov"
        let r = try Oracle.ffmpeg(["-y", "-f", "lavfi", "-i", "color=c=\(colour):s=320x240:r=25:d=1", "-c:v", "libx264", "-qp", "0",
                                   "-pix_fmt", "yuv420p", path])
        try #require(r.status == 0, "\(r.stderr)")
        return path
    }

    @Test("--hdr keep: HEVC Main 10 in base's HLG or PQ, BT.2020; base kept where fx is keyed out (≥ 38 dB, 10 bits); an opaque grey fx placed at 203 cd/m² as zscale places it",
          arguments: [("arib-std-b67", "HLG"), ("smpte2084", "PQ")])
    func keep(transfer: String, name: String) throws {
        let dir = try Oracle.scratch("keep-\(name)")
        let base = try Self.hdrClip(transfer, in: dir)
        let keyedOut = dir + "/keyed-out.mov", grey = dir + "/grey.mov", reference = dir + "/grey-reference.mov"
        let r = try Oracle.mixwrite([try Self.flatFx("0x00FF00", in: dir), base, "--hdr", "keep", "-o", keyedOut, "--json", "-q", "--progress", "none"])
        try #require(r.status == 0, "\(r.stderr)")
        let video = (try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])?["video"] as? [String: Any]
        #expect(video?["matrix"] as? String == "bt2020" && (video?["conversions"] as? [String])?.first?.contains("SDR placed in HDR (\(name), bt2020) at 203 cd/m²") == true,
                "\(video ?? [:])")
        let v = try #require(try Oracle.probe(keyedOut).video.first)
        #expect(v.codec == "hevc" && v.raw["pix_fmt"] == "yuv420p10le" && v.raw["profile"] == "Main 10", "\(v.raw)")
        #expect(v.raw["codec_tag_string"] == "hvc1", "tagged as Apple's players want it: \(v.raw["codec_tag_string"] ?? "")")
        #expect([v.raw["color_space"], v.raw["color_transfer"], v.raw["color_primaries"]] == ["bt2020nc", transfer, "bt2020"], "\(v.raw)")
        let kept = try AlphaTests.psnr(keyedOut, base)
        print("--hdr keep \(name): base where fx is keyed out, PSNR \(kept) dB")
        #expect(kept >= 38)

        let g = try Oracle.mixwrite([try Self.flatFx("0x808080", in: dir), base, "--hdr", "keep", "--crf", "0", "-o", grey, "-q", "--progress", "none"])
        try #require(g.status == 0, "\(g.stderr)")
        let c = try Oracle.ffmpeg(["-y", "-i", try Self.flatFx("0x808080", in: dir), "-vf",
                                   "zscale=tin=709:min=709:pin=709:rin=tv:t=\(transfer):p=2020:m=2020_ncl:r=tv:npl=203,format=yuv420p10le",
                                   "-c:v", "libx265", "-x265-params", "lossless=1:log-level=error", reference])
        try #require(c.status == 0, "\(c.stderr)")
        let placed = try AlphaTests.psnr(grey, reference)
        print("--hdr keep \(name): an opaque grey fx against zscale's placement at 203 cd/m², PSNR \(placed) dB")
        #expect(placed >= 38)
    }

    @Test("--hdr keep with an fx that has its own alpha (ProRes 4444): composited by it, within 38 dB of the CLI's zscale placement at 203 cd/m² and 10-bit overlay; --despill neutralises a green-tinted fx as in SDR")
    func keepAlpha() throws {
        let dir = try Oracle.scratch("keep-alpha")
        let (fx, _) = try AlphaTests.clips("mov", in: dir)
        let base = try Self.hdrClip("arib-std-b67", in: dir)
        let out = dir + "/out.mov", reference = dir + "/reference.mov"
        let r = try Oracle.mixwrite([fx, base, "--hdr", "keep", "--crf", "0", "-o", out, "--json", "-q", "--progress", "none"])
        try #require(r.status == 0, "\(r.stderr)")
        #expect((try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])?["compositing"] as? String == "alpha")
        // fx is untagged SD (BT.601 matrix), read into SDR BT.709 and placed into HDR as zscale places it; its alpha goes
        // round zscale (alphaextract, alphamerge): FFmpeg 9.0's zscale, given a picture with alpha, changes the colour
        // where fx is partly transparent (the reference then lies 37.7 dB from mixwrite's picture, which is the same on
        // every version; 5.1's and 7.1's chains, and 9.0's with the alpha kept out of zscale, lie 51 dB from it).
        let c = try Oracle.ffmpeg(["-y", "-i", fx, "-i", base, "-filter_complex",
                                   "[0:v]format=yuva444p16le,split[c][a];[a]alphaextract,format=gray10le[al];"
                                   + "[c]format=yuv444p16le,zscale=tin=709:min=470bg:pin=709:rin=tv:t=arib-std-b67:p=2020:m=2020_ncl:r=tv:npl=203,"
                                   + "format=yuv444p16le,format=yuv420p10le[z];[z][al]alphamerge[f];[1:v][f]overlay=format=yuv420p10",
                                   "-c:v", "libx265", "-x265-params", "lossless=1:log-level=error", reference])
        try #require(c.status == 0, "\(c.stderr)")
        let (against, base0) = (try AlphaTests.psnr(out, reference), try AlphaTests.psnr(out, base))
        print("--hdr keep with fx's alpha: against the CLI's overlay \(against) dB; against base alone \(base0) dB")
        #expect(against >= 38)
        #expect(base0 < against - 10, "fx shows: the output is not base alone")

        // An opaque grey-green fx (kept by the key): greenish in HDR without --despill, neutral with it.
        let tinted = dir + "/tinted.mov"
        let t = try Oracle.ffmpeg(["-y", "-f", "lavfi", "-i", "color=c=0x90A090:s=320x240:r=25:d=1", "-c:v", "libx264", "-qp", "0",
                                   "-pix_fmt", "yuv420p", tinted])
        try #require(t.status == 0, "\(t.stderr)")
        var chroma: [[Double]] = []
        for despill in [[String](), ["--despill"]] {
            let o = dir + "/tinted-out\(despill.count).mov"
            let m = try Oracle.mixwrite([tinted, base, "--hdr", "keep", "-o", o, "-q", "--progress", "none"] + despill)
            try #require(m.status == 0, "\(m.stderr)")
            let stats = try Oracle.ffmpeg(["-i", o, "-vf", "signalstats,metadata=print:file=-", "-frames:v", "1", "-f", "null", "-"])
            chroma.append(["UAVG", "VAVG"].map { key in
                stats.stdoutText.split(separator: "\n").compactMap { line in
                    line.hasPrefix("lavfi.signalstats.\(key)=") ? Double(line.split(separator: "=")[1]) : nil
                }.first ?? 0
            })
        }
        print("--hdr keep, a grey-green fx's mean Cb and Cr (10 bits): \(chroma[0]) without --despill, \(chroma[1]) with it")
        #expect(chroma[0].allSatisfy { $0 < 502 }, "green without despill: \(chroma[0])")
        #expect(chroma[1].allSatisfy { abs($0 - 512) <= 3 }, "neutral with despill: \(chroma[1])")
    }

    @Test("--hdr keep passes base's mastering display and content light levels on (x265's SEI), as ffprobe reads them back")
    func keepLight() throws {
        let dir = try Oracle.scratch("keep-light")
        let base = dir + "/pq-mastered.mov", out = dir + "/out.mov"
        let master = "G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,50)"
        let b = try Oracle.ffmpeg(["-y", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=1", "-vf",
                                   "zscale=tin=709:pin=709:min=709:rin=tv:t=smpte2084:p=2020:m=2020_ncl:r=tv:npl=100,format=yuv420p10le",
                                   "-c:v", "libx265", "-preset", "ultrafast",
                                   "-x265-params", "log-level=error:hdr10=1:master-display=\(master):max-cll=1000,400",
                                   "-color_primaries", "bt2020", "-color_trc", "smpte2084", "-colorspace", "bt2020nc", base])
        try #require(b.status == 0, "\(b.stderr)")
        let r = try Oracle.mixwrite([try Self.flatFx("0x00FF00", in: dir), base, "--hdr", "keep", "-o", out, "-q", "--progress", "none"])
        try #require(r.status == 0, "\(r.stderr)")
        func light(_ path: String) throws -> [String] {
            let p = try Oracle.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-read_intervals", "%+#1", "-show_frames",
                                               "-show_entries", "frame_side_data", "-of", "flat", path])
            return p.stdoutText.split(separator: "\n").map(String.init)
                .filter { $0.contains("_x=") || $0.contains("_y=") || $0.contains("luminance") || $0.contains("max_content") || $0.contains("max_average") }
                .map { $0.split(separator: ".").last.map(String.init) ?? $0 }
        }
        let (source, kept) = (try light(base), try light(out))
        print("mastering and light levels: base \(source), output \(kept)")
        #expect(source.count == 12, "the fixture carries them: \(source)")
        #expect(kept == source)
    }

    @Test("--hdr keep without an HDR base: exit 1, one line, no output")
    func keepRefused() throws {
        let dir = try Oracle.scratch()
        let out = dir + "/out.mov"
        let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "--hdr", "keep", "-o", out, "--progress", "none"])
        #expect(r.status == 1 && r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("--hdr keep"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("the corpus's iPhone HLG (Dolby Vision 8.4) and PQ clips: within CIEDE2000 3 of the ffmpeg CLI's chain (MIXWRITE_CORPUS)",
          .enabled(if: Oracle.corpus != nil, "MIXWRITE_CORPUS is not set: the corpus's HDR clips are not run"))
    func corpus() throws {
        let corpus = try #require(Oracle.corpus)
        let dir = try Oracle.scratch()
        for name in ["rotation/iphone_hevc_dv_rot90_aac.mov", "video/hevc_10bit_1080p_vfr_aac.mp4"] {
            let clip = corpus + "/" + name, out = dir + "/out.mp4", reference = dir + "/reference.mp4"
            let r = try Oracle.mixwrite(["concat", clip, "-o", out, "-y", "-q", "--progress", "none"])
            try #require(r.status == 0, "\(name): \(r.stderr)")
            // The same frames: the reference at mixwrite's constant rate (the PQ clip's own is variable).
            let rate = try #require(try Oracle.probe(out).video.first?.raw["r_frame_rate"])
            let c = try Oracle.ffmpeg(["-y", "-i", clip, "-vf", Self.cliChain, "-r", rate, "-an", "-c:v", "libx264", "-qp", "0", reference])
            try #require(c.status == 0, "\(c.stderr)")
            let d = try Self.meanDifference(out, reference, frames: 4)
            print("\(name): mean CIEDE2000 against the CLI's chain \(d)")
            #expect(d <= 3, "\(name)")
        }
    }

    @Test("the corpus's iPhone HLG clip kept (--hdr keep, a green fx keyed out): HEVC Main 10 HLG, upright, ≥ 38 dB against the source (MIXWRITE_CORPUS)",
          .enabled(if: Oracle.corpus != nil, "MIXWRITE_CORPUS is not set: the corpus's iPhone clip is not kept"))
    func keepCorpus() throws {
        let corpus = try #require(Oracle.corpus)
        let dir = try Oracle.scratch()
        let clip = corpus + "/rotation/iphone_hevc_dv_rot90_aac.mov", out = dir + "/out.mov"
        let r = try Oracle.mixwrite([try Self.flatFx("0x00FF00", in: dir), clip, "--hdr", "keep", "--duration", "base", "-o", out,
                                     "-q", "--progress", "none"])
        try #require(r.status == 0, "\(r.stderr)")
        let v = try #require(try Oracle.probe(out).video.first)
        #expect(v.codec == "hevc" && v.raw["pix_fmt"] == "yuv420p10le" && v.raw["color_transfer"] == "arib-std-b67", "\(v.raw)")
        #expect(v.raw["width"] == "1080" && v.raw["height"] == "1920", "upright: \(v.raw)")
        // The CLI turns the source upright as it decodes it.
        let kept = try AlphaTests.psnr(out, clip)
        print("the iPhone clip kept: \(kept) dB against the source")
        #expect(kept >= 38)
    }
}
