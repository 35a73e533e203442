import Foundation
import Testing
import TestSupport

/// What a retimed clip shows between its media's frames (`--interpolate`) and what sounds under a freeze
/// (`--freeze-audio`): the pictures against the CLI's `minterpolate` for the same mapping, the held sound by its pitch.
@Suite("retimed clips: frames between frames, sound under a freeze")
struct RetimeFillTests {
    /// `RetimeTests.media`'s 6 s of testsrc2, its sound a tone stepping up 100 Hz each second (300 Hz from 0 s to
    /// 800 Hz from 5 s), so a held sound's pitch says which moment it holds.
    static func steps(_ dir: String) throws -> String {
        try RetimeTests.media(dir, named: "steps.mov", sound: "0.3*sin(2*PI*(300+100*floor(t))*t)")
    }

    /// Worst luma PSNR of `ours` against `theirs` over the frames both have, and the counts.
    static func worst(_ ours: String, _ theirs: String) throws -> (psnr: Double, ours: Int, theirs: Int) {
        let (a, b) = (try RenderTests.luma(ours), try RenderTests.luma(theirs))
        return (zip(a, b).map { RenderTests.psnr($0, $1) }.min() ?? 0, a.count, b.count)
    }

    @Test("--interpolate blend and motion on a concat clip at 0.5×: the CLI's minterpolate (setpts=PTS/0.5) frame for frame (≥ 40 dB), and unlike nearest's")
    func interpolate() throws {
        let dir = try Oracle.scratch()
        let media = try RetimeTests.media(dir, seconds: 2)
        for (mode, options) in [("blend", "mi_mode=blend"), ("motion", "mi_mode=mci:mc_mode=aobmc:me_mode=bidir:vsbmc=1")] {
            let out = dir + "/\(mode).mov", cli = dir + "/\(mode)-cli.mkv"
            let r = try Oracle.mixwrite(["concat", media + ":speed=0.5", "-o", out, "-q", "--interpolate", mode])
            try #require(r.status == 0, "\(r.stderr)")
            let c = try Oracle.ffmpeg(["-v", "error", "-y", "-i", media, "-vf", "setpts=PTS/0.5,minterpolate=fps=25:\(options)",
                                       "-an", "-c:v", "ffv1", cli])
            try #require(c.status == 0, "\(c.stderr)")
            let (psnr, ours, theirs) = try Self.worst(out, cli)
            print("--interpolate \(mode) at 0.5× against the CLI's minterpolate: worst luma PSNR \(psnr) dB (\(ours) and \(theirs) frames)")
            // minterpolate makes no frame after its last input's: the CLI's movie stops up to 3 frames short; ours holds.
            #expect(ours == 100 && theirs >= 96 && theirs <= 100, "4 s at 25 fps: \(ours), \(theirs)")
            #expect(psnr >= 40)
        }
        let nearest = dir + "/nearest.mov"
        let r = try Oracle.mixwrite(["concat", media + ":speed=0.5", "-o", nearest, "-q"])
        try #require(r.status == 0, "\(r.stderr)")
        let (psnr, _, _) = try Self.worst(nearest, dir + "/blend-cli.mkv")
        print("nearest frames at 0.5× against the CLI's blend: worst \(psnr) dB")
        #expect(psnr < 35, "a blended frame differs from either frame it mixes")
    }

    @Test("--freeze-audio hold: a concat clip's held end (forwards: the 800 Hz of its last second; reversed: the 300 Hz of its first) sustained; silent without")
    func holdConcat() throws {
        let dir = try Oracle.scratch()
        let media = try Self.steps(dir)
        let clips = [media + ":freeze=1", media + ":reverse:freeze=1"]
        let held = dir + "/held.mov", silent = dir + "/silent.mov"
        let r = try Oracle.mixwrite(["concat"] + clips + ["-o", held, "-q", "--freeze-audio", "hold"])
        let s = try Oracle.mixwrite(["concat"] + clips + ["-o", silent, "-q"])
        try #require(r.status == 0 && s.status == 0, "\(r.stderr)\(s.stderr)")
        #expect(abs(try Oracle.decodedDuration(held, stream: "a:0") - 14) < 0.01)
        let (a, b) = (Oracle.channel(try Oracle.decodeAudio(held), 0, of: 2), Oracle.channel(try Oracle.decodeAudio(silent), 0, of: 2))
        func span(_ x: [Float], _ from: Double, _ to: Double) -> [Float] { Array(x[Int(from * 48000)..<Int(to * 48000)]) }
        for (from, hz, other) in [(6.1, 800.0, 700.0), (13.1, 300.0, 400.0)] {
            let under = span(a, from, from + 0.8)
            let (level, next) = (Oracle.toneLevel(under, frequency: hz), Oracle.toneLevel(under, frequency: other))
            print("held from \(from) s: \(hz) Hz at \(level) dBFS, \(other) Hz at \(next) dBFS")
            #expect(level > -20 && level - next > 20, "the held moment's pitch")
            #expect(Oracle.rms(span(b, from, from + 0.8)[...]) < -60, "silent without --freeze-audio hold")
        }
        // The moving parts are the same in both.
        #expect(abs(Oracle.rms(span(a, 1, 5)[...]) - Oracle.rms(span(b, 1, 5)[...])) < 0.1)
    }

    @Test("--freeze-audio hold on a timeline's FreezeFrame: the sound at its frame (media 2 s: 500 Hz) held for the freeze",
          .enabled(if: Oracle.hasOTIO, "python3's opentimelineio is not installed (scripts/install-deps.sh test installs it)"))
    func holdTimeline() throws {
        let dir = try Oracle.scratch()
        let media = try Self.steps(dir)
        let (otio, _) = try RenderTests.timeline(dir, "hold", """
            v = track("V1", V); tl.tracks.append(v)
            c = clip("hold", "\(media)", 50, 25); c.effects.append(otio.schema.FreezeFrame()); v.append(c)
            v.append(clip("after", "\(media)", 75, 25))
            """)
        let out = dir + "/hold.mov"
        let r = try Oracle.mixwrite(["render", otio, "-o", out, "-q", "--freeze-audio", "hold"])
        try #require(r.status == 0, "\(r.stderr)")
        let sound = Oracle.channel(try Oracle.decodeAudio(out), 0, of: 2)
        let under = Array(sound[Int(0.1 * 48000)..<Int(0.9 * 48000)])
        let (level, next) = (Oracle.toneLevel(under, frequency: 500), Oracle.toneLevel(under, frequency: 600))
        print("a FreezeFrame's held sound: 500 Hz at \(level) dBFS, 600 Hz at \(next) dBFS")
        #expect(level > -20 && level - next > 20)
        let after = Array(sound[Int(1.1 * 48000)..<Int(1.9 * 48000)])
        #expect(Oracle.toneLevel(after, frequency: 600) > -20, "the next clip plays media 3–4 s: 600 Hz")
    }
}
