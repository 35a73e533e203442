import Foundation
import Testing
import TestSupport

/// Time changed on purpose in a timeline (OTIO's LinearTimeWarp and FreezeFrame): the pictures against the ffmpeg
/// CLI's own filters for the same mapping (`setpts`, `reverse`, `loop`), the sound's clicks where the mapping puts
/// them, the length OTIO's library gives.
@Suite("render: speed changes, reverse and freeze frames")
struct RetimeTests {
    /// `seconds` (6) of testsrc2 (its pattern moves every frame: a frame off by one is 26 dB off; a keyframe a
    /// second) with, by default, a 440 Hz tone and a 4 ms click of 3 kHz on every whole second (`sound`: another
    /// aevalsrc expression).
    static func media(_ dir: String, named name: String = "media.mov", seconds: Int = 6,
                      sound: String = "0.3*sin(2*PI*440*t)+if(lt(mod(t\\,1)\\,0.004)\\,0.9*sin(2*PI*3000*t)\\,0)") throws -> String {
        let path = dir + "/" + name
        let r = try Oracle.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=\(seconds)",
                                   "-f", "lavfi", "-i", "aevalsrc=exprs='\(sound)|\(sound)':s=48000:d=\(seconds)",
                                   "-c:v", "libx264", "-g", "25", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "192k", path])
        try #require(r.status == 0, "\(r.stderr)")
        return path
    }

    /// `out`'s frames against the CLI's for the same mapping: `media` through `graph` (a filter graph from [0:v] to
    /// [v]), encoded nearly losslessly: the worst luma PSNR, and both frame counts.
    static func againstCLI(_ out: String, media: String, dir: String, graph: String) throws -> (worst: Double, ours: Int, theirs: Int) {
        let cli = dir + "/cli-\((out as NSString).lastPathComponent)"
        let c = try Oracle.ffmpeg(["-v", "error", "-y", "-i", media, "-filter_complex", graph + ",format=yuv420p[v]", "-map", "[v]",
                                   "-c:v", "libx264", "-crf", "10", cli])
        try #require(c.status == 0, "\(c.stderr)")
        let (ours, theirs) = (try RenderTests.luma(out), try RenderTests.luma(cli))
        return (zip(ours, theirs).map { RenderTests.psnr($0, $1) }.min() ?? 0, ours.count, theirs.count)
    }

    /// One video track of `media`'s 1–3 s at 2×, 2–3 s reversed, the frame at 1 s held 12 frames and 3–3.5 s at 0.5×
    /// (`RenderTests.timeline`'s body).
    static func fourClips(_ media: String) -> String {
        """
        v = track("V1", V); tl.tracks.append(v)
        def timed(name, start, frames, effect):
            c = clip(name, "\(media)", start, frames); c.effects.append(effect); return c
        v.append(timed("fast", 25, 25, otio.schema.LinearTimeWarp(time_scalar=2.0)))
        v.append(timed("back", 50, 25, otio.schema.LinearTimeWarp(time_scalar=-1.0)))
        v.append(timed("hold", 25, 12, otio.schema.FreezeFrame()))
        v.append(timed("slow", 75, 25, otio.schema.LinearTimeWarp(time_scalar=0.5)))
        """
    }

    /// Where each 3 kHz click starts in `path`'s sound (seconds): its first sample past a third of its peak, in the band
    /// 2 to 4 kHz (the tone left out).
    static func clicks(_ path: String) throws -> [Double] {
        let mono = Oracle.channel(try Oracle.decodeAudio(path), 0, of: 2)
        // A band-pass of 2 to 4 kHz: the difference of two one-pole low-passes, run twice.
        func lowPass(_ x: [Float], _ hz: Double) -> [Float] {
            let a = Float(exp(-2 * Double.pi * hz / 48000))
            var y = [Float](repeating: 0, count: x.count), last: Float = 0
            for i in x.indices { last = (1 - a) * x[i] + a * last; y[i] = last }
            return y
        }
        var band = zip(lowPass(mono, 4000), lowPass(mono, 2000)).map { $0 - $1 }
        band = zip(lowPass(band, 4000), lowPass(band, 2000)).map { $0 - $1 }
        let peak = band.map(abs).max() ?? 0
        var found: [Double] = [], i = 0
        while i < band.count {
            if abs(band[i]) > peak / 3 { found.append(Double(i) / 48000); i += 2400 } else { i += 1 }
        }
        return found
    }

    @Test("a clip at 2×, one reversed, a freeze and one at 0.5× on a track: OTIO's length; each frame the CLI's for the same mapping (≥ 40 dB); the clicks where the mapping puts them; silence under the freeze",
          .enabled(if: Oracle.hasOTIO, "python3's opentimelineio is not installed (scripts/install-deps.sh test installs it)"))
    func mappings() throws {
        let dir = try Oracle.scratch()
        let media = try Self.media(dir)
        let (otio, seconds) = try RenderTests.timeline(dir, "retimed", Self.fourClips(media))
        #expect(abs(seconds - 3.48) < 1e-9, "OTIO: 1 + 1 + 0.48 + 1 s")
        let out = dir + "/retimed.mov"
        let r = try Oracle.mixwrite(["render", otio, "-o", out, "-q", "--json"])
        try #require(r.status == 0, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        let clips = (report["timeline"] as? [String: Any])?["clips"] as? [[String: Any]] ?? []
        #expect(clips.map { ($0["speed"] as? NSNumber)?.doubleValue ?? 1 } == [2, -1, 0, 0.5])
        #expect(clips.map { ($0["media"] as? [NSNumber])?.map(\.doubleValue) ?? [] } == [[1, 3], [2, 3], [1, 1.04], [3, 3.5]])
        let (videoEnd, soundEnd) = (try Oracle.videoEnd(out), try Oracle.decodedDuration(out, stream: "a:0"))
        #expect(abs(videoEnd - seconds) < 0.001 && abs(soundEnd - seconds) < 0.001, "\(videoEnd) s, \(soundEnd) s")

        // The CLI: media 1–3 s at twice the speed, 2–3 s reversed, the frame at 1 s held 12 frames, 3–3.5 s at half speed.
        let (worst, ours, _) = try Self.againstCLI(out, media: media, dir: dir, graph:
            "[0:v]trim=start=1:end=3,setpts=(PTS-STARTPTS)/2,fps=25[a];[0:v]trim=start=2:end=3,setpts=PTS-STARTPTS,reverse[b];"
            + "[0:v]trim=start=1:end=1.04,setpts=PTS-STARTPTS,loop=loop=11:size=1:start=0,setpts=N/25/TB[c];"
            + "[0:v]trim=start=3:end=3.5,setpts=(PTS-STARTPTS)*2,fps=25[d];[a][b][c][d]concat=n=4:v=1:a=0")
        #expect(ours == 87, "3.48 s at 25 fps")
        print("retimed frames against the CLI's setpts/reverse/loop: worst luma PSNR \(worst) dB over \(ours) frames")
        #expect(worst >= 40)

        // The clicks: media 1 s at the first cut (0 s), media 2 s at the fast clip's middle (0.5 s), media 3 s at its
        // very end (its onset a fraction of a millisecond before 3 s, as the AAC click lies); the reversed clip ends on
        // media 2 s, its click's 4 ms played backwards into its end (2 s); media 3 s at the slow clip's start.
        let found = try Self.clicks(out), media0 = try Self.clicks(media)
        let late = media0.first { $0 > 0.5 }.map { $0 - 1 } ?? 0   // the AAC click's own place against its second
        let expected = [0.0, 0.5 + late / 2, 1.0 + late / 2, 2.0 - 0.004 - late, 2.48 + late * 2]
        print("clicks: \(found.map { fourDigits($0) }) s, expected \(expected.map { fourDigits($0) }) s")
        try #require(found.count == expected.count, "\(found)")
        for (f, e) in zip(found, expected) { #expect(abs(f - e) < 0.008, "click at \(f) s, expected \(e) s") }
        let cuts = [abs(found[0] - expected[0]), abs(found[4] - expected[4])].max()!
        print("the clicks on the cuts: within \(cuts * 1000) ms")
        #expect(cuts < 0.001)
        // The freeze: silence (after the reversed clip's click, before the slow clip's).
        let mono = Oracle.channel(try Oracle.decodeAudio(out), 0, of: 2)
        #expect(Oracle.rms(mono[Int(2.05 * 48000)..<Int(2.45 * 48000)]) < 1e-4)
    }


    @Test("a retimed clip's subtitle cues move with its pictures: halved at 2×, mirrored reversed, held under a freeze, doubled at 0.5×",
          .enabled(if: Oracle.hasOTIO, "python3's opentimelineio is not installed (scripts/install-deps.sh test installs it)"))
    func cues() throws {
        let dir = try Oracle.scratch()
        let media = try CaptionTests.withSubtitles(try Self.media(dir), """
            1
            00:00:00,900 --> 00:00:01,100
            zero

            2
            00:00:01,200 --> 00:00:01,600
            one

            3
            00:00:02,200 --> 00:00:02,600
            two

            4
            00:00:03,100 --> 00:00:03,300
            three

            """, language: "eng", in: dir, name: "subbed")
        let (otio, _) = try RenderTests.timeline(dir, "retimed", Self.fourClips(media))
        let out = dir + "/retimed.mov"
        let r = try Oracle.mixwrite(["render", otio, "-o", out, "-q"])
        try #require(r.status == 0, "\(r.stderr)")
        let found = try CaptionTests.cues(out, track: 0).map { "\($0.text) \($0.start)–\($0.end)" }
        // The fast clip shows media 1–3 s in 0–1 s; the reversed one media 3 s back to 2 s in 1–2 s; the freeze media 1 s
        // in 2–2.48 s; the slow one media 3–3.5 s in 2.48–3.48 s.
        #expect(found == ["zero 0.0–0.05", "one 0.1–0.3", "two 0.6–0.8", "two 1.4–1.8", "zero 2.0–2.48", "three 2.68–3.08"], "\(found)")
    }

    @Test("a layer at 2× (--speed 2, its own 1–5 s in 2 s): the CLI's frames for trim+setpts+fps, its clicks where the speed puts them; the same layer on a timeline's upper track (a LinearTimeWarp) renders the same movie, and --otio writes it back",
          .enabled(if: Oracle.hasOTIO, "python3's opentimelineio is not installed (scripts/install-deps.sh test installs it)"))
    func layerSpeed() throws {
        let dir = try Oracle.scratch()
        let media = try Self.media(dir), base = Oracle.fixture("base.mov")
        let out = dir + "/layer.mov"
        let r = try Oracle.mixwrite([media, base, "--speed", "2", "--in", "1", "--out", "5", "--key", "none", "--mute", "base", "-o", out, "-q"])
        try #require(r.status == 0, "\(r.stderr)")
        let (worst, count, cliCount) = try Self.againstCLI(out, media: media, dir: dir, graph: "[0:v]trim=start=1:end=5,setpts=(PTS-STARTPTS)/2,fps=25")
        #expect(count == 50 && cliCount == 50)
        print("a layer at 2× against the CLI's trim+setpts+fps: worst luma PSNR \(worst) dB")
        #expect(worst >= 40)
        let found = try Self.clicks(out), late = (try Self.clicks(media).first { $0 > 0.5 } ?? 1) - 1
        print("the layer's clicks: \(found.map(fourDigits)) s")
        try #require(found.count == 5, "media 1, 2, 3, 4 and 5 s (its onset just before the span's end): \(found)")
        #expect(abs(found[0]) < 0.001, "the click on its first frame")
        // Inside a sped-up clip rubberband's window moves a click by a few milliseconds (up to 6.4 ms at 2× here).
        for (k, f) in found.enumerated().dropFirst() { #expect(abs(f - (Double(k) * 0.5 + late / 2)) < 0.008, "click \(k) at \(f) s") }

        // On a timeline: base on V1, the layer's clip on V2 with a LinearTimeWarp; laid as it is (OTIO's: opaque).
        let (otio, _) = try RenderTests.timeline(dir, "upper", """
            v1 = track("V1", V); v2 = track("V2", V); tl.tracks.extend([v1, v2])
            v1.append(clip("base", "\(base)", 0, 50))
            c = clip("fast", "\(media)", 25, 50); c.effects.append(otio.schema.LinearTimeWarp(time_scalar=2.0)); v2.append(c)
            """)
        let rendered = dir + "/upper.mov"
        let u = try Oracle.mixwrite(["render", otio, "-o", rendered, "-q", "--mute", "clip1"])
        try #require(u.status == 0, "\(u.stderr)")
        let upper = try RenderTests.luma(rendered)
        let same = zip(upper, try RenderTests.luma(out)).map { RenderTests.psnr($0, $1) }.min() ?? 0
        print("the upper track's 2× clip against the blend's 2× layer: worst luma PSNR \(same) dB")
        #expect(upper.count == 50 && same >= 40)

        // The blend written as a timeline carries the layer's speed as a LinearTimeWarp; rendered, the same frames.
        let written = dir + "/written.otio"
        let w = try Oracle.mixwrite([media, base, "--speed", "2", "--in", "1", "--out", "5", "--key", "none", "-o", dir + "/x.mov", "--otio", written])
        try #require(w.status == 0, "\(w.stderr)")
        let read = try Oracle.run("/usr/bin/env", ["python3", "-c", """
            import sys, opentimelineio as otio
            tl = otio.adapters.read_from_file(sys.argv[1])
            c = tl.tracks[1][0]
            print(c.effects[0].time_scalar, c.source_range.start_time.to_seconds(), c.duration().to_seconds())
            """, written])
        #expect(read.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "2.0 1.0 2.0", "\(read.stdoutText) \(read.stderr)")
    }

    @Test("concat clips with their own time: speed=2, reverse:freeze=0.48, speed=3:pitch=follow: the CLI's frames (setpts+fps, reverse+tpad), every click where the speed puts it, silence under the held frame; a bad spec refused")
    func concatClips() throws {
        let dir = try Oracle.scratch()
        let media = try Self.media(dir)
        let out = dir + "/concat.mov"
        let r = try Oracle.mixwrite(["concat", media + ":speed=2", media + ":reverse:freeze=0.48", media + ":speed=3:pitch=follow", "-o", out, "-q"])
        try #require(r.status == 0, "\(r.stderr)")
        let (worst, ours, theirs) = try Self.againstCLI(out, media: media, dir: dir, graph:
            "[0:v]setpts=PTS/2,fps=25[a];[0:v]reverse,tpad=stop_mode=clone:stop_duration=0.48[b];[0:v]setpts=PTS/3,fps=25[c];"
            + "[a][b][c]concat=n=3:v=1:a=0")
        #expect(ours == 287 && theirs == 287, "3 + 6.48 + 2 s at 25 fps: \(ours), \(theirs)")
        print("concat clips with their own time against the CLI's: worst luma PSNR \(worst) dB")
        #expect(worst >= 40)

        // The clicks: clip 1's six at half their times; clip 2's backwards from 3 s (each click's 4 ms reversed, so
        // its onset 4 ms before its second's end); clip 3's at a third of their times from 9.48 s, exact (a tape's).
        let found = try Self.clicks(out)
        let seconds: [Double] = [0, 1, 2, 3, 4, 5]
        let fast: [Double] = seconds.map { $0 / 2 }
        let backwards: [Double] = seconds.reversed().map { 9 - $0 - 0.004 }
        let tape: [Double] = seconds.map { 9.48 + $0 / 3 }
        let expected = fast + backwards + tape
        print("concat clicks: \(found.map(fourDigits))")
        try #require(found.count == expected.count, "\(found)")
        for (k, (f, e)) in zip(found, expected).enumerated() {
            let tolerance: Double = k < 6 ? 0.008 : 0.001
            #expect(abs(f - e) < tolerance, "click \(k) at \(f) s, expected \(e) s")
        }
        let mono = Oracle.channel(try Oracle.decodeAudio(out), 0, of: 2)
        #expect(Oracle.rms(mono[Int(9.01 * 48000)..<Int(9.47 * 48000)]) < -60, "the held frame is silent")

        for (spec, words) in [(":speed=0", "freeze=S holds"), (":speed=-2", "`reverse`"), (":freeze=-1", "freeze=-1"), (":pitch=up", "keep or follow")] {
            let bad = try Oracle.mixwrite(["concat", media + spec, "-o", dir + "/bad.mov"])
            #expect(bad.status == 1 && bad.stderr.contains(words) && bad.stderr.contains(media), "\(spec): \(bad.stderr)")
        }
    }

    @Test("concat clips at 2× and reversed with a fade, written as a timeline (--otio: LinearTimeWarps) and rendered: the concat's frames",
          .enabled(if: Oracle.hasOTIO, "python3's opentimelineio is not installed (scripts/install-deps.sh test installs it)"))
    func concatClipsTimeline() throws {
        let dir = try Oracle.scratch()
        let media = try Self.media(dir)
        let pair = [media + ":speed=2", media + ":reverse", "--transition", "fade:0.4"]
        let direct = try Oracle.mixwrite(["concat"] + pair + ["-o", dir + "/pair.mov", "-q"])
        let written = try Oracle.mixwrite(["concat"] + pair + ["-o", dir + "/pair.mov", "--otio", dir + "/pair.otio"])
        let rendered = try Oracle.mixwrite(["render", dir + "/pair.otio", "-o", dir + "/pair-render.mov", "-q"])
        try #require(direct.status == 0 && written.status == 0 && rendered.status == 0, "\(direct.stderr)\(written.stderr)\(rendered.stderr)")
        let (a, b) = (try RenderTests.luma(dir + "/pair.mov"), try RenderTests.luma(dir + "/pair-render.mov"))
        let trip = zip(a, b).map { RenderTests.psnr($0, $1) }.min() ?? 0
        print("concat speed=2 + reverse with a fade, through --otio and render: worst luma PSNR \(trip) dB")
        #expect(a.count == b.count && trip >= 40)
    }

    @Test("a concat clip's speed ramp (1× to 0.5× over 2 s and back over 2 s): the CLI's frames for setpts on the ramp's inverse and fps, its clicks where the ramp puts them; a ramp whose times do not rise, or reversed, refused")
    func ramp() throws {
        let dir = try Oracle.scratch()
        let media = try Self.media(dir)
        let out = dir + "/ramp.mov"
        let r = try Oracle.mixwrite(["concat", media + ":speed=1@0,0.5@2,1@4", "-o", out, "-q"])
        try #require(r.status == 0, "\(r.stderr)")
        // The ramp's media by output second t: t − t²/8 to 2 s (1.5 s of media), then 1.5 + (t−2)/2 + (t−2)²/8 to 4 s
        // (3 s), then as it is: so media second m shows at the inverse, which setpts gives the CLI.
        let inverse = "if(lte(T,1.5),(1-sqrt(1-0.5*T))/0.25,if(lte(T,3),2+(-0.5+sqrt(0.25+0.5*(T-1.5)))/0.25,T+1))"
        let (worst, ours, theirs) = try Self.againstCLI(out, media: media, dir: dir, graph: "[0:v]setpts='\(inverse)/TB',fps=25")
        #expect(ours == 175 && theirs == 175, "7 s at 25 fps: \(ours), \(theirs)")
        print("a speed ramp against the CLI's setpts on its inverse: worst luma PSNR \(worst) dB")
        #expect(worst >= 40)
        // Media seconds 0 … 5 at the ramp's inverse: 0, 1.1716, 2.8284, 4, 5, 6.
        let expected = [0, (1 - 0.5.squareRoot()) / 0.25, 2 + (-0.5 + 0.5.squareRoot()) / 0.25, 4, 5, 6]
        let found = try Self.clicks(out)
        print("ramp clicks: \(found.map(fourDigits)) s, expected \(expected.map(fourDigits))")
        try #require(found.count == expected.count, "\(found)")
        #expect(abs(found[0]) < 0.001, "the click on its first frame")
        for (f, e) in zip(found, expected) { #expect(abs(f - e) < 0.008, "click at \(f) s, expected \(e) s") }

        for (spec, words) in [(":speed=1@2,0.5@1", "seconds rising"), (":speed=1@0", "at least two points"),
                              (":speed=1@0,0.5@1:reverse", "not yet")] {
            let bad = try Oracle.mixwrite(["concat", media + spec, "-o", dir + "/bad.mov"])
            #expect(bad.status == 1 && bad.stderr.contains(words), "\(spec): \(bad.stderr)")
        }
    }

    @Test("an EDL as Resolve writes speed changes (from 01:00:00:00, M2 lines: 050.0 over 2 s of source, -025.0 over its own length): 2× and reversed, the CLI's frames",
          .enabled(if: RenderTests.hasAdapters, "python3's opentimelineio is not installed with its adapters (scripts/install-deps.sh test installs them)"))
    func edlSpeeds() throws {
        let dir = try Oracle.scratch()
        let media = try Self.media(dir)
        let edl = dir + "/speeds.edl"
        try Data("""
        TITLE: Resolve Export
        FCM: NON-DROP FRAME

        001  AX       V     C        00:00:00:00 00:00:02:00 01:00:00:00 01:00:01:00
        M2   AX       050.0                00:00:00:00
        * FROM CLIP NAME: media.mov

        002  AX       V     C        00:00:03:00 00:00:04:00 01:00:01:00 01:00:02:00
        M2   AX       -025.0               00:00:03:00
        * FROM CLIP NAME: media.mov

        003  AX       V     C        00:00:04:00 00:00:05:00 01:00:02:00 01:00:03:00
        * FROM CLIP NAME: media.mov

        """.utf8).write(to: URL(fileURLWithPath: edl))
        let out = dir + "/speeds.mov"
        let r = try Oracle.mixwrite(["render", edl, "-o", out, "--fps", "25", "-q"])
        try #require(r.status == 0, "\(r.stderr)")
        let (worst, ours, theirs) = try Self.againstCLI(out, media: media, dir: dir, graph:
            "[0:v]trim=start=0:end=2,setpts=(PTS-STARTPTS)/2,fps=25[a];[0:v]trim=start=3:end=4,setpts=PTS-STARTPTS,reverse[b];"
            + "[0:v]trim=start=4:end=5,setpts=PTS-STARTPTS[c];[a][b][c]concat=n=3:v=1:a=0")
        #expect(ours == 75 && theirs == 75, "3 s at 25 fps: \(ours), \(theirs)")
        print("an EDL's M2 speeds against the CLI's: worst luma PSNR \(worst) dB")
        #expect(worst >= 40)
        // The reversed event's media 3–4 s backwards: the click on its 3 s at the output's 2 s less its 4 ms.
        let found = try Self.clicks(out)
        #expect(found.contains { abs($0 - (2 - 0.004)) < 0.001 }, "\(found)")
    }

    @Test("a layer reversed at 2×, its last frame held 1 s (media 1–5 s, :reverse:speed=2:freeze=1): the CLI's frames (trim, setpts, reverse, tpad), its clicks backwards where the speed puts them, silent while held")
    func layerReverseFreeze() throws {
        let dir = try Oracle.scratch()
        let media = try Self.media(dir)
        let out = dir + "/layer.mov"
        let r = try Oracle.mixwrite(["blend", "--layer", media + ":reverse:speed=2:in=1:out=5:freeze=1:key=none", media, "-o", out,
                                     "--mute", "base", "-q", "--json"])
        try #require(r.status == 0, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        let layers = report["layers"] as? [[String: Any]] ?? []
        #expect((layers.first?["speed"] as? NSNumber)?.doubleValue == -2 && (layers.first?["freeze"] as? NSNumber)?.doubleValue == 1, "\(layers)")
        let (worst, ours, theirs) = try Self.againstCLI(out, media: media, dir: dir, graph:
            "[0:v]trim=start=1:end=5,setpts=(PTS-STARTPTS)/2,fps=25,reverse,tpad=stop_mode=clone:stop_duration=1[a];"
            + "[0:v]trim=start=3:end=6,setpts=PTS-STARTPTS[b];[a][b]concat=n=2:v=1:a=0")
        // The CLI's fps, reverse and tpad end a frame apart on FFmpeg 5.1 and 7.1; the frames both have are compared.
        #expect(ours == 150 && abs(theirs - 150) <= 1, "6 s at 25 fps: \(ours), \(theirs)")
        print("a reversed, held layer against the CLI's: worst luma PSNR \(worst) dB")
        #expect(worst >= 40)
        // Media clicks at 4, 3, 2, 1 s played backwards at 2× from 0 s: at (5 − m) / 2, each 2 ms long and reversed.
        let found = try Self.clicks(out)
        let expected = [4.0, 3, 2, 1].map { (5 - $0) / 2 - 0.002 }
        print("reversed layer clicks: \(found.map(fourDigits)), expected \(expected.map(fourDigits))")
        try #require(found.count == expected.count, "\(found)")
        for (f, e) in zip(found, expected) { #expect(abs(f - e) < 0.008, "click at \(f) s, expected \(e) s") }
        let mono = Oracle.channel(try Oracle.decodeAudio(out), 0, of: 2)
        #expect(Oracle.rms(mono[Int(2.05 * 48000)..<Int(2.95 * 48000)]) < -60, "silent while its frame is held")
    }

    @Test("a reversed clip and a FreezeFrame on an upper track (over a clip on V1): the CLI's frames for the same mapping",
          .enabled(if: Oracle.hasOTIO, "python3's opentimelineio is not installed (scripts/install-deps.sh test installs it)"))
    func upperTrack() throws {
        let dir = try Oracle.scratch()
        let media = try Self.media(dir)
        let (otio, seconds) = try RenderTests.timeline(dir, "upper", """
            v1 = track("V1", V); v2 = track("V2", V); tl.tracks.extend([v1, v2])
            v1.append(clip("base", "\(media)", 0, 100))
            def timed(name, start, frames, effect):
                c = clip(name, "\(media)", start, frames); c.effects.append(effect); return c
            v2.append(gap(12))
            v2.append(timed("back", 50, 25, otio.schema.LinearTimeWarp(time_scalar=-1.0)))
            v2.append(timed("hold", 25, 12, otio.schema.FreezeFrame()))
            """)
        #expect(abs(seconds - 4) < 1e-9)
        let out = dir + "/upper.mov"
        let r = try Oracle.mixwrite(["render", otio, "-o", out, "-q"])
        try #require(r.status == 0, "\(r.stderr)")
        let (worst, ours, theirs) = try Self.againstCLI(out, media: media, dir: dir, graph:
            "[0:v]trim=start=0:end=0.48,setpts=PTS-STARTPTS[a];[0:v]trim=start=2:end=3,setpts=PTS-STARTPTS,reverse[b];"
            + "[0:v]trim=start=1:end=1.04,setpts=PTS-STARTPTS,loop=loop=11:size=1:start=0,setpts=N/25/TB[c];"
            + "[0:v]trim=start=1.96:end=4,setpts=PTS-STARTPTS[d];[a][b][c][d]concat=n=4:v=1:a=0")
        #expect(ours == 100 && theirs == 100, "4 s at 25 fps: \(ours), \(theirs)")
        print("a reversed clip and a freeze on V2 against the CLI's: worst luma PSNR \(worst) dB")
        #expect(worst >= 40)
    }
}

private func fourDigits(_ x: Double) -> String { String(format: "%.4f", x) }
