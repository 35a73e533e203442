import Foundation
import Testing
import TestSupport

/// `concat --transition`: the clips overlap by the transition, their pictures crossed by xfade's arithmetic and every
/// audio track cross-faded, read back by the ffmpeg CLI against its own `xfade` + `acrossfade` on the same clips.
@Suite("transitions: concat's clips crossed, picture and every track, against the ffmpeg CLI's xfade and acrossfade")
struct TransitionTests {
    static let base = Oracle.fixture("base-flac.mkv"), fx = Oracle.fixture("fx-flac.mkv"), bars = Oracle.fixture("noaudio.mov")
    /// The kinds the CLI draws as mixwrite does in every frame (luma). slideleft and slideup differ in each transition's
    /// first shared frame only (progress 1: all the outgoing picture by xfade's formula), where the CLI's picture has a
    /// row its formula does not give, of what its buffer held (zeros on 5.1, other values on 9.0): those frames are
    /// left out of their comparison.
    static let exact = ["fade", "fadeblack", "fadewhite", "wipeleft", "wiperight", "wipeup", "wipedown", "slideright", "slidedown",
                        "circleopen"]

    static func mixwrite(_ arguments: [String]) throws -> Oracle.Result {
        try Oracle.mixwrite(arguments + ["--progress", "none"], timeout: 300)
    }

