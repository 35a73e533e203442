import Foundation
import Testing
import TestSupport

/// Subtitles and captions: the inputs' subtitle tracks carried and retimed where their pictures land, `--captions`
/// files added as tracks (mov_text, WebVTT, the file's own in Matroska) or burned into the picture by libass, and
/// bad caption files refused by line. Read back by the CLI: ffprobe's streams and tags, each cue's text and times from
/// the CLI's own subtitle decode (`-copyts`, so times are the file's), burned pictures against the CLI's `subtitles`
/// filter on the same pictures.
@Suite("captions: subtitle tracks kept and retimed, caption files muxed or burned")
struct CaptionTests {
    struct Cue: Equatable, CustomStringConvertible {
        var start: Double, end: Double, text: String
        var description: String { "\(start)–\(end) \(text.debugDescription)" }
    }

    static func write(_ text: String, _ path: String) throws -> String {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static let baseCues = "1\n00:00:00,300 --> 00:00:00,900\nBase says one\n\n2\n00:00:01,000 --> 00:00:01,800\nBase says two\n"
    static let fxCues = "WEBVTT\n\n00:00.200 --> 00:00.600\nfx speaks\n"
    static let captionCues = "1\n00:00:00,500 --> 00:00:01,200\nHello <i>there</i>\n\n2\n00:00:01,500 --> 00:00:02,400\nSecond line\n"

    /// A fixture with a subtitle track made from `cues` by the CLI, tagged `language`: mov_text in a .mov, WebVTT in a
    /// .mkv (`matroska`).
    static func withSubtitles(_ movie: String, _ cues: String, language: String, in dir: String, name: String,
                              matroska: Bool = false) throws -> String {
        let srt = try write(cues, dir + "/\(name).\(cues.hasPrefix("WEBVTT") ? "vtt" : "srt")")
        let out = dir + "/\(name).\(matroska ? "mkv" : "mov")"
        try LayerTests.make(["-i", movie, "-i", srt, "-map", "0", "-map", "1", "-c", "copy", "-c:s", matroska ? "webvtt" : "mov_text",
                             "-metadata:s:s:0", "language=\(language)", out])
        return out
    }

    /// Every cue of subtitle track `n` of `file`, as the CLI decodes it (SubRip out), its times from the video's start (a
    /// muxer may move the whole file by a codec's delay: WebM's Opus).
    static func cues(_ file: String, track n: Int) throws -> [Cue] {
        let v = try Oracle.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=start_time", "-of", "csv=p=0", file])
        let videoStart = Double(v.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        let r = try Oracle.ffmpeg(["-v", "error", "-copyts", "-i", file, "-map", "0:s:\(n)", "-c:s", "subrip", "-f", "srt", "-"])
        try #require(r.status == 0, "\(r.stderr)")
        func seconds(_ t: Substring) -> Double {
            let f = t.replacingOccurrences(of: ",", with: ".").split(separator: ":").compactMap { Double($0) }
            return f.count == 3 ? ((f[0] * 60 + f[1]) * 60 + f[2] * 1000).rounded() / 1000 : -1
        }
        return r.stdoutText.replacingOccurrences(of: "\r", with: "").components(separatedBy: "\n\n").compactMap { block in
            let lines = block.split(separator: "\n", omittingEmptySubsequences: true)
            guard let timing = lines.firstIndex(where: { $0.contains("-->") }) else { return nil }
            let times = lines[timing].components(separatedBy: " --> ")
            return Cue(start: ((seconds(Substring(times[0])) - videoStart) * 1000).rounded() / 1000,
                       end: ((seconds(Substring(times[1])) - videoStart) * 1000).rounded() / 1000,
                       text: lines[(timing + 1)...].joined(separator: "\n"))
        }
    }

    /// ffprobe's subtitle streams: codec, language, title (MOV's handler name).
    static func subtitleStreams(_ file: String) throws -> [(codec: String, language: String?, title: String?)] {
        let r = try Oracle.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "s", "-show_entries",
                                                    "stream=codec_name:stream_tags=language,title,handler_name", "-of", "json", file])
        let json = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        return (json["streams"] as? [[String: Any]] ?? []).map { s in
            let tags = s["tags"] as? [String: String] ?? [:]
            let handler = tags["handler_name"].flatMap { $0 == "SubtitleHandler" ? nil : $0 }
            return (s["codec_name"] as? String ?? "", tags["language"], tags["title"] ?? handler)
        }
    }

