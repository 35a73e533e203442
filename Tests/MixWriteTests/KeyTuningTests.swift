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
        let hex = (report?["key"] as? [String: Any])?["key-color"] as? String ?? ""
        let v = UInt32(hex, radix: 16) ?? 0
        let (red, green, blue) = (Int(v >> 16 & 0xFF), Int(v >> 8 & 0xFF), Int(v & 0xFF))
        #expect(green > 230 && red < 25 && blue < 25, "picked \(hex)")

        let none = try Oracle.mixwrite([Oracle.fixture("base.mov"), Oracle.fixture("fx.mov"), "--key-color", "auto",
                                        "-o", dir + "/o.mov"])
        #expect(none.status == 2)
        #expect(none.stderr.contains("base.mov: no green or blue screen"), "\(none.stderr)")
    }

    /// A 320×240 green screen of `screen` (a real one's less saturated green) with a white and a pale yellow box, and
    /// a red one: the subject GPUImage's chroma-only distance would take with the screen's colour as the key.
    static func screenWithSubject(_ screen: String, in dir: String, name: String) throws -> String {
        let out = dir + "/" + name
        let r = try Oracle.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "color=c=0x\(screen):s=320x240:r=25:d=0.6",
                                   "-vf", "drawbox=x=40:y=60:w=80:h=60:c=0xF4F4F4:t=fill,drawbox=x=140:y=60:w=80:h=60:c=0xF0E070:t=fill,"
                                       + "drawbox=x=240:y=60:w=60:h=60:c=0xC02020:t=fill",
                                   "-c:v", "libx264", "-crf", "12", "-pix_fmt", "yuv420p", out])
        try #require(r.status == 0, "\(r.stderr)")
        return out
    }

    @Test("--key-color auto never keys away what 00FF00 keeps: a less saturated screen's whites and yellows stay, said in a warning naming fx")
    func autoKeepsTheSubject() throws {
        let dir = try Oracle.scratch()
        let fx = try Self.screenWithSubject("1EDB00", in: dir, name: "gs.mp4")
        let base = dir + "/base.mp4"
        try #require(try Oracle.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "color=c=0x202060:s=320x240:r=25:d=0.6", base]).status == 0)
        func picture(_ key: String) throws -> (pixels: [UInt8], stderr: String) {
            let png = dir + "/\(key).png"
            let r = try Oracle.mixwrite([fx, base, "--key-color", key, "--frame", "0.2", "-o", png])
            try #require(r.status == 0, "\(key): \(r.stderr)")
            return (try Oracle.decodeRGB(png).frames[0], r.stderr)
        }
        // Pixels of a box (inset by 4 from its edges) whose colour is fx's, within 12 levels a channel.
        func kept(_ p: [UInt8], x: Int, y: Int, w: Int, h: Int, _ c: (Int, Int, Int)) -> Int {
            var n = 0
            for yy in y + 4 ..< y + h - 4 {
                for xx in x + 4 ..< x + w - 4 {
                    let i = 3 * (yy * 320 + xx)
                    if abs(Int(p[i]) - c.0) <= 12 && abs(Int(p[i + 1]) - c.1) <= 12 && abs(Int(p[i + 2]) - c.2) <= 12 { n += 1 }
                }
            }
            return n
        }
        let green = try picture("00FF00").pixels, (auto, said) = try picture("auto")
        for (what, box, colour) in [("white", (40, 60), (0xF4, 0xF4, 0xF4)), ("yellow", (140, 60), (0xF0, 0xE0, 0x70))] {
            let g = kept(green, x: box.0, y: box.1, w: 80, h: 60, colour), a = kept(auto, x: box.0, y: box.1, w: 80, h: 60, colour)
            #expect(g > 3000 && a >= g * 99 / 100, "\(what): \(a) pixels kept with auto, \(g) with 00FF00")
        }
        // The screen is still keyed: base's colour where only the screen was.
        #expect(kept(auto, x: 20, y: 150, w: 280, h: 80, (0x20, 0x20, 0x60)) > 270 * 70 * 95 / 100, "the screen shows base")
        #expect(said.contains("gs.mp4: its screen is 1EDB00") && said.contains("--keyer fine"), "\(said)")

        // With no neutral or yellow subject the screen's own colour is the key, as before.
        let red = dir + "/red.mp4"
        try #require(try Oracle.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "color=c=0x1EDB00:s=320x240:r=25:d=0.6", "-vf",
                                        "drawbox=x=100:y=60:w=120:h=120:c=0xC02020:t=fill", "-c:v", "libx264", "-crf", "12", red]).status == 0)
        let r = try Oracle.mixwrite([red, base, "--key-color", "auto", "--frame", "0.2", "-o", dir + "/red.png", "--json"])
        let report = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any]
        let hex = (report?["key"] as? [String: Any])?["key-color"] as? String ?? ""
        let v = UInt32(hex, radix: 16) ?? 0
        #expect(abs(Int(v >> 16 & 0xFF) - 0x1E) <= 6 && abs(Int(v >> 8 & 0xFF) - 0xDB) <= 6 && !r.stderr.contains("its screen is"),
                "picked \(hex): \(r.stderr)")
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
