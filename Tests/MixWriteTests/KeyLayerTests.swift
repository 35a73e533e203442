import Foundation
import Testing
import TestSupport

/// `mixwrite key`: fx with the key's matte as its alpha, read back by the ffmpeg CLI: the streams (ProRes 4444,
/// VP9 with WebM's alpha_mode), the alpha plane against GPUImage's per-pixel alpha on the edges fixture, the layer
/// laid back over base by the CLI's `overlay` against the blend itself, fx's sound.
@Suite("key layer: fx with the key's matte as alpha")
struct KeyLayerTests {
    @Test("ProRes 4444 in .mov and VP9 with alpha in .webm: over base by the CLI's overlay, within 40 dB of the blend (--crf 0); fx's two tones in the sound",
          arguments: ["mov", "webm"])
    func layer(ext: String) throws {
        let dir = try Oracle.scratch("layer-\(ext)")
        let (fx, base) = (Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"))
        let layer = dir + "/layer." + ext, blend = dir + "/blend.mov", over = dir + "/over.mov"
        let r = try Oracle.mixwrite(["key", fx, "-o", layer, "--json", "-q", "--progress", "none"])
        try #require(r.status == 0, "\(r.stderr)")
        let probe = try Oracle.probe(layer)
        let v = try #require(probe.video.first)
        if ext == "mov" {
            // Tagged ap4h, so FFmpeg's decoder reads it as 4444 does: 12 bits, with alpha.
            #expect(v.codec == "prores" && v.raw["pix_fmt"] == "yuva444p12le" && v.raw["codec_tag_string"] == "ap4h", "\(v.raw)")
        } else {
            let tag = try Oracle.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream_tags=alpha_mode",
                                                         "-of", "default=nw=1:nk=1", layer]).stdoutText
            #expect(v.codec == "vp9" && tag.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "\(v.raw), alpha_mode \(tag)")
        }
        #expect(probe.audio.first?.codec == (ext == "mov" ? "aac" : "opus"))
        let left = Oracle.channel(try Oracle.decodeAudio(layer), 0, of: 2)
        let span = Array(left[Int(0.2 * 48000) ..< Int(1.8 * 48000)])
        let tones = [440.0, 1000].map { Oracle.toneLevel(span, frequency: $0) }, other = Oracle.toneLevel(span, frequency: 660)
        #expect(tones.allSatisfy { $0 > -15 } && other < -50, "fx's tones \(tones) dB, base's 660 Hz \(other) dB")

        try #require(try Oracle.mixwrite([fx, base, "--crf", "0", "-o", blend, "-q", "--progress", "none"]).status == 0)
        // libvpx decodes VP9's alpha (FFmpeg's own decoder drops it); a WebM's video starts after Opus's pre-skip.
        let decoder = ext == "webm" ? ["-c:v", "libvpx-vp9"] : []
        let c = try Oracle.ffmpeg(["-y", "-i", base] + decoder + ["-i", layer, "-filter_complex",
                                   "[1:v]setpts=PTS-STARTPTS[l];[0:v][l]overlay=format=yuv420", "-c:v", "libx264", "-qp", "0", over])
        try #require(c.status == 0, "\(c.stderr)")
        let psnr = try AlphaTests.psnr(over, blend)
        print("key layer .\(ext) over base by overlay against the blend: \(psnr) dB")
        #expect(psnr >= 40)
    }

    @Test("the layer's alpha is the key's matte: mean difference from GPUImage's per-pixel alpha on the edges fixture's edge band ≤ 0.02")
    func matte() throws {
        let dir = try Oracle.scratch()
        let fx = Oracle.fixture("edges.mov"), layer = dir + "/layer.mov", alpha = dir + "/alpha.gray"
        try #require(try Oracle.mixwrite(["key", fx, "-o", layer, "-q", "--progress", "none"]).status == 0)
        let picture = try GPUImageReference.decode(fx, frame: 10)
        let e = try Oracle.ffmpeg(["-y", "-i", layer, "-vf", "select=eq(n\\,10),alphaextract", "-frames:v", "1", "-f", "rawvideo",
                                   "-pix_fmt", "gray", alpha])
        try #require(e.status == 0, "\(e.stderr)")
        let opacity = try Data(contentsOf: URL(fileURLWithPath: alpha)).map { Double($0) / 255 }
        try #require(opacity.count == picture.width * picture.height)
        // GPUImage's alpha is base's share: the layer's opacity is the rest.
        let reference = GPUImageReference.blend(fx: picture, base: picture, .bt601).alpha.map { 1 - $0 }
        let band = GPUImageReference.edgeBand(reference.map { 1 - $0 }, width: picture.width, height: picture.height)
        let error = band.reduce(0.0) { $0 + abs(opacity[$1] - reference[$1]) } / Double(band.count)
        let kept = (0..<opacity.count).filter { reference[$0] == 1 }.allSatisfy { opacity[$0] == 1 }
        print("key layer's alpha: mean difference \(error) from GPUImage's on \(band.count) edge-band pixels")
        #expect(band.count > 3000 && error <= 0.02)
        #expect(kept, "opaque wherever GPUImage keeps fx whole")
    }

    @Test("what would drop the alpha is refused before any work: .mp4, HEVC, ProRes below 4444 (exit 1, naming the alpha)")
    func refused() throws {
        let dir = try Oracle.scratch()
        for (options, name, message) in [([String](), "a.mp4", ".mp4 drops the layer's alpha"),
                                         (["--codec", "hevc"], "b.mov", "--codec hevc: drops the layer's alpha; one of prores, vp9"),
                                         (["--codec", "h264"], "c.mkv", "--codec h264: drops the layer's alpha; one of prores, vp9"),
                                         (["--prores-profile", "hq"], "d.mov", "ProRes keeps it in 4444")] {
            let out = dir + "/" + name
            let r = try Oracle.mixwrite(["key", Oracle.fixture("fx.mov"), "-o", out, "--progress", "none"] + options)
            #expect(r.status == 1 && r.stderr.split(separator: "\n").count == 1 && r.stderr.contains(message), "\(options): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }
}