    @Test("a blend keeps base's and fx's subtitle tracks (fx's moved with its --at) and adds a --captions file cut at the end")
    func blendCarriesAndAdds() throws {
        let dir = try Oracle.scratch()
        let base = try Self.withSubtitles(Oracle.fixture("base.mov"), Self.baseCues, language: "fra", in: dir, name: "base")
        let fx = try Self.withSubtitles(Oracle.fixture("fx.mov"), Self.fxCues, language: "deu", in: dir, name: "fx", matroska: true)
        let captions = try Self.write(Self.captionCues, dir + "/en.srt")
        let out = dir + "/out.mp4"
        let r = try LayerTests.mixwrite([fx, base, "-o", out, "--at", "0.5", "--captions", captions + ":lang=eng:title=English"])
        try #require(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("en.srt: 1 cue runs past the movie's end (2 s), cut there"), "\(r.stderr)")
        let streams = try Self.subtitleStreams(out)
        #expect(streams.map(\.codec) == ["mov_text", "mov_text", "mov_text"], "\(streams)")
        #expect(streams.map(\.language) == ["deu", "fra", "eng"] && streams[2].title == "English", "\(streams)")
        // fx's cue keeps its place on fx's own clock (its file's start, as its picture and sound are placed): --at later.
        let fxCue = try Oracle.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "s", "-show_entries", "packet=pts_time", "-of", "csv=p=0", fx])
        let at = try #require(Double(fxCue.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines))) + 0.5
        #expect(try Self.cues(out, track: 0) == [Cue(start: at, end: at + 0.4, text: "fx speaks")])
        #expect(try Self.cues(out, track: 1) == [Cue(start: 0.3, end: 0.9, text: "Base says one"), Cue(start: 1, end: 1.8, text: "Base says two")])
        #expect(try Self.cues(out, track: 2) == [Cue(start: 0.5, end: 1.2, text: "Hello <i>there</i>"), Cue(start: 1.5, end: 2, text: "Second line")])
        // The picture and sound are the blend's as ever: one video, one audio stream.
        let probe = try Oracle.probe(out)
        #expect(probe.video.count == 1 && probe.audio.count == 1)
    }

    @Test("concat places each clip's cues at its clip, cut at a transition's middle; Matroska keeps ASS, WebM WebVTT")
    func concatRetimes() throws {
        let dir = try Oracle.scratch()
        let clip = try Self.withSubtitles(Oracle.fixture("base.mov"), Self.baseCues, language: "fra", in: dir, name: "clip")
        let (cut, faded, webm) = (dir + "/cut.mkv", dir + "/faded.mp4", dir + "/cut.webm")
        for (out, extra) in [(cut, [String]()), (faded, ["--transition", "fade:1"]), (webm, ["--codec", "vp9"])] {
            let r = try LayerTests.mixwrite(["concat", clip, clip, "-o", out] + extra)
            try #require(r.status == 0, "\(r.stderr)")
        }
        let both = [Cue(start: 0.3, end: 0.9, text: "Base says one"), Cue(start: 1, end: 1.8, text: "Base says two"),
                    Cue(start: 2.3, end: 2.9, text: "Base says one"), Cue(start: 3, end: 3.8, text: "Base says two")]
        #expect(try Self.subtitleStreams(cut).map(\.codec) == ["ass"] && Self.subtitleStreams(webm).map(\.codec) == ["webvtt"])
        #expect(try Self.cues(cut, track: 0) == both)
        #expect(try Self.cues(webm, track: 0) == both)
        // Clip 2 starts at 1 s under a 1 s fade: the cut is at 1.5 s.
        #expect(try Self.cues(faded, track: 0) == [Cue(start: 0.3, end: 0.9, text: "Base says one"), Cue(start: 1, end: 1.5, text: "Base says two"),
                                                   Cue(start: 1.5, end: 1.9, text: "Base says one"), Cue(start: 2, end: 2.8, text: "Base says two")])
    }

    @Test("an excerpt carries the cues of its span, moved to start with it; remix keeps the movie's track and adds captions")
    func excerptAndRemix() throws {
        let dir = try Oracle.scratch()
        let base = try Self.withSubtitles(Oracle.fixture("base.mov"), Self.baseCues, language: "fra", in: dir, name: "base")
        let (part, remixed) = (dir + "/part.mov", dir + "/remixed.mov")
        var r = try LayerTests.mixwrite([Oracle.fixture("fx.mov"), base, "-o", part, "--start", "0.6", "--length", "1"])
        try #require(r.status == 0, "\(r.stderr)")
        #expect(try Self.cues(part, track: 0) == [Cue(start: 0, end: 0.3, text: "Base says one"), Cue(start: 0.4, end: 1, text: "Base says two")])
        let captions = try Self.write(Self.captionCues, dir + "/en.srt")
        r = try LayerTests.mixwrite(["remix", base, "-o", remixed, "--captions", captions + ":lang=eng"])
        try #require(r.status == 0, "\(r.stderr)")
        #expect(try Self.subtitleStreams(remixed).map(\.language) == ["fra", "eng"])
        #expect(try Self.cues(remixed, track: 0).map(\.text) == ["Base says one", "Base says two"])
        #expect(try LayerTests.pictures(remixed) == LayerTests.pictures(base), "remix copies the picture")
    }

    @Test("three parts and their join carry the same cues as one render (a cue a part's edge cuts made one again), in Matroska's codecs")
    func partsJoin() throws {
        let dir = try Oracle.scratch()
        let base = try Self.withSubtitles(Oracle.fixture("base.mov"), Self.baseCues, language: "fra", in: dir, name: "base")
        let captions = try Self.write(Self.captionCues, dir + "/en.srt")
        let (joined, whole) = (dir + "/joined.mkv", dir + "/whole.mkv")
        let job = [Oracle.fixture("fx.mov"), base, "--captions", captions + ":lang=eng"]
        for k in 1...3 {
            let r = try LayerTests.mixwrite(job + ["-o", joined, "--parts", "3", "--part", "\(k)"])
            try #require(r.status == 0, "\(r.stderr)")
        }
        var r = try Oracle.mixwrite(["join", joined])
        try #require(r.status == 0, "\(r.stderr)")
        r = try LayerTests.mixwrite(job + ["-o", whole])
        try #require(r.status == 0, "\(r.stderr)")
        #expect(try Self.subtitleStreams(joined).map(\.codec) == ["ass", "subrip"])
        for t in 0..<2 { #expect(try Self.cues(joined, track: t) == Self.cues(whole, track: t), "track \(t)") }
        // The parts cut at 0.64 s and 1.32 s: both tracks have a cue across the first cut.
        #expect(try Self.cues(joined, track: 1).first == Cue(start: 0.5, end: 1.2, text: "Hello <i>there</i>"))
    }

    @Test("a render: a clip's subtitle track by its source range, a clip's caption file in its media's time, a track's in the timeline's",
          .enabled(if: Oracle.hasOTIO, "python3's opentimelineio is not installed (scripts/install-deps.sh test installs it)"))
    func renderTimeline() throws {
        let dir = try Oracle.scratch()
        let base = try Self.withSubtitles(Oracle.fixture("base.mov"), Self.baseCues, language: "fra", in: dir, name: "base")
        _ = try Self.write(Self.captionCues, dir + "/media.srt")
        _ = try Self.write("1\n00:00:00,100 --> 00:00:00,500\nTimeline says\n", dir + "/whole.srt")
        // base from its 0.6 s for 1.2 s (30 frames), then fx from its 0.2 s for 1 s, its own caption file beside it.
        let (otio, _) = try RenderTests.timeline(dir, "captions", """
        tl.global_start_time = T(90000)
        v = track("V1", V); tl.tracks.append(v)
        v.metadata["mixwrite"] = {"captions": [{"file": "whole.srt", "lang": "eng"}]}
        v.extend([clip("a", "\(base)", 15, 30), clip("b", "\(Oracle.fixture("fx.mov"))", 5, 25, {"captions": [{"file": "media.srt"}]})])
        """)
        let out = dir + "/render.mkv"
        let r = try Oracle.mixwrite(["render", otio, "-o", out, "--progress", "none"], timeout: 120)
        try #require(r.status == 0, "\(r.stderr)")
        let streams = try Self.subtitleStreams(out)
        // The inputs' tracks (base's, then the clips' caption files as one), then the caption files of the output's time.
        #expect(streams.map(\.language) == ["fra", nil, "eng"], "\(streams)")
        // base's cues from its 0.6 s: 0.3–0.9 is 0–0.3 here, 1.0–1.8 is 0.4–1.2 (cut at the clip's end).
        #expect(try Self.cues(out, track: 0) == [Cue(start: 0, end: 0.3, text: "Base says one"), Cue(start: 0.4, end: 1.2, text: "Base says two")])
        #expect(try Self.cues(out, track: 2) == [Cue(start: 0.1, end: 0.5, text: "Timeline says")])
        // media.srt from fx's 0.2 s at 1.2 s: 0.5–1.2 is 1.5–2.2 (cut at 2.2, the clip's end), 1.5–2.4 is past it.
        #expect(try Self.cues(out, track: 1) == [Cue(start: 1.5, end: 2.2, text: "Hello <i>there</i>")])
        // The timeline's global_start_time (an hour at 25 fps) is the output's start timecode.
        #expect(try Self.tags(out).format["timecode"] == "01:00:00:00")
    }

    @Test("a bad caption file: one line naming the file and its line, exit 2, nothing written")
    func badCaptionFiles() throws {
        let dir = try Oracle.scratch()
        let bad: [(String, String, String)] = [
            ("stamp.srt", "1\n00:00:00,500 -> 00:00:01,000\nHi\n", "stamp.srt: line 2: "),
            ("order.srt", "1\n00:00:01,000 --> 00:00:01,500\nB\n\n2\n00:00:00,200 --> 00:00:00,400\nA\n", "order.srt: line 6: cues out of order"),
            ("format.ass", "[Script Info]\nScriptType: v4.00+\n\n[Events]\nDialogue: 0,0:00:00.20,0:00:01.00,Default,,0,0,0,,Hi\n",
             "format.ass: line 5: a Dialogue line before its [Events] section's Format line"),
            ("late.vtt", "WEBVTT\n\n00:01.000 --> 00:00.500\nBackwards\n", "late.vtt: line 3: the cue ends"),
        ]
        for (name, text, said) in bad {
            let file = try Self.write(text, dir + "/" + name), out = dir + "/out-\(name).mp4"
            let r = try LayerTests.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", out, "--captions", file])
            #expect(r.status == 2 && r.stderr.contains(said), "\(name): \(r.status) \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
        // Latin-1 text: refused by line unless its encoding is given, then read right.
        let latin = dir + "/latin.srt"
        try Data("1\n00:00:00,100 --> 00:00:01,000\nCaf\u{E9} cr\u{E8}me\n".data(using: .isoLatin1)!).write(to: URL(fileURLWithPath: latin))
        var r = try LayerTests.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", dir + "/l.mp4", "--captions", latin])
        #expect(r.status == 2 && r.stderr.contains("latin.srt: line 3: the text is not UTF-8"), "\(r.stderr)")
        r = try LayerTests.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", dir + "/l.mp4", "--captions", latin + ":charenc=latin1"])
        try #require(r.status == 0, "\(r.stderr)")
        #expect(try Self.cues(dir + "/l.mp4", track: 0).map(\.text) == ["Café crème"])
        r = try LayerTests.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", dir + "/n.mp4", "--burn-captions"])
        #expect(r.status == 1 && r.stderr.contains("--burn-captions needs a --captions file"), "\(r.stderr)")
    }

    /// An ASS file with two styles, a colour override, a placed line, an Arabic and a CJK line.
    static let styled = """
        [Script Info]
        ScriptType: v4.00+
        PlayResX: 320
        PlayResY: 240

        [V4+ Styles]
        Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
        Style: Default,DejaVu Sans,20,&H00FFFFFF,&H000000FF,&H00000000,&H00000000,0,0,0,0,100,100,0,0,1,2,0,2,10,10,10,1
        Style: Top,DejaVu Sans,16,&H0000FFFF,&H000000FF,&H00000000,&H00000000,1,0,0,0,100,100,0,0,1,1,0,8,10,10,10,1

        [Events]
        Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
        Dialogue: 0,0:00:00.20,0:00:01.50,Default,,0,0,0,,Hello {\\c&H0000FF&}red{\\r} world
        Dialogue: 0,0:00:00.50,0:00:01.80,Top,,0,0,0,,{\\pos(60,40)}Placed top
        Dialogue: 0,0:00:01.00,0:00:01.90,Default,,0,0,0,,مرحبا بالعالم 你好世界

        """

    /// The frames of `file` decoded as the CLI decodes them, one raw yuv420p picture each (`filters` first if given).
    static func frames(_ file: String, filters: String? = nil, size: Int = 320 * 240 * 3 / 2) throws -> [[UInt8]] {
        let r = try Oracle.ffmpeg(["-v", "error", "-i", file, "-map", "0:v", "-fps_mode", "passthrough"]
                                  + (filters.map { ["-vf", $0] } ?? []) + ["-pix_fmt", "yuv420p", "-f", "rawvideo", "-"])
        try #require(r.status == 0, "\(r.stderr)")
        let bytes = [UInt8](r.stdout)
        return stride(from: 0, to: bytes.count - size + 1, by: size).map { Array(bytes[$0..<($0 + size)]) }
    }

    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        let mse = zip(a, b).reduce(0.0) { $0 + pow(Double($1.0) - Double($1.1), 2) } / Double(a.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    @Test("burned captions (ASS styles, colour, position, Arabic, CJK; a plain SRT) match the CLI's subtitles filter ≥ 40 dB on every frame",
          .enabled(if: FileManager.default.fileExists(atPath: "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"), "needs a CJK font (fonts-wqy-microhei)"))
    func burnedMatchesCLI() throws {
        let dir = try Oracle.scratch()
        let (plain, ass, srt) = (dir + "/plain.mov", try Self.write(Self.styled, dir + "/styled.ass"), try Self.write(Self.captionCues, dir + "/plain.srt"))
        let lossless = ["--crf", "0", "--smart", "off"]
        var r = try LayerTests.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", plain] + lossless)
        try #require(r.status == 0, "\(r.stderr)")
        for caption in [ass, srt] {
            let burned = dir + "/burned-\((caption as NSString).lastPathComponent).mov"
            r = try LayerTests.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", burned, "--captions", caption,
                                         "--burn-captions"] + lossless)
            try #require(r.status == 0, "\(r.stderr)")
            #expect(try Self.subtitleStreams(burned).isEmpty, "burned, not muxed")
            let (mine, cli, unburned) = (try Self.frames(burned), try Self.frames(plain, filters: "subtitles=\(caption)"), try Self.frames(plain))
            try #require(mine.count == 50 && cli.count == 50, "\(mine.count) and \(cli.count) frames")
            let worst = zip(mine, cli).map { Self.psnr($0, $1) }.min() ?? 0
            #expect(worst >= 40, "\(caption): the worst frame is \(worst) dB from the CLI's")
            // The captions are there: frames in a cue differ from the unburned picture, frames outside do not.
            #expect(mine[25] != unburned[25] && mine[2] == unburned[2])
        }
    }

    @Test("a style's font fontconfig does not have: burned in its fallback, which a warning names")
    func fontFallback() throws {
        let dir = try Oracle.scratch()
        let ass = try Self.write(Self.styled.replacingOccurrences(of: "Default,DejaVu Sans", with: "Default,No Such Font Family"), dir + "/odd.ass")
        let r = try LayerTests.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", dir + "/odd.mp4", "--captions", ass, "--burn-captions"])
        try #require(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("odd.ass: the font 'No Such Font Family' is not on this machine; fontconfig draws it in '"), "\(r.stderr)")
        #expect(!r.stderr.contains("'DejaVu Sans' is not"), "a font that is here is not named")
    }

    @Test("a picture subtitle track (DVB, from the corpus) is copied into Matroska as it is, and said and left out of MP4",
          .enabled(if: Oracle.corpus != nil, "MIXWRITE_CORPUS is not set: the DVB subtitles come from the corpus"))
    func pictureSubtitles() throws {
        let dir = try Oracle.scratch()
        let wtv = try #require(Oracle.corpus).appending("/corrupt/wtv_partial_2audio.wtv")
        let (dvb, base) = (dir + "/dvb.mkv", dir + "/base.mkv")
        try LayerTests.make(["-i", wtv, "-map", "0:s", "-c", "copy", dvb])
        try LayerTests.make(["-f", "lavfi", "-i", "testsrc=s=320x240:r=25:d=3", "-i", dvb, "-map", "0:v", "-map", "1:s", "-c:v", "libx264",
                             "-pix_fmt", "yuv420p", "-c:s", "copy", "-t", "3", base])
        func packets(_ file: String) throws -> [String] {
            try Oracle.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "s", "-show_entries", "packet=pts_time,size", "-of", "csv=p=0", file])
                .stdoutText.split(separator: "\n").map(String.init)
        }
        let (mkv, mp4) = (dir + "/out.mkv", dir + "/out.mp4")
        var r = try LayerTests.mixwrite([Oracle.fixture("fx.mov"), base, "-o", mkv])
        try #require(r.status == 0, "\(r.stderr)")
        #expect(try Self.subtitleStreams(mkv).map(\.codec) == ["dvb_subtitle"])
        let source = try packets(base)
        let copied = try packets(mkv)
        #expect(!source.isEmpty && copied == source, "the same packets at the same times")
        r = try LayerTests.mixwrite([Oracle.fixture("fx.mov"), base, "-o", mp4])
        try #require(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("dvb_subtitle, pictures a .mp4 cannot hold; left out (a .mkv keeps it)"), "\(r.stderr)")
        #expect(try Self.subtitleStreams(mp4).isEmpty)
    }

    @Test("smart rendering with a burned cue: GOPs the cue does not touch copied bit for bit, the cue's GOPs encoded with it")
    func smartBurn() throws {
        let dir = try Oracle.scratch()
        let (fx, base) = try SmartRenderTests.inputs(in: dir)
        let cue = try Self.write("1\n00:00:02,000 --> 00:00:02,300\nMiddle\n", dir + "/cue.srt")
        let out = dir + "/smart.mp4"
        let video = try SmartRenderTests.report(try LayerTests.mixwrite([fx, base, "-o", out, "--at", "0.5", "--out", "0.5",
                                                                          "--place", "0,0,80,60", "--captions", cue, "--burn-captions", "--json"]))
        // The layer (0.5–1 s) touches the GOPs of frames 10–29, the cue (2–2.3 s) the GOP of frames 60–69.
        #expect(SmartRenderTests.spans(video, "encodedSpans") == [[0.333, 1], [2, 2.333]], "\(video)")
        let (mine, theirs) = (try LayerTests.pictures(out), try LayerTests.pictures(base))
        try #require(mine.count == 120)
        for k in Array(0..<10) + Array(30..<60) + Array(70..<120) { #expect(mine[k] == theirs[k], "copied frame \(k)") }
        #expect(mine[60] != theirs[60] && mine[68] != theirs[68], "the cue is drawn on its frames")
        // Muxed, the cue touches no frame: the layer's GOPs alone are encoded, and the track is there.
        let muxed = dir + "/muxed.mp4"
        let kept = try SmartRenderTests.report(try LayerTests.mixwrite([fx, base, "-o", muxed, "--at", "0.5", "--out", "0.5",
                                                                         "--place", "0,0,80,60", "--captions", cue, "--json"]))
        #expect(SmartRenderTests.spans(kept, "encodedSpans") == [[0.333, 1]] && kept["copiedFrames"] as? Int == 100, "\(kept)")
        #expect(try Self.cues(muxed, track: 0) == [Cue(start: 2, end: 2.3, text: "Middle")])
    }

    /// base.mov with two chapters, a 01:00:00:00 timecode, a title, creation time, place and camera, and a subtitle
    /// track: what a phone or an editor writes.
    static func richBase(in dir: String) throws -> String {
        let srt = try write(baseCues, dir + "/rich.srt")
        let meta = try write(";FFMETADATA1\ntitle=Base film\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1000\ntitle=Opening\n"
                             + "[CHAPTER]\nTIMEBASE=1/1000\nSTART=1000\nEND=2000\ntitle=Close\n", dir + "/rich.txt")
        let movie = dir + "/rich.mov"
        try LayerTests.make(["-i", Oracle.fixture("base.mov"), "-i", srt, "-i", meta, "-map", "0", "-map", "1", "-map_metadata", "2",
                             "-map_chapters", "2", "-c", "copy", "-c:s", "mov_text", "-metadata:s:s:0", "language=eng", "-timecode", "01:00:00:00",
                             "-metadata", "creation_time=2024-05-01T10:00:00Z", "-metadata", "location=+48.8577+002.2950/",
                             "-metadata", "make=Apple", "-metadata", "model=iPhone 12", movie])
        return movie
    }

    /// ffprobe's format tags, the tmcd track's timecode and the chapters of `file`.
    static func tags(_ file: String) throws -> (format: [String: String], tmcd: String?, chapters: [String]) {
        let r = try Oracle.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format_tags:stream=codec_tag_string:stream_tags=timecode",
                                                    "-show_chapters", "-of", "json", file])
        let json = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        let format = ((json["format"] as? [String: Any])?["tags"] as? [String: String] ?? [:])
            .reduce(into: [String: String]()) { $0[$1.key.lowercased()] = $1.value }
        let tmcd = (json["streams"] as? [[String: Any]] ?? []).first { $0["codec_tag_string"] as? String == "tmcd" }
        let chapters = (json["chapters"] as? [[String: Any]] ?? []).map { c in
            "\((c["tags"] as? [String: String])?["title"] ?? "") \(c["start_time"] as? String ?? "")–\(c["end_time"] as? String ?? "")"
        }
        return (format, (tmcd?["tags"] as? [String: String])?["timecode"], chapters)
    }

    @Test("base's chapters, timecode (a tmcd track, moved on by --start), title, creation time, place and camera are kept; --title and --timecode set them")
    func metadataCarried() throws {
        let dir = try Oracle.scratch()
        let base = try Self.richBase(in: dir)
        let (whole, late, titled, joined) = (dir + "/whole.mp4", dir + "/late.mov", dir + "/titled.mkv", dir + "/joined.mov")
        for (out, extra) in [(whole, [String]()), (late, ["--start", "0.4"]), (titled, ["--title", "Cut 3", "--timecode", "10:00:00:00"])] {
            let r = try LayerTests.mixwrite([Oracle.fixture("fx.mov"), base, "-o", out] + extra)
            try #require(r.status == 0, "\(r.stderr)")
        }
        var t = try Self.tags(whole)
        #expect(t.tmcd == "01:00:00:00" && t.format["title"] == "Base film", "\(t)")
        #expect(t.format["creation_time"]?.hasPrefix("2024-05-01T10:00:00") == true && t.format["location"] == "+48.8577+002.2950/", "\(t)")
        #expect(t.format["make"] == "Apple" && t.format["model"] == "iPhone 12", "\(t)")
        #expect(t.chapters == ["Opening 0.000000–1.000000", "Close 1.000000–2.000000"], "\(t.chapters)")
        // 0.4 s at 25 fps is 10 frames on; an excerpt writes no chapters (as a concat's excerpt).
        t = try Self.tags(late)
        #expect(t.tmcd == "01:00:00:10" && t.chapters.isEmpty, "\(t)")
        t = try Self.tags(titled)
        #expect(t.format["title"] == "Cut 3" && t.format["timecode"] == "10:00:00:00", "Matroska's tags: \(t.format)")
        // Parts carry the whole movie's tags to the join.
        for k in 1...2 {
            let r = try LayerTests.mixwrite([Oracle.fixture("fx.mov"), base, "-o", joined, "--parts", "2", "--part", "\(k)"])
            try #require(r.status == 0, "\(r.stderr)")
        }
        let r = try Oracle.mixwrite(["join", joined])
        try #require(r.status == 0, "\(r.stderr)")
        t = try Self.tags(joined)
        #expect(t.tmcd == "01:00:00:00" && t.format["make"] == "Apple" && t.chapters.count == 2, "\(t)")
        let bad = try LayerTests.mixwrite([Oracle.fixture("fx.mov"), base, "-o", dir + "/bad.mp4", "--timecode", "1:00:00"])
        #expect(bad.status == 1 && bad.stderr.contains("--timecode"), "\(bad.stderr)")
    }

    @Test("a concat splits each clip's chapter at the clip's own chapters; each stem keeps its track's language and title, the mix is titled Mix")
    func chaptersAndStems() throws {
        let dir = try Oracle.scratch()
        let base = try Self.richBase(in: dir)
        let fx = dir + "/fx.mkv"
        try LayerTests.make(["-i", Oracle.fixture("fx.mov"), "-map", "0", "-c", "copy", "-metadata:s:a:0", "language=eng",
                             "-metadata:s:a:0", "title=Boom mic", "-metadata:s:a:1", "language=fra", "-metadata:s:a:1", "title=Lav", fx])
        let (cat, stems) = (dir + "/cat.mkv", dir + "/stems.mkv")
        var r = try LayerTests.mixwrite(["concat", Oracle.fixture("fx.mov"), base, "-o", cat])
        try #require(r.status == 0, "\(r.stderr)")
        #expect(try Self.tags(cat).chapters == ["fx.mov 0.000000–2.000000", "rich.mov: Opening 2.000000–3.000000", "rich.mov: Close 3.000000–4.000000"])
        r = try LayerTests.mixwrite([fx, base, "-o", stems, "--stems"])
        try #require(r.status == 0, "\(r.stderr)")
        let p = try Oracle.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries", "stream_tags=language,title",
                                                    "-of", "json", stems])
        let json = try #require(try JSONSerialization.jsonObject(with: p.stdout) as? [String: Any])
        let rows = (json["streams"] as? [[String: Any]] ?? []).map { ($0["tags"] as? [String: String]) ?? [:] }
        #expect(rows.map { $0["title"] } == ["Mix", "fx:1 Boom mic", "fx:2 Lav", "base:1"], "\(rows)")
        #expect(rows.map { $0["language"] } == [nil, "eng", "fra", nil], "\(rows)")
    }

    @Test("probe lists subtitle tracks with their cues, chapters and the start timecode")
    func probeLists() throws {
        let dir = try Oracle.scratch()
        let srt = try Self.write(Self.baseCues, dir + "/s.srt")
        let meta = try Self.write(";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1000\ntitle=Opening\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=1000\nEND=2000\ntitle=Close\n", dir + "/m.txt")
        let movie = dir + "/tagged.mov"
        try LayerTests.make(["-i", Oracle.fixture("base.mov"), "-i", srt, "-i", meta, "-map", "0", "-map", "1", "-map_chapters", "2",
                             "-c", "copy", "-c:s", "mov_text", "-metadata:s:s:0", "language=eng", "-timecode", "01:00:00:00", movie])
        let r = try Oracle.mixwrite(["probe", movie, "--json"])
        try #require(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [[String: Any]]).first
        let subtitle = (json?["streams"] as? [[String: Any]] ?? []).first { $0["kind"] as? String == "subtitle" }
        #expect(subtitle?["codec"] as? String == "mov_text" && subtitle?["cues"] as? Int == 2 && subtitle?["language"] as? String == "eng")
        #expect((json?["chapters"] as? [[String: Any]])?.map { $0["title"] as? String } == ["Opening", "Close"])
        #expect(json?["timecode"] as? String == "01:00:00:00")
    }
}
