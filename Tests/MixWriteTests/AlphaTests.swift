import Foundation
import Testing
import TestSupport
import MixWrite

/// An fx that carries its own alpha (ProRes 4444, VP9 with alpha in WebM) is composited by it, as the ffmpeg CLI's
/// `overlay=format=auto` does, read back by FFmpeg's `psnr` filter. The clips are made here (320×240, 1 s): a
/// test picture whose alpha is a soft disc moving across it, over SMPTE bars.
@Suite("fx with its own alpha: composited by it, not keyed")
struct AlphaTests {
    static let disc = "format=yuva444p,geq=lum='lum(X,Y)':cb='cb(X,Y)':cr='cr(X,Y)':a='clip(255*(1.4-hypot(X-160-60*sin(T*6),Y-120)/70),0,255)'"

    /// The alpha fx (`ext`: mov for ProRes 4444, webm for VP9 with alpha) and the base, in `dir`.
    static func clips(_ ext: String, in dir: String) throws -> (fx: String, base: String) {
        let fx = dir + "/fx." + ext, base = dir + "/base.mov"
        let codec = ext == "mov" ? ["-c:v", "prores_ks", "-profile:v", "4444", "-pix_fmt", "yuva444p10le"]
                                 : ["-vf", disc + ",format=yuva420p", "-c:v", "libvpx-vp9", "-b:v", "2M"]
        let filter = ext == "mov" ? ["-vf", disc] : []
        for args in [["-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=1"] + filter + codec + [fx],
                     ["-f", "lavfi", "-i", "smptebars=s=320x240:r=25:d=1", "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p", base]] {
            let r = try Oracle.ffmpeg(["-y"] + args)
            try #require(r.status == 0, "\(r.stderr)")
        }
        return (fx, base)
    }

    /// FFmpeg's PSNR (its `psnr` filter's average over Y, U and V, every frame) of `a` against `b`.
    static func psnr(_ a: String, _ b: String) throws -> Double {
        let r = try Oracle.ffmpeg(["-i", a, "-i", b, "-lavfi", "[0:v][1:v]psnr", "-f", "null", "-"])
        guard let line = r.stderr.split(separator: "\n").last(where: { $0.contains("PSNR") }),
              let field = line.split(separator: " ").first(where: { $0.hasPrefix("average:") }) else {
            throw OracleError("no PSNR: \(r.stderr)")
        }
        let value = field.dropFirst("average:".count)
        return value == "inf" ? .infinity : Double(value) ?? 0
    }

    @Test("ProRes 4444 and VP9 with alpha over bars: within 38 dB of the CLI's overlay (keyed instead: under 20); the report says alpha",
          arguments: ["mov", "webm"])
    func composited(ext: String) throws {
        let dir = try Oracle.scratch("alpha-\(ext)")
        let (fx, base) = try Self.clips(ext, in: dir)
        let out = dir + "/out.mov", keyed = dir + "/keyed.mov", reference = dir + "/reference.mov"
        let r = try Oracle.mixwrite([fx, base, "-o", out, "--crf", "0", "--json", "-q", "--progress", "none"])
        try #require(r.status == 0, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        #expect(report["compositing"] as? String == "alpha" && report["key"] == nil, "\(report["compositing"] ?? "none")")
        let probe = try Oracle.mixwrite(["probe", fx, "--json"])
        let stream = ((try JSONSerialization.jsonObject(with: probe.stdout) as? [[String: Any]])?.first?["streams"] as? [[String: Any]])?.first
        #expect(stream?["alpha"] as? Bool == true, "\(stream ?? [:])")
        let k = try Oracle.mixwrite([fx, base, "-o", keyed, "--crf", "0", "--key", "chroma", "-q", "--progress", "none"])
        try #require(k.status == 0, "\(k.stderr)")
        // libvpx's decoder reads VP9's alpha; FFmpeg's own ignores it.
        let decoder = ext == "webm" ? ["-c:v", "libvpx-vp9"] : []
        let c = try Oracle.ffmpeg(["-y", "-i", base] + decoder + ["-i", fx, "-filter_complex", "[0:v][1:v]overlay=format=auto,format=yuv420p",
                                                                    "-c:v", "libx264", "-qp", "0", reference])
        try #require(c.status == 0, "\(c.stderr)")
        let (byAlpha, byKey) = (try Self.psnr(out, reference), try Self.psnr(keyed, reference))
        print("\(ext): PSNR against overlay \(byAlpha) dB by alpha, \(byKey) dB keyed")
        #expect(byAlpha >= 38)
        #expect(byKey < 20, "the check tells compositing by alpha from keying")
    }

