import Foundation
import Testing
import TestSupport

/// Tuning the key: a preview frame, the key colour read from the clip, despill.
@Suite("key tuning: --frame, --key-color auto, --despill")
struct KeyTuningTests {
    @Test("--frame T writes the blended picture at T as PNG, matching the float reference")
    func previewFrame() throws {
        let dir = try Oracle.scratch()
        let png = dir + "/f.png"
        let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "--frame", "1.0", "-o", png])
        #expect(r.status == 0, "\(r.stderr)")
        let probe = try Oracle.probe(png)
        #expect(probe.video.first?.codec == "png")
        #expect(probe.video.first?.width == 320 && probe.video.first?.height == 240)
        let picture = try Oracle.decodeRGB(png).frames
        #expect(picture.count == 1)
        // Against GPUImage's own path (GL_LINEAR chroma, RGBA8 texture, per-pixel blend) of the frames at 1.0 s.
        func reference(_ n: Int) throws -> [Double] {
            GPUImageReference.blend(fx: try GPUImageReference.decode(Oracle.fixture("fx.mov"), frame: n),
                                    base: try GPUImageReference.decode(Oracle.fixture("base.mov"), frame: 25), .bt601)
                .rgb.flatMap { [$0.0 * 255, $0.1 * 255, $0.2 * 255] }
        }
        let psnr = Oracle.psnr(picture[0], try reference(25))
        #expect(psnr >= 45, "PSNR \(psnr) dB against the frame at 1.0 s")
        // The neighbouring frame of the moving pattern is a worse match: the frame is the one at T.
        #expect(Oracle.psnr(picture[0], try reference(30)) < psnr - 3)
        #expect(try Oracle.listing(dir) == ["f.png"])
    }

    @Test("--frame refuses a movie name and a time past the end")
    func previewFrameErrors() throws {
        let dir = try Oracle.scratch()
        let mov = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "--frame", "1", "-o", dir + "/f.mov"])
        #expect(mov.status == 1)
        #expect(mov.stderr.contains("PNG"), "\(mov.stderr)")
        let late = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "--frame", "9", "-o", dir + "/f.png"])
        #expect(late.status == 1)
        #expect(late.stderr.contains("outside the output"), "\(late.stderr)")
        #expect(try Oracle.listing(dir).isEmpty)
    }

    @Test("--key-color auto picks the green of the screen and refuses a clip without one")
    func autoKeyColor() throws {
        let dir = try Oracle.scratch()
        let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "--key-color", "auto",
                                     "--frame", "0.5", "-o", dir + "/f.png", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any]
        let hex = (report?["key"] as? [String: Any])?["keyColor"] as? String ?? ""
        let v = UInt32(hex, radix: 16) ?? 0
        let (red, green, blue) = (Int(v >> 16 & 0xFF), Int(v >> 8 & 0xFF), Int(v & 0xFF))
        #expect(green > 230 && red < 25 && blue < 25, "picked \(hex)")

        let none = try Oracle.mixwrite([Oracle.fixture("base.mov"), Oracle.fixture("fx.mov"), "--key-color", "auto",
                                        "-o", dir + "/o.mov"])
        #expect(none.status == 2)
        #expect(none.stderr.contains("base.mov: no green or blue screen"), "\(none.stderr)")
    }

    @Test("--despill changes only fx's kept pixels near the key")
    func despill() throws {
        let dir = try Oracle.scratch()
        let plain = dir + "/plain.png", despilled = dir + "/despill.png"
        for (out, extra) in [(plain, [String]()), (despilled, ["--despill"])] {
            let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "--frame", "1", "-o", out] + extra)
            #expect(r.status == 0, "\(r.stderr)")
        }
        let a = try Oracle.decodeRGB(plain).frames[0], b = try Oracle.decodeRGB(despilled).frames[0]
        var changed = 0, greener = 0, reduction = 0
        for p in stride(from: 0, to: a.count, by: 3) where (0..<3).contains(where: { a[p + $0] != b[p + $0] }) {
            changed += 1
            let ga = Int(a[p + 1]) - (Int(a[p]) + Int(a[p + 2])) / 2, gb = Int(b[p + 1]) - (Int(b[p]) + Int(b[p + 2])) / 2
            reduction += ga - gb
            // Chroma is interpolated from 4:2:0 into RGB, so a neighbour's change can tint a pixel slightly.
            if gb > ga + 2 { greener += 1 }
        }
        #expect(changed > 0, "despill changed nothing")
        #expect(Double(reduction) / Double(max(changed, 1)) >= 3, "changed pixels are not less green on average")
        #expect(greener * 20 < changed, "\(greener) of \(changed) changed pixels got greener")
        #expect(changed < a.count / 3 / 2, "despill touched most of the picture: \(changed)")
    }

    @Test("the real green-screen clips of the corpus key, preview and auto-pick (MIXWRITE_CORPUS)",
          .enabled(if: Oracle.corpus != nil, "MIXWRITE_CORPUS is not set: the corpus green-screen clips are not run"))
    func corpusGreenScreens() throws {
        let corpus = try #require(Oracle.corpus)
        let dir = try Oracle.scratch()
        let clips = try Oracle.listing(corpus + "/greenscreen").filter { $0.hasSuffix(".mov") }
        #expect(!clips.isEmpty)
        for clip in clips {
            let fx = corpus + "/greenscreen/" + clip
            let r = try Oracle.mixwrite([fx, Oracle.fixture("base.mov"), "--key-color", "auto", "--despill",
                                         "--frame", "1", "-o", dir + "/\(clip).png", "--json"])
            #expect(r.status == 0, "\(clip): \(r.stderr)")
            let movie = try Oracle.mixwrite([fx, Oracle.fixture("base.mov"), "--key-color", "auto", "-o", dir + "/\(clip).mp4"])
            #expect(movie.status == 0, "\(clip): \(movie.stderr)")
            let probe = try Oracle.probe(dir + "/\(clip).mp4")
            #expect(probe.audio.count == 1 && probe.video.count == 1, "\(clip)")
        }
    }
}