    /// Every picture's luma plane, each decoded frame once.
    static func luma(_ path: String) throws -> [[UInt8]] {
        let r = try Oracle.ffmpeg(["-v", "error", "-i", path, "-map", "0:v:0", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        guard r.status == 0 else { throw OracleError("decode \(path): \(r.stderr)") }
        let size = 320 * 240, bytes = [UInt8](r.stdout)
        return stride(from: 0, to: bytes.count - size + 1, by: size).map { Array(bytes[$0..<$0 + size]) }
    }

    /// Luma PSNR of `a` against `b` over `frames` but those `skipped` (99: the same).
    static func psnr(_ a: [[UInt8]], _ b: [[UInt8]], _ frames: Range<Int>, skipped: Set<Int> = []) -> Double {
        var se = 0.0, n = 0.0
        for f in frames where !skipped.contains(f) {
            for (x, y) in zip(a[f], b[f]) { se += Double(Int(x) - Int(y)) * Double(Int(x) - Int(y)) }
            n += Double(a[f].count)
        }
        return se == 0 ? 99 : 10 * log10(255 * 255 * n / se)
    }

    /// The level of `a − b` below `b` over samples `range` (stereo frames), in dB.
    static func difference(_ a: [Float], _ b: [Float], _ range: Range<Int>) -> Double {
        let d = range.flatMap { f in (0..<2).map { a[2 * f + $0] - b[2 * f + $0] } }
        let r = range.flatMap { f in (0..<2).map { b[2 * f + $0] } }
        return Oracle.rms(d[...]) - Oracle.rms(r[...])
    }

    /// The CLI's concat of the three clips: `xfade` (KIND over 0.4 s at 1.6 s, over 0.6 s at 3 s) on 4:4:4 pictures,
    /// `acrossfade` (qsin) of base's track, fx's two summed, and silence for the bars (which have no sound). The bars are
    /// copied into Matroska first, so that the three inputs share a time base without a filter between them and xfade
    /// (settb drops the frame rate 7.1's xfade wants; fps drops a last frame 5.1's xfade then misses).
    static func reference(kind: String, into out: String) throws {
        let bars = (out as NSString).deletingLastPathComponent + "/bars.mkv"
        let copy = try Oracle.ffmpeg(["-y", "-v", "error", "-i", Self.bars, "-c", "copy", bars])
        try #require(copy.status == 0, "\(copy.stderr)")
        let graph = "[0:v]format=yuv444p[v0];[1:v]format=yuv444p[v1];[2:v]format=yuv444p[v2];"
            + "[v0][v1]xfade=transition=\(kind):duration=0.4:offset=1.6[x];"
            + "[x][v2]xfade=transition=\(kind):duration=0.6:offset=3,format=yuv420p[v];"
            + "[0:a]aformat=sample_fmts=fltp:sample_rates=48000:channel_layouts=stereo[a0];"
            + "[1:a:0]pan=stereo|c0=c0|c1=c0,aresample=48000[f0];[1:a:1]aformat=sample_fmts=fltp:channel_layouts=stereo[f1];"
            + "[f0][f1]amix=inputs=2:normalize=0[a1];aevalsrc=0|0:c=stereo:s=48000:d=2[a2];"
            + "[a0][a1]acrossfade=d=0.4:c1=qsin:c2=qsin[ax];[ax][a2]acrossfade=d=0.6:c1=qsin:c2=qsin[a]"
        let r = try Oracle.ffmpeg(["-y", "-v", "error", "-i", base, "-i", fx, "-i", bars, "-filter_complex", graph,
                                   "-map", "[v]", "-map", "[a]", "-c:v", "ffv1", "-c:a", "pcm_f32le", out])
        try #require(r.status == 0, "\(r.stderr)")
    }

    @Test("each kind between three clips (the last without sound): the CLI's pictures (luma: the same bits, but for slideleft's and slideup's first shared frames), acrossfade's sound within −40 dB, sound exactly as long as the picture",
          arguments: ["fade", "fadeblack", "fadewhite", "wipeleft", "wiperight", "wipeup", "wipedown", "slideleft", "slideright",
                      "slideup", "slidedown", "circleopen"])
    func againstTheCLI(kind: String) throws {
        let dir = try Oracle.scratch("transition-\(kind)")
        let out = dir + "/out.mkv", reference = dir + "/reference.mkv"
        let r = try Self.mixwrite(["concat", Self.base, Self.fx, Self.bars, "-o", out, "--transition", "\(kind):0.4",
                                   "--transition-at", "2=\(kind):0.6", "--crf", "0", "--audio-codec", "flac", "--json"])
        try #require(r.status == 0, "\(r.stderr)")
        try Self.reference(kind: kind, into: reference)

        let (mine, theirs) = (try Self.luma(out), try Self.luma(reference))
        // 2 + 2 + 2 s less the overlaps: 125 frames of 25 fps.
        #expect(mine.count == 125 && theirs.count == 125, "frames: \(mine.count), the CLI's \(theirs.count)")
        guard mine.count == theirs.count else { return }
        // The transitions' first shared frames: 40 (1.6 s) and 75 (3 s).
        let skipped: Set<Int> = Self.exact.contains(kind) ? [] : [40, 75]
        let first = Self.psnr(mine, theirs, 40..<50, skipped: skipped), second = Self.psnr(mine, theirs, 75..<90, skipped: skipped)
        let whole = Self.psnr(mine, theirs, 0..<125, skipped: skipped)
        print("\(kind) against xfade: luma PSNR \(first) dB and \(second) dB through the transitions, \(whole) dB over the movie"
              + (skipped.isEmpty ? "" : " (their first shared frames left out: \(Self.psnr(mine, theirs, 40..<41)) and \(Self.psnr(mine, theirs, 75..<76)) dB)"))
        #expect(first >= 40 && second >= 40 && whole >= 40, "\(kind): \(first), \(second), \(whole) dB")
        let differing = mine.indices.filter { mine[$0] != theirs[$0] && !skipped.contains($0) }
        #expect(differing.isEmpty, "\(kind): frames \(differing) differ from the CLI's")

        let (a, b) = (try Oracle.decodeAudio(out, channels: 2), try Oracle.decodeAudio(reference, channels: 2))
        #expect(a.count == 2 * 240_000, "the sound is as long as the picture (5 s): \(a.count / 2) samples")
        #expect(b.count == a.count, "the CLI's sound: \(b.count / 2) samples")
        guard a.count == b.count, a.count == 480_000 else { return }
        let levels = [Self.difference(a, b, 0..<240_000), Self.difference(a, b, 76_800..<96_000), Self.difference(a, b, 144_000..<172_800)]
        print("\(kind) against acrossfade: the sound's difference \(levels) dB (whole, first, second transition)")
        #expect(levels.allSatisfy { $0 <= -40 }, "\(levels)")
    }

    @Test("the timeline, chapters and events: a clip starts where its transition begins, its chapter where it is fully in, an event moves with its clip; --transition-curve tri gives equal gain (−6 dB each at the middle), qsin equal power (−3 dB)")
    func timelineAndCurves() throws {
        let dir = try Oracle.scratch()
        let events = dir + "/events.json", out = dir + "/out.mp4", tri = dir + "/tri.mkv", qsin = dir + "/qsin.mkv"
        try Data(#"[{"clip": 1, "time": 0.5, "name": "B"}]"#.utf8).write(to: URL(fileURLWithPath: events))
        let r = try Self.mixwrite(["concat", Self.base, Self.fx, "-o", out, "--transition", "fade:0.8", "--events", events, "--json"])
        try #require(r.status == 0, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        let timeline = try #require(report["timeline"] as? [String: Any])
        let clips = try #require(timeline["clips"] as? [[String: Any]])
        #expect(clips.map { $0["start"] as? Double } == [0, 1.2] && clips.map { $0["transition"] as? String } == [nil, "fade:0.8"])
        #expect((timeline["events"] as? [[String: Any]])?.first?["time"] as? Double == 1.7)
        let p = try Oracle.probe(out)
        #expect(p.chapters.map(\.start) == [0, 2] && abs((p.chapters.last?.end ?? 0) - 3.2) < 0.001, "\(p.chapters)")
        #expect(abs((p.video.first?.duration ?? 0) - 3.2) < 0.001)

        // base (660 Hz) out, fx's tracks (440, 1000 Hz) in; at the transition's middle each gain is the curve's at 1/2.
        for (curve, file, expected) in [("tri", tri, -6.02), ("qsin", qsin, -3.01)] {
            let c = try Self.mixwrite(["concat", Self.base, Self.fx, "-o", file, "--transition", "fade:0.8", "--transition-curve", curve,
                                       "--audio-codec", "flac"])
            try #require(c.status == 0, "\(c.stderr)")
            let sound = Oracle.channel(try Oracle.decodeAudio(file, channels: 2), 0, of: 2)
            let middle = Array(sound[(76_800 - 2400)..<(76_800 + 2400)])   // 1.6 s ± 50 ms
            let outgoing = Oracle.toneLevel(middle, frequency: 660), incoming = Oracle.toneLevel(middle, frequency: 1000)
            // Each tone is at −12 dBFS in its clip.
            print("\(curve) at the middle: outgoing \(outgoing + 12) dB, incoming \(incoming + 12) dB")
            #expect(abs(outgoing + 12 - expected) < 0.5 && abs(incoming + 12 - expected) < 0.5, "\(curve): \(outgoing), \(incoming)")
        }
    }

    @Test("a transition straddling a part boundary, with stems: parts joined give one render's frames, chapters and every track's packets")
    func acrossParts() throws {
        let dir = try Oracle.scratch()
        let one = dir + "/one.mp4", joined = dir + "/joined.mp4"
        // 2 + 2 + 2 s less 0.8 + 0.8: 4.4 s, 110 frames, the transitions at frames 30–49 and 60–79; 3 parts meet at
        // frames 37 and 74, inside both.
        let command = ["concat", PartsTests.fx, PartsTests.base, PartsTests.fx, "--transition", "wipeleft:0.8", "--stems", "--crf", "0"]
        let r = try PartsTests.mixwrite(command + ["-o", one])
        try #require(r.status == 0, "\(r.stderr)")
        try PartsTests.renderParts(command, out: joined, n: 3)
        let (a, b) = (try Oracle.probe(one), try Oracle.probe(joined))
        #expect(a.video.first?.frames == 110 && b.video.first?.frames == 110)
        #expect(b.chapters.map(\.start) == a.chapters.map(\.start) && a.chapters.count == 3)
        // Lossless (--crf 0): each part's frames are one render's to the bit, those drawn across the boundary too.
        let (pa, pb) = (try LayerTests.pictures(one), try LayerTests.pictures(joined))
        #expect(pa.count == 110 && pb == pa, "frames \(pa.indices.filter { $0 < pb.count && pa[$0] != pb[$0] }) differ")
        #expect(a.audio.count == 6 && b.audio.count == 6, "the mix and five stems")
        for track in 0..<6 { #expect(try PartsTests.audioPackets(joined, track: track) == PartsTests.audioPackets(one, track: track), "track \(track)") }
    }

    @Test("a rotated clip of another size and rate and an HLG clip, fitted into 320×240 and tone-mapped across transitions, with --loudness: the frames and length the timeline says, the conversion reported, the loudness reached")
    func withEverythingElse() throws {
        let dir = try Oracle.scratch()
        let rotated = dir + "/rotated.mp4", out = dir + "/out.mp4"
        let m = try Oracle.ffmpeg(["-y", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=240x160:r=30:d=1.5", "-f", "lavfi",
                                   "-i", "sine=f=523:r=44100:d=1.5", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", rotated])
        try #require(m.status == 0, "\(m.stderr)")
        try Oracle.tagQuarterTurn(rotated, height: 160)
        let hlg = try ColorTests.hdrClip("arib-std-b67", in: dir)
        let r = try Self.mixwrite(["concat", PartsTests.base, rotated, hlg, "-o", out, "--transition", "circleopen:0.5", "--loudness", "-20",
                                   "--fps", "25", "--json"])
        try #require(r.status == 0, "\(r.stderr)")
        let video = (try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])?["video"] as? [String: Any]
        #expect(video?["conversions"] as? [String] == ["\(hlg): HDR (HLG, bt2020) tone-mapped to SDR BT.709"], "\(video ?? [:])")
        let p = try Oracle.probe(out)
        // At --fps 25 (the highest clip's 30 otherwise): 2 s (50 frames) + 1.5 s (37.5 frames: 38) + 1 s (25) − 2 × 0.5 s (12.5 frames: 13): 87 frames, 3.48 s.
        #expect(p.video.first?.frames == 87 && p.video.first?.width == 320 && p.video.first?.height == 240)
        #expect(abs(try Oracle.decodedDuration(out, stream: "a:0") - 3.48) < 0.03)
        let loudness = try Oracle.loudness(out)
        #expect(abs(loudness.integrated + 20) < 1, "integrated \(loudness.integrated) LUFS")
    }

    @Test("concat --hdr keep: an HLG clip, an SDR BT.709 clip and a PQ clip (fading in) into HEVC Main 10 HLG: within 38 dB of the CLI's zscale chain (SDR at 203 cd/m², PQ to HLG at a 1000 cd/m² peak) and 10-bit xfade; an HLG clip alone kept as it is; no HDR clip, or another codec, refused")
    func keepHDR() throws {
        let dir = try Oracle.scratch()
        let hlg = try ColorTests.hdrClip("arib-std-b67", in: dir), pq = try ColorTests.hdrClip("smpte2084", in: dir)
        let sdr = dir + "/sdr.mov", out = dir + "/out.mov", reference = dir + "/reference.mov", alone = dir + "/alone.mov"
        let m = try Oracle.ffmpeg(["-y", "-v", "error", "-f", "lavfi", "-i", "testsrc=s=320x240:r=25:d=2", "-c:v", "libx264", "-qp", "0",
                                   "-pix_fmt", "yuv420p", "-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709", sdr])
        try #require(m.status == 0, "\(m.stderr)")
        let r = try Self.mixwrite(["concat", hlg, sdr, pq, "-o", out, "--hdr", "keep", "--transition-at", "2=fade:0.4", "--crf", "0", "--json"])
        try #require(r.status == 0, "\(r.stderr)")
        let video = (try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])?["video"] as? [String: Any]
        #expect(video?["conversions"] as? [String] == ["\(sdr): SDR placed in HDR (HLG, bt2020) at 203 cd/m²",
                                                       "\(pq): HDR (PQ) converted to HLG by zscale (1000 cd/m² peak)"], "\(video ?? [:])")
        let v = try #require(try Oracle.probe(out).video.first)
        #expect(v.codec == "hevc" && v.raw["pix_fmt"] == "yuv420p10le" && v.raw["profile"] == "Main 10" && v.frames == 90, "\(v.raw)")
        #expect([v.raw["color_space"], v.raw["color_transfer"], v.raw["color_primaries"]] == ["bt2020nc", "arib-std-b67", "bt2020"], "\(v.raw)")

        // The CLI: the SDR clip placed by zscale, the PQ clip converted and faded in over it (the two are QuickTime files
        // of 25 fps made alike: one time base, no filter needed before xfade); against the movie from 1 s, after the HLG
        // clip (the first 25 frames, against which the movie's own are held below).
        let graph = "[0:v]zscale=tin=709:min=709:pin=709:rin=tv:t=arib-std-b67:p=2020:m=2020_ncl:r=tv:npl=203,format=yuv444p10le[s];"
            + "[1:v]zscale=tin=smpte2084:min=2020_ncl:pin=2020:rin=tv:t=arib-std-b67:m=2020_ncl:p=2020:r=tv:npl=1000,format=yuv444p10le[p];"
            + "[s][p]xfade=transition=fade:duration=0.4:offset=1.6,format=yuv420p10le[v]"
        let c = try Oracle.ffmpeg(["-y", "-v", "error", "-i", sdr, "-i", pq, "-filter_complex", graph, "-map", "[v]",
                                   "-c:v", "libx265", "-x265-params", "lossless=1:log-level=error", reference])
        try #require(c.status == 0, "\(c.stderr)")
        let (head, tail) = (dir + "/head.mkv", dir + "/tail.mkv")
        for (file, trim) in [(head, "trim=end_frame=25"), (tail, "trim=start_frame=25,setpts=PTS-STARTPTS")] {
            let t = try Oracle.ffmpeg(["-y", "-v", "error", "-i", out, "-vf", trim, "-c:v", "ffv1", file])
            try #require(t.status == 0, "\(t.stderr)")
        }
        let (kept, placed) = (try AlphaTests.psnr(head, hlg), try AlphaTests.psnr(tail, reference))
        print("concat --hdr keep: the HLG clip \(kept) dB from itself; the SDR and PQ clips and the fade \(placed) dB from the CLI's zscale + xfade")
        #expect(kept >= 60 && placed >= 38)

        let a = try Self.mixwrite(["concat", hlg, "-o", alone, "--hdr", "keep", "--crf", "0"])
        try #require(a.status == 0, "\(a.stderr)")
        let same = try AlphaTests.psnr(alone, hlg)
        print("concat --hdr keep of one HLG clip against the clip: PSNR \(same) dB")
        #expect(same >= 60, "kept as it is (lossless): \(same) dB")

        for (words, says) in [([sdr], "no clip is HDR"), ([hlg, "--codec", "h264"], "--codec h264 cannot carry")] {
            let bad = try Self.mixwrite(["concat"] + words + ["-o", dir + "/bad.mov", "--hdr", "keep"])
            #expect(bad.status == 1 && bad.stderr.contains(says), "\(words): \(bad.status) \(bad.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/bad.mov"))
        }
    }

    @Test("bad transitions: exit 1 naming the boundary and the value, nothing written",
          arguments: [
            (["--transition", "spin"], ["'spin' is not a transition"]),
            (["--transition", "fade:0"], ["must be more than 0"]),
            (["--transition", "fade:-1"], ["must be more than 0"]),
            (["--transition", "fade:x"], ["'x' is not a length"]),
            (["--transition-at", "1=fade:3"], ["between clips 1 and 2", "longer than clip 1", "fade:3"]),
            (["--transition-at", "2=wipeleft:2.5"], ["between clips 2 and 3", "longer than clip 2"]),
            (["--transition-at", "3=fade"], ["no boundary 3", "boundaries 1 to 2"]),
            (["--transition-at", "2=zoom"], ["between clips 2 and 3", "'zoom' is not a transition"]),
            (["--transition", "fade:1.5"], ["between clips 2 and 3", "overlaps the transition into clip 2"]),
          ])
    func badTransitions(words: [String], says: [String]) throws {
        let dir = try Oracle.scratch("bad-transition-\(words.joined().filter { $0.isLetter || $0.isNumber })")
        let out = dir + "/out.mp4"
        let r = try Self.mixwrite(["concat", PartsTests.base, PartsTests.fx, PartsTests.base, "-o", out] + words)
        #expect(r.status == 1, "\(words): exit \(r.status) \(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1 && says.allSatisfy { r.stderr.contains($0) }, "\(words): \(r.stderr)")
        #expect(try Oracle.listing(dir).isEmpty, "\(words): nothing written")
    }

    @Test("clips of different rates (10 fps then 50 fps) come out at the highest, every frame of the fast clip kept, the fade its length; said in a warning; --fps sets another")
    func highestRate() throws {
        let dir = try Oracle.scratch()
        let slow = dir + "/slow.mp4", fast = dir + "/fast.mp4", out = dir + "/out.mp4"
        for (path, rate, tone) in [(slow, 10, 440), (fast, 50, 660)] {
            let m = try Oracle.ffmpeg(["-y", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=\(rate):d=1.5", "-f", "lavfi",
                                       "-i", "sine=f=\(tone):r=48000:d=1.5", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", path])
            try #require(m.status == 0, "\(m.stderr)")
        }
        let r = try Self.mixwrite(["concat", slow, fast, "-o", out, "--transition", "fade:0.5"])
        try #require(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("slow.mp4 10, fast.mp4 50 fps): the output is 50 fps"), "\(r.stderr)")
        let v = try #require(try Oracle.probe(out).video.first)
        // 1.5 + 1.5 − 0.5 s at 50 fps.
        #expect(v.raw["avg_frame_rate"] == "50/1" && v.frames == 125, "\(v.raw["avg_frame_rate"] ?? "") \(v.frames ?? 0) frames")
        // After the fade (from 1.5 s) every picture is the fast clip's own: each differs from the one before it.
        let pictures = try Self.luma(out)
        let repeated = (76..<pictures.count).filter { pictures[$0] == pictures[$0 - 1] }
        #expect(pictures.count == 125 && repeated.isEmpty, "repeated pictures at \(repeated)")
        let asked = try Self.mixwrite(["concat", slow, fast, "-o", dir + "/fps.mp4", "--fps", "25"])
        #expect(asked.status == 0 && !asked.stderr.contains("differ"), "\(asked.stderr)")
        #expect(try Oracle.probe(dir + "/fps.mp4").video.first?.raw["avg_frame_rate"] == "25/1")
    }
}
