import Foundation
import Testing
import TestSupport

/// Smart rendering (`--smart`, issue 49): base's GOPs that no layer touches copied packet for packet, the rest
/// encoded. Read back by the ffmpeg CLI: each copied frame's md5 against base's own decoded frame, the encoded frames'
/// luma against `--smart off`'s, the whole file decoded with `-xerror`, seeks landing on the frames a linear decode
/// gives, and the report's spans and reasons.
@Suite("smart rendering: untouched GOPs copied, the rest encoded, exact and seekable")
struct SmartRenderTests {
    /// base: 4 s of 320x240 at 30 fps, a closed GOP every 10 frames (H.264, B-frames), a 440 Hz tone; fx: 2 s of a red
    /// box on green, an 880 Hz tone.
    static func inputs(in dir: String) throws -> (fx: String, base: String) {
        let (fx, base) = (dir + "/fx.mp4", dir + "/base.mp4")
        try LayerTests.make(["-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=4", "-f", "lavfi", "-i", "sine=f=440:r=48000:d=4",
                             "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-g", "10", "-pix_fmt", "yuv420p", "-c:a", "aac", base])
        try LayerTests.make(["-f", "lavfi", "-i", "color=c=0x00FF00:s=160x120:r=30:d=2,drawbox=x=40:y=30:w=80:h=60:c=red:t=fill",
                             "-f", "lavfi", "-i", "sine=f=880:r=48000:d=2", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", fx])
        return (fx, base)
    }

    static func report(_ r: Oracle.Result) throws -> [String: Any] {
        try #require(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        return try #require(json["video"] as? [String: Any])
    }

    static func spans(_ video: [String: Any], _ key: String) -> [[Double]] {
        (video[key] as? [[Double]] ?? []).map { $0.map { ($0 * 1000).rounded() / 1000 } }
    }

    /// Luma PSNR of frames `range` of `a` against the same frames of `b`. A smart render's copied pictures keep their
    /// stream's untagged colour where the encoded ones are tagged, and FFmpeg 7.1 and 9.0's CLI builds its filters
    /// anew where the tags change (counting frames from 0 again): `-reinit_filter 0` keeps one count.
    static func psnr(_ a: String, _ b: String, frames range: Range<Int>) throws -> Double {
        let trim = "trim=start_frame=\(range.lowerBound):end_frame=\(range.upperBound),setpts=PTS-STARTPTS"
        let dir = try Oracle.scratch("psnr")
        let (x, y) = (dir + "/a.y4m", dir + "/b.y4m")
        for (input, output) in [(a, x), (b, y)] {
            let r = try Oracle.ffmpeg(["-v", "error", "-y", "-reinit_filter", "0", "-i", input, "-map", "0:v", "-vf", trim, output])
            try #require(r.status == 0, "\(r.stderr)")
        }
        return try LayerTests.lumaPSNR(x, y)
    }

    @Test("a layer at 1.5–2.5 s over a 4 s base: GOPs before and after copied, bit for bit; the layer's encoded ≥ 40 dB of --smart off's; decodes clean, seeks exact, both tones")
    func placedLayer() throws {
        let dir = try Oracle.scratch()
        let (fx, base) = try Self.inputs(in: dir)
        let (out, off) = (dir + "/smart.mp4", dir + "/off.mp4")
        let layer = ["--at", "1.5", "--out", "1", "--place", "80,60,160,120"]
        let video = try Self.report(try LayerTests.mixwrite([fx, base, "-o", out, "--json"] + layer))
        #expect(Self.spans(video, "copiedSpans") == [[0, 1.333], [2.667, 4]], "\(video)")
        #expect(Self.spans(video, "encodedSpans") == [[1.333, 2.667]], "\(video)")
        #expect(video["copiedFrames"] as? Int == 80 && video["smartReason"] == nil, "\(video)")
        let r = try LayerTests.mixwrite([fx, base, "-o", off, "--smart", "off", "--json"] + layer)
        #expect(try Self.report(r)["copiedSpans"] == nil)

        let mine = try Self.holdsCopies(out, of: base, elsewhere: off)
        #expect(mine[40..<80] != (try LayerTests.pictures(base))[40..<80])
        let probe = try Oracle.probe(out)
        #expect(probe.video.count == 1 && probe.audio.count == 1 && probe.video[0].frames == 120)
        let sound = try Oracle.decodeAudio(out)
        #expect(Oracle.toneLevel(Array(sound[(48000 * 8 / 5)..<(48000 * 12 / 5)]), frequency: 880) > -30, "fx's tone under the layer")
        #expect(Oracle.toneLevel(Array(sound[(48000 * 3)..<(48000 * 7 / 2)]), frequency: 440) > -30, "base's tone")
        try Self.seeksLand(out, pictures: mine, frames: [0, 15, 39, 40, 47, 79, 80, 95, 119])
    }

    /// `out`'s 120 frames: frames 0–39 and 80–119 `base`'s own, bit for bit; 40–79 ≥ 40 dB of `reference`'s; the
    /// file decoding with `-xerror`. Returns `out`'s frames' md5s.
    @discardableResult
    static func holdsCopies(_ out: String, of base: String, elsewhere reference: String) throws -> [String] {
        let (mine, theirs) = (try LayerTests.pictures(out), try LayerTests.pictures(base))
        try #require(mine.count == 120 && theirs.count == 120, "\(mine.count) and \(theirs.count) frames")
        for k in Array(0..<40) + Array(80..<120) { #expect(mine[k] == theirs[k], "copied frame \(k) differs from base's") }
        let quality = try psnr(out, reference, frames: 40..<80)
        #expect(quality >= 40, "the encoded span against \(reference): \(quality) dB")
        let clean = try Oracle.ffmpeg(["-v", "error", "-xerror", "-i", out, "-f", "null", "-"])
        #expect(clean.status == 0 && clean.stderr.isEmpty, "\(clean.stderr)")
        return mine
    }

    /// A seek to each frame's time (at 30 fps) starts from the keyframe before it, copied or encoded, and lands on
    /// that frame's picture in a linear decode.
    static func seeksLand(_ out: String, pictures: [String], frames: [Int]) throws {
        for k in frames {
            let t = String(format: "%.4f", max(0, (Double(k) - 0.5) / 30))
            let f = try Oracle.ffmpeg(["-v", "error", "-ss", t, "-i", out, "-map", "0:v", "-frames:v", "1", "-f", "framemd5", "-"])
            let md5 = f.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }.first?.split(separator: ",").last.map(String.init)
            #expect(md5 == pictures[k], "a seek to frame \(k) (\(t) s)")
        }
    }

    @Test("HEVC: a layer at 1.5–2.5 s over a 4 s HEVC base of closed GOPs (parameter sets other than the encoder's: 32-pixel CTUs, no SAO), --codec hevc: GOPs before and after copied bit for bit, the rest ≥ 40 dB of --smart off's; each GOP led by its sets (hev1), so the file decodes clean and seeks exact")
    func hevc() throws {
        let dir = try Oracle.scratch()
        let (fx, _) = try Self.inputs(in: dir)
        let (base, out, off) = (dir + "/hevc.mp4", dir + "/smart.mp4", dir + "/off.mp4")
        try LayerTests.make(["-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=4", "-f", "lavfi", "-i", "sine=f=440:r=48000:d=4",
                             "-c:v", "libx265", "-x265-params", "log-level=error:keyint=10:min-keyint=10:open-gop=0:scenecut=0:ctu=32:sao=0",
                             "-pix_fmt", "yuv420p", "-c:a", "aac", base])
        let layer = ["--at", "1.5", "--out", "1", "--place", "80,60,160,120", "--codec", "hevc"]
        let video = try Self.report(try LayerTests.mixwrite([fx, base, "-o", out, "--json"] + layer))
        #expect(Self.spans(video, "copiedSpans") == [[0, 1.333], [2.667, 4]], "\(video)")
        #expect(video["copiedFrames"] as? Int == 80 && video["smartReason"] == nil, "\(video)")
        try #require(try LayerTests.mixwrite([fx, base, "-o", off, "--smart", "off"] + layer).status == 0)

        let mine = try Self.holdsCopies(out, of: base, elsewhere: off)
        let v = try Oracle.probe(out).video
        #expect(v.count == 1 && v[0].raw["codec_tag_string"] == "hev1", "\(v.first?.raw ?? [:])")
        try Self.seeksLand(out, pictures: mine, frames: [0, 15, 39, 40, 47, 79, 80, 95, 119])
    }

    @Test("a layer from 2 s to 3 s, on GOP boundaries: exactly its frames encoded; the frames beside it base's, the layer's keyed as --smart off keys them")
    func onBoundaries() throws {
        let dir = try Oracle.scratch()
        let (fx, base) = try Self.inputs(in: dir)
        let (out, off) = (dir + "/smart.mkv", dir + "/off.mkv")
        let layer = ["--at", "2", "--out", "1"]
        let video = try Self.report(try LayerTests.mixwrite([fx, base, "-o", out, "--json"] + layer))
        #expect(Self.spans(video, "encodedSpans") == [[2, 3]] && video["copiedFrames"] as? Int == 90, "\(video)")
        _ = try Self.report(try LayerTests.mixwrite([fx, base, "-o", off, "--json", "--smart", "off"] + layer))
        let (mine, theirs) = (try LayerTests.pictures(out), try LayerTests.pictures(base))
        try #require(mine.count == 120, "\(mine.count) frames")
        #expect(mine[59] == theirs[59] && mine[90] == theirs[90] && mine[60] != theirs[60] && mine[89] != theirs[89])
        let quality = try Self.psnr(out, off, frames: 60..<90)
        #expect(quality >= 40, "the encoded span against --smart off's: \(quality) dB")
    }

    @Test("in 2 parts: each part copies the GOPs wholly inside it; joined, base's frames where copied, the rest ≥ 40 dB of one render's, decoding clean; --crf 0 (lossless: another profile) copies nothing")
    func parts() throws {
        let dir = try Oracle.scratch()
        let (fx, base) = try Self.inputs(in: dir)
        let (one, joined) = (dir + "/one.mp4", dir + "/joined.mp4")
        let command = [fx, base, "--at", "1.5", "--out", "1", "--place", "80,60,160,120"]
        let r = try LayerTests.mixwrite(command + ["-o", one])
        try #require(r.status == 0, "\(r.stderr)")
        try PartsTests.renderParts(command, out: joined, n: 2)
        try Self.holdsCopies(joined, of: base, elsewhere: one)
        let lossless = try Self.report(try LayerTests.mixwrite(command + ["-o", dir + "/lossless.mp4", "--crf", "0", "--json"]))
        #expect(lossless["copiedFrames"] as? Int == 0 && (lossless["smartReason"] as? String)?.contains("--crf 0") == true, "\(lossless)")
    }

    @Test("--start 0.5 --length 2.7 with the layer: the first partial GOP encoded, whole untouched GOPs copied as base's frames")
    func excerpt() throws {
        let dir = try Oracle.scratch()
        let (fx, base) = try Self.inputs(in: dir)
        let out = dir + "/excerpt.mov"
        let video = try Self.report(try LayerTests.mixwrite([fx, base, "-o", out, "--json", "--at", "1.5", "--out", "1",
                                                             "--start", "0.5", "--length", "2.7"]))
        #expect(Self.spans(video, "copiedSpans") == [[0.167, 0.833], [2.167, 2.5]], "\(video)")
        #expect(Self.spans(video, "encodedSpans") == [[0, 0.167], [0.833, 2.167], [2.5, 2.7]], "\(video)")
        let (mine, theirs) = (try LayerTests.pictures(out), try LayerTests.pictures(base))
        try #require(mine.count == 81, "\(mine.count) frames")
        for k in Array(5..<25) + Array(65..<75) { #expect(mine[k] == theirs[k + 15], "copied frame \(k)") }
        let clean = try Oracle.ffmpeg(["-v", "error", "-xerror", "-i", out, "-f", "null", "-"])
        #expect(clean.status == 0 && clean.stderr.isEmpty, "\(clean.stderr)")
    }

    /// Three clips of 2 s at 30 fps, a closed GOP every 10 frames, the same encoder settings (so the same parameter
    /// sets), each its own hue and two tones.
    static func clips(in dir: String) throws -> [String] {
        try (1...3).map { n in
            let clip = dir + "/clip\(n).mp4"
            try LayerTests.make(["-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=2", "-f", "lavfi", "-i", "sine=f=\(200 * n + 100):r=48000:d=2",
                                 "-f", "lavfi", "-i", "sine=f=\(200 * n + 1100):r=48000:d=2", "-vf", "hue=h=\(120 * n)",
                                 "-map", "0:v", "-map", "1:a", "-map", "2:a", "-c:v", "libx264", "-preset", "veryfast", "-g", "10",
                                 "-pix_fmt", "yuv420p", "-c:a", "aac", clip])
            return clip
        }
    }

    @Test("concat: with cuts every clip copied whole (each frame its clip's); with 0.5 s fades only the GOPs a fade touches encoded (≥ 40 dB of --smart off's); a clip of other parameter sets encoded, said; every track mixed")
    func concat() throws {
        let dir = try Oracle.scratch()
        let clips = try Self.clips(in: dir)
        let own = try clips.flatMap { try LayerTests.pictures($0) }
        let cuts = dir + "/cuts.mp4"
        let video = try Self.report(try LayerTests.mixwrite(["concat"] + clips + ["-o", cuts, "--json"]))
        #expect(video["copiedFrames"] as? Int == 180 && Self.spans(video, "encodedSpans").isEmpty, "\(video)")
        #expect(try LayerTests.pictures(cuts) == own, "the cut concat's pictures are the clips' own")
        #expect(try Oracle.probe(cuts).audio.count == 1)
        let sound = try Oracle.decodeAudio(cuts)
        for (n, second) in [(1, 0.5), (2, 2.5), (3, 4.5)] {
            let window = Array(sound[Int(second * 48000)..<Int((second + 1) * 48000)])
            for f in [200 * n + 100, 200 * n + 1100] {
                #expect(Oracle.toneLevel(window, frequency: Double(f)) > -30, "clip \(n)'s \(f) Hz tone")
            }
        }

        let (fades, off) = (dir + "/fades.mp4", dir + "/fades-off.mp4")
        let faded = try Self.report(try LayerTests.mixwrite(["concat"] + clips + ["-o", fades, "--json", "--transition", "fade:0.5"]))
        // Fades at output frames 45–60 and 90–105; clip 2 is laid from frame 45, clip 3 from 90 (their GOPs from there).
        #expect(Self.spans(faded, "copiedSpans") == [[0, 1.333], [2.167, 2.833], [3.667, 5]], "\(faded)")
        #expect(Self.spans(faded, "encodedSpans") == [[1.333, 2.167], [2.833, 3.667]], "\(faded)")
        _ = try Self.report(try LayerTests.mixwrite(["concat"] + clips + ["-o", off, "--json", "--transition", "fade:0.5", "--smart", "off"]))
        let mine = try LayerTests.pictures(fades)
        try #require(mine.count == 150, "\(mine.count) frames")
        for k in 0..<40 { #expect(mine[k] == own[k], "frame \(k): clip 1's") }
        for k in 65..<85 { #expect(mine[k] == own[60 + k - 45], "frame \(k): clip 2's") }
        for k in 110..<150 { #expect(mine[k] == own[120 + k - 90], "frame \(k): clip 3's") }
        for range in [40..<65, 85..<110] {
            let quality = try Self.psnr(fades, off, frames: range)
            #expect(quality >= 40, "the encoded frames \(range) against --smart off's: \(quality) dB")
        }
        let clean = try Oracle.ffmpeg(["-v", "error", "-xerror", "-i", fades, "-f", "null", "-"])
        #expect(clean.status == 0 && clean.stderr.isEmpty, "\(clean.stderr)")

        let other = dir + "/other.mp4"
        try LayerTests.make(["-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=2", "-f", "lavfi", "-i", "sine=f=900:r=48000:d=2",
                             "-c:v", "libx264", "-preset", "medium", "-g", "10", "-pix_fmt", "yuv420p", "-c:a", "aac", other])
        let mixed = try Self.report(try LayerTests.mixwrite(["concat", clips[0], other, clips[2], "-o", dir + "/mixed.mp4", "--json"]))
        #expect(Self.spans(mixed, "copiedSpans") == [[0, 2], [4, 6]] && Self.spans(mixed, "encodedSpans") == [[2, 4]], "\(mixed)")
        #expect((mixed["smartReason"] as? String)?.contains("clip 2's parameter sets differ") == true, "\(mixed)")
        // In 3 parts, a part a clip each: every part's record is the same (every clip read), so they join; each part
        // copies its own clip's GOPs (the first and the last) and the joined movie decodes clean.
        // (AAC in its usual segments: with PartsTests' 8-frame ones, part 3 of this concat fails in the muxer, smart or not;
        // the closing note of this stop.)
        let joined = dir + "/joined.mp4"
        for k in 1...3 {
            let r = try LayerTests.mixwrite(["concat", clips[0], other, clips[2], "-o", joined, "--parts", "3", "--part", "\(k)"])
            try #require(r.status == 0, "part \(k): \(r.stderr)")
        }
        let j = try Oracle.run(Oracle.mixwrite, ["join", joined], timeout: 120)
        try #require(j.status == 0, "join: \(j.stderr)")
        let pictures = try LayerTests.pictures(joined)
        try #require(pictures.count == 180, "\(pictures.count) frames")
        for k in Array(0..<60) + Array(120..<180) { #expect(pictures[k] == own[k], "joined frame \(k): its clip's") }
        let joinedClean = try Oracle.ffmpeg(["-v", "error", "-xerror", "-i", joined, "-f", "null", "-"])
        #expect(joinedClean.status == 0 && joinedClean.stderr.isEmpty, "\(joinedClean.stderr)")
    }

    @Test("render: an OTIO timeline's bottom track copies the GOPs no dissolve or gap touches (one file cut twice read once), each copied frame its clip's; the rest ≥ 40 dB of --smart off's; under an upper track's clip, the GOPs it does not touch copied",
          .enabled(if: Oracle.hasOTIO, "python3's opentimelineio is not installed (scripts/install-deps.sh test installs it)"))
    func render() throws {
        let dir = try Oracle.scratch()
        let clips = try Self.clips(in: dir)
        let (one, two) = (try LayerTests.pictures(clips[0]), try LayerTests.pictures(clips[1]))
        // At 30 fps: clip 1 from its frame 5 for 40, a dissolve of 5 + 5 frames, clip 2 from its frame 10 for 30, 10 frames
        // of gap, clip 1 again from its frame 0 for 60. On the output: clip 1 at 0 ..< 45 (its GOP of frames 10 ..< 20 at
        // 5 ..< 15), the dissolve 35 ..< 45, clip 2 at 35 ..< 70 (its frames 5 on), the gap 70 ..< 80, clip 1 at 80 ..< 140.
        let (otio, _) = try RenderTests.timeline(dir, "smart", """
        T = lambda v: otio.opentime.RationalTime(v, 30)
        R = lambda s, d: otio.opentime.TimeRange(T(s), T(d))
        v = track("V1", V); tl.tracks.append(v)
        v.extend([clip("a", "\(clips[0])", 5, 40), dissolve(5, 5), clip("b", "\(clips[1])", 10, 30), gap(10), clip("c", "\(clips[0])", 0, 60)])
        """)
        let (out, off) = (dir + "/smart.mp4", dir + "/off.mp4")
        let video = try Self.report(try LayerTests.mixwrite(["render", otio, "-o", out, "--json", "--smart", "on"]))
        #expect(Self.spans(video, "copiedSpans") == [[0.167, 1.167], [1.667, 2.333], [2.667, 4.667]], "\(video)")
        #expect(Self.spans(video, "encodedSpans") == [[0, 0.167], [1.167, 1.667], [2.333, 2.667]], "\(video)")
        let mine = try LayerTests.pictures(out)
        try #require(mine.count == 140, "\(mine.count) frames")
        for k in 5..<35 { #expect(mine[k] == one[k + 5], "frame \(k): clip 1's \(k + 5)") }
        for k in 50..<70 { #expect(mine[k] == two[k - 30], "frame \(k): clip 2's \(k - 30)") }
        for k in 80..<140 { #expect(mine[k] == one[k - 80], "frame \(k): clip 1's \(k - 80)") }
        _ = try Self.report(try LayerTests.mixwrite(["render", otio, "-o", off, "--json", "--smart", "off"]))
        for range in [0..<5, 35..<50, 70..<80] {
            let quality = try Self.psnr(out, off, frames: range)
            #expect(quality >= 40, "the encoded frames \(range) against --smart off's: \(quality) dB")
        }
        let clean = try Oracle.ffmpeg(["-v", "error", "-xerror", "-i", out, "-f", "null", "-"])
        #expect(clean.status == 0 && clean.stderr.isEmpty, "\(clean.stderr)")
        let sound = try Oracle.decodeAudio(out)
        for (f, second) in [(300, 0.3), (1300, 0.3), (500, 1.8), (1500, 1.8), (300, 3.5), (1300, 3.5)] {
            #expect(Oracle.toneLevel(Array(sound[Int(second * 48000)..<Int((second + 0.5) * 48000)]), frequency: Double(f)) > -30,
                    "the \(f) Hz tone at \(second) s")
        }

        let (layered, _) = try RenderTests.timeline(dir, "layered", """
        T = lambda v: otio.opentime.RationalTime(v, 30)
        R = lambda s, d: otio.opentime.TimeRange(T(s), T(d))
        v, w = track("V1", V), track("V2", V); tl.tracks.extend([v, w])
        v.append(clip("a", "\(clips[0])", 0, 60)); w.extend([gap(20), clip("b", "\(clips[1])", 0, 10)])
        """)
        // V2's clip over frames 20 ..< 30 (a GOP of V1's clip): the GOPs before and after it copied, it encoded.
        let (over, overOff) = (dir + "/layered.mp4", dir + "/layered-off.mp4")
        let layered1 = try Self.report(try LayerTests.mixwrite(["render", layered, "-o", over, "--json", "--smart", "on"]))
        #expect(Self.spans(layered1, "copiedSpans") == [[0, 0.667], [1, 2]] && Self.spans(layered1, "encodedSpans") == [[0.667, 1]], "\(layered1)")
        let laid = try LayerTests.pictures(over)
        try #require(laid.count == 60, "\(laid.count) frames")
        for k in Array(0..<20) + Array(30..<60) { #expect(laid[k] == one[k], "frame \(k) under no upper clip: clip 1's") }
        _ = try Self.report(try LayerTests.mixwrite(["render", layered, "-o", overOff, "--json", "--smart", "off"]))
        let quality = try Self.psnr(over, overOff, frames: 20..<30)
        #expect(quality >= 40, "the upper clip's frames against --smart off's: \(quality) dB")
        let cleanLayered = try Oracle.ffmpeg(["-v", "error", "-xerror", "-i", over, "-f", "null", "-"])
        #expect(cleanLayered.status == 0 && cleanLayered.stderr.isEmpty, "\(cleanLayered.stderr)")
    }

    @Test("bad packets fall back and say so: a damaged packet's GOP encoded (the rest copied); parameter sets that change mid-stream (a remuxed MPEG-TS): nothing copied; --smart on refuses both")
    func badPackets() throws {
        let dir = try Oracle.scratch()
        let (fx, base) = try Self.inputs(in: dir)
        // Frame 95's first NAL length made to run past its packet (its bytes in the file, where ffprobe says it lies).
        let damaged = dir + "/damaged.mp4"
        try FileManager.default.copyItem(atPath: base, toPath: damaged)
        let packets = try Oracle.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts,pos",
                                                          "-of", "csv=p=0", damaged]).stdoutText
        let rows = packets.split(separator: "\n").map { $0.split(separator: ",").compactMap { Int($0) } }.filter { $0.count == 2 }
        let pts95 = rows.map { $0[0] }.sorted()[95]
        let pos = try #require(rows.first { $0[0] == pts95 }?[1])
        let file = try #require(FileHandle(forUpdatingAtPath: damaged))
        file.seek(toFileOffset: UInt64(pos))
        file.write(Data([0x7F, 0xFF, 0xFF, 0xFF]))
        file.closeFile()
        let layer = ["--at", "1.5", "--out", "1"]
        let video = try Self.report(try LayerTests.mixwrite([fx, damaged, "-o", dir + "/out.mp4", "--json"] + layer))
        #expect(Self.spans(video, "copiedSpans") == [[0, 1.333], [2.667, 3], [3.333, 4]], "\(video)")
        #expect((video["smartReason"] as? String)?.contains("a damaged packet at") == true, "\(video)")

        // Two encodes of other settings joined as MPEG-TS and remuxed: the second's parameter sets ride in its packets.
        let (a, b, mixed) = (dir + "/a.ts", dir + "/b.ts", dir + "/mixed.mp4")
        for (path, preset) in [(a, "veryfast"), (b, "medium")] {
            try LayerTests.make(["-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=2", "-c:v", "libx264", "-preset", preset, "-g", "10",
                                 "-pix_fmt", "yuv420p", path])
        }
        try "file '\(a)'\nfile '\(b)'\n".write(toFile: dir + "/list.txt", atomically: true, encoding: .utf8)
        try LayerTests.make(["-f", "concat", "-safe", "0", "-i", dir + "/list.txt", "-c", "copy", mixed])
        let changed = try Self.report(try LayerTests.mixwrite([fx, mixed, "-o", dir + "/changed.mp4", "--json"] + layer))
        #expect(changed["copiedFrames"] as? Int == 0 && (changed["smartReason"] as? String)?.contains("parameter sets change") == true, "\(changed)")
        for input in [damaged, mixed] {
            let r = try LayerTests.mixwrite([fx, input, "-o", dir + "/insisted.mp4", "--smart", "on"] + layer)
            #expect(r.status == 1 && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/insisted.mp4"))
        }
    }

    @Test("every movie of the corpus as base under a layer at 0.3–0.6 s: what is copied decodes as base's own frames, the file with no error; what is not says why (MIXWRITE_CORPUS)",
          .enabled(if: Oracle.corpus != nil, "MIXWRITE_CORPUS is not set: the corpus's movies are not run"))
    func corpus() throws {
        let corpus = try #require(Oracle.corpus)
        let dir = try Oracle.scratch()
        let fx = dir + "/fx.mp4"
        try LayerTests.make(["-f", "lavfi", "-i", "color=c=0x00FF00:s=160x120:r=30:d=1,drawbox=x=40:y=30:w=80:h=60:c=red:t=fill",
                             "-c:v", "libx264", "-pix_fmt", "yuv420p", fx])
        let movies = try Oracle.listing(corpus + "/video").filter { $0.hasSuffix(".mp4") || $0.hasSuffix(".mov") || $0.hasSuffix(".mkv") }
        var copiedSome = 0
        for (i, name) in movies.enumerated() {
            let base = corpus + "/video/" + name, out = dir + "/\(i).mkv"
            let r = try LayerTests.mixwrite([fx, base, "-o", out, "--json", "--at", "0.3", "--out", "0.3", "--place", "0,0,64,48"])
            guard r.status == 0 else { continue }   // a base the blend refuses is the blend's tests' matter
            let video = try Self.report(r)
            let copied = Self.spans(video, "copiedSpans"), frames = video["copiedFrames"] as? Int ?? 0
            #expect(frames > 0 || video["smartReason"] is String, "\(name): nothing copied and no reason: \(video)")
            guard frames > 0 else { continue }
            copiedSome += 1
            let clean = try Oracle.ffmpeg(["-v", "error", "-xerror", "-i", out, "-f", "null", "-"])
            #expect(clean.status == 0 && clean.stderr.isEmpty, "\(name): \(clean.stderr)")
            let (mine, theirs) = (try LayerTests.pictures(out), try LayerTests.pictures(base))
            let rate = try #require(Double(video["frameRate"] as? String ?? "") ?? (video["frameRate"] as? String).flatMap { s in
                let p = s.split(separator: "/").compactMap { Double($0) }; return p.count == 2 ? p[0] / p[1] : nil })
            for span in copied {
                for k in Int((span[0] * rate).rounded())..<Int((span[1] * rate).rounded()) where k < min(mine.count, theirs.count) {
                    #expect(mine[k] == theirs[k], "\(name): copied frame \(k) differs from base's")
                }
            }
        }
        #expect(copiedSome >= 2, "a few of the corpus's H.264 movies have closed GOPs to copy")
    }

    @Test("nothing copied, and why: base in HEVC, open GOPs (H.264's, HEVC's), fx over the whole movie, a ProRes output; --smart on refuses the same (exit 1, one line, nothing written)",
          arguments: ["hevc", "open", "hevcOpen", "whole", "output"])
    func reasons(_ kind: String) throws {
        let dir = try Oracle.scratch()
        var (fx, base) = try Self.inputs(in: dir)
        var extra = ["--at", "1.5", "--out", "1"], out = dir + "/out.mp4"
        let expected: String
        switch kind {
        case "hevc":
            base = dir + "/hevc.mp4"
            try LayerTests.make(["-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=4", "-c:v", "libx265", "-x265-params", "log-level=error",
                                 "-g", "10", "-pix_fmt", "yuv420p", base])
            expected = "base is HEVC, the output H.264 (--codec hevc copies it)"
        case "hevcOpen":
            base = dir + "/hevc.mp4"
            try LayerTests.make(["-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=4", "-c:v", "libx265", "-x265-params",
                                 "log-level=error:keyint=10:min-keyint=10:scenecut=0", "-pix_fmt", "yuv420p", base])
            extra += ["--codec", "hevc"]
            expected = "open GOPs"
        case "open":
            base = dir + "/open.mp4"
            try LayerTests.make(["-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=4", "-c:v", "libx264", "-preset", "veryfast",
                                 "-x264-params", "open-gop=1:keyint=10:min-keyint=10", "-pix_fmt", "yuv420p", base])
            expected = "open GOPs"
        case "whole":
            fx = dir + "/fx4.mp4"
            try LayerTests.make(["-f", "lavfi", "-i", "color=c=0x00FF00:s=160x120:r=30:d=4", "-c:v", "libx264", "-pix_fmt", "yuv420p", fx])
            extra = []
            expected = "fx covers the whole movie"
        default:
            out = dir + "/out.mov"
            extra += ["--codec", "prores"]
            expected = "the output is PRORES, only H.264 and HEVC are copied"
        }
        let video = try Self.report(try LayerTests.mixwrite([fx, base, "-o", out, "--json", "-y"] + extra))
        #expect(video["copiedFrames"] as? Int == 0 && Self.spans(video, "copiedSpans").isEmpty, "\(video)")
        #expect((video["smartReason"] as? String)?.contains(expected) == true, "\(video)")
        let insisted = dir + "/insisted." + (out as NSString).pathExtension
        let r = try LayerTests.mixwrite([fx, base, "-o", insisted, "--smart", "on"] + extra)
        #expect(r.status == 1 && r.stderr.split(separator: "\n").count == 1 && r.stderr.contains(expected), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: insisted))
    }
}