    @Test("--despill with an alpha fx: fx's green pulled toward neutral where it shows, base untouched where fx is clear")
    func despill() throws {
        let dir = try Oracle.scratch()
        let (fx, base) = try Self.clips("mov", in: dir)
        var frames: [[UInt8]] = []
        for extra in [[String](), ["--despill"]] {
            let out = dir + "/out\(extra.count).mov"
            let r = try Oracle.mixwrite([fx, base, "-o", out, "--crf", "0", "-q", "--progress", "none"] + extra)
            try #require(r.status == 0, "\(r.stderr)")
            frames.append(try #require(try Oracle.decodeRGB(out).frames.first))
        }
        let (plain, despilled) = (frames[0], frames[1])
        // The disc is clear in the corners at 0 s: base there, either way.
        for (x, y) in [(4, 4), (315, 4), (4, 235), (315, 235)] {
            let i = (y * 320 + x) * 3
            #expect(Array(plain[i..<i + 3]) == Array(despilled[i..<i + 3]), "(\(x), \(y))")
        }
        // Where they differ, the despilled picture is less green (G over the larger of R and B).
        var changed = 0, greener = 0.0, lessGreen = 0.0
        for i in stride(from: 0, to: plain.count, by: 3) where plain[i..<i + 3] != despilled[i..<i + 3] {
            changed += 1
            greener += Double(plain[i + 1]) - Double(max(plain[i], plain[i + 2]))
            lessGreen += Double(despilled[i + 1]) - Double(max(despilled[i], despilled[i + 2]))
        }
        print("despill on an alpha fx: \(changed) pixels changed; green excess \(greener / Double(max(changed, 1))) → \(lessGreen / Double(max(changed, 1)))")
        #expect(changed > 500)
        #expect(lessGreen < greener - 10 * Double(changed))
    }

    @Test("the tuning page's preview of an alpha fx: the matte is its alpha (white where fx is opaque), the composite base where it is clear")
    func preview() throws {
        let dir = try Oracle.scratch()
        let (fx, base) = try Self.clips("mov", in: dir)
        let preview = try BlendPreview(job: BlendJob(fx: fx, base: base, output: dir + "/out.mov"))
        var pictures: [BlendPreview.View: [UInt8]] = [:]
        for view in [BlendPreview.View.matte, .composite, .base] {
            let path = dir + "/\(view).jpg"
            try Data(try preview.picture(at: 0, key: KeySettings(), view: view)).write(to: URL(fileURLWithPath: path))
            let first: [UInt8] = try #require(try Oracle.decodeRGB(path).frames.first)
            pictures[view] = first
        }
        func pixel(_ view: BlendPreview.View, _ x: Int, _ y: Int) -> [Int] {
            let i = (y * 320 + x) * 3
            return pictures[view]![i..<i + 3].map(Int.init)
        }
        // At 0 s the disc is opaque at the centre (160, 120) and clear in the corners.
        #expect(pixel(.matte, 160, 120).allSatisfy { $0 > 225 } && pixel(.matte, 8, 8).allSatisfy { $0 < 30 },
                "\(pixel(.matte, 160, 120)) \(pixel(.matte, 8, 8))")
        #expect(zip(pixel(.composite, 8, 8), pixel(.base, 8, 8)).allSatisfy { abs($0 - $1) <= 6 }, "base shows where fx is clear")
        #expect(zip(pixel(.composite, 160, 120), pixel(.base, 160, 120)).contains { abs($0 - $1) > 20 }, "fx covers base at the centre")
    }

    @Test("--key alpha on an fx without alpha: exit 2, one line naming fx, no output; --key is in the job file and the command")
    func refusedWithoutAlpha() throws {
        let dir = try Oracle.scratch()
        let out = dir + "/out.mov"
        let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", out, "--key", "alpha", "--progress", "none"])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("fx.mov") && r.stderr.contains("no alpha channel"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let jobs = dir + "/jobs.json"
        try Data(#"{"jobs": [{"kind": "blend", "fx": "\#(Oracle.fixture("fx.mov"))", "base": "\#(Oracle.fixture("base.mov"))", "output": "o.mov", "key": "alpha"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: jobs))
        let b = try Oracle.mixwrite(["batch", jobs, "-q"])
        #expect(b.status == 2 && b.stderr.contains("no alpha channel"), "\(b.stderr)")
    }
}
