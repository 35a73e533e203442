import Foundation
import Testing
import TestSupport

/// What a new user met on real footage and editors' files (each of these failed before it was fixed).
@Suite("What a new user met", .serialized)
struct NewUserTests {
    @Test("a track number that does not exist is refused, naming the tracks that do",
          arguments: [["--mute", "base:0"], ["--mute", "fx:3"], ["--gain", "base:9=-6"], ["--offset", "base:8=1"],
                      ["--duck", "fx:10"], ["--mute", "base:x"]])
    func missingTrack(_ option: [String]) throws {
        let dir = try Oracle.scratch()
        let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov")] + option + ["-o", dir + "/o.mov"])
        #expect(r.status == 1, "\(option): \(r.stderr)")
        let label = option[1].hasPrefix("fx") ? "fx:1 … fx:2" : "one audio track, base:1"
        #expect(r.stderr.contains("no such track") && r.stderr.contains(label), "\(option): \(r.stderr)")
        #expect(try Oracle.listing(dir).isEmpty)
    }

    @Test("PCM and FLAC keep a 192 kHz source at its rate; AAC and Opus name their own rates")
    func ownSampleRates() throws {
        let dir = try Oracle.scratch()
        let tone = dir + "/hi.wav"
        let t = try Oracle.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=f=30000:r=192000:d=1", "-c:a", "pcm_s24le", tone])
        try #require(t.status == 0, "\(t.stderr)")
        for (codec, ext) in [("pcm", "mov"), ("flac", "mkv")] {
            let out = "\(dir)/o-\(codec).\(ext)"
            let r = try Oracle.mixwrite(["remix", Oracle.fixture("base.mov"), "--audio", tone, "--audio-codec", codec,
                                         "--sample-rate", "192000", "-o", out])
            try #require(r.status == 0, "\(codec): \(r.stderr)")
            let a = try #require(try Oracle.probe(out).audio.first)
            #expect(a.sampleRate == 192_000, "\(codec): \(a)")
            // 30 kHz is above what 48 kHz can hold: heard only if the rate was kept.
            let samples = try Oracle.decodeAudio(out, rate: 192_000, channels: 1)
            #expect(Oracle.toneLevel(Array(samples[19_200..<172_800]), frequency: 30_000, rate: 192_000) > -30, "\(codec)")
        }
        for codec in ["aac", "opus"] {
            let r = try Oracle.mixwrite(["remix", Oracle.fixture("base.mov"), "--audio", tone, "--audio-codec", codec,
                                         "--sample-rate", "192000", "-o", dir + "/refused.mkv"])
            #expect(r.status == 1 && r.stderr.contains("\(codec) takes") && r.stderr.contains("48000"), "\(codec): \(r.stderr)")
        }
    }

    /// The mean of a region of the frame at `t` of `path`: (R, G, B) or, with `alpha`, the alpha plane's (0 … 1).
    static func regionMean(_ path: String, at t: Double, crop: String, alpha: Bool = false) throws -> [Double] {
        let filter = "crop=\(crop)" + (alpha ? ",alphaextract,format=gray" : ",format=rgb24")
        let r = try Oracle.ffmpeg(["-v", "error", "-ss", String(t), "-i", path, "-frames:v", "1", "-vf", filter,
                                   "-f", "rawvideo", "-"])
        let bytes = [UInt8](r.stdout)
        let n = alpha ? 1 : 3
        guard !bytes.isEmpty else { return [] }
        return (0..<n).map { c in
            stride(from: c, to: bytes.count, by: n).reduce(0.0) { $0 + Double(bytes[$1]) } / Double(bytes.count / n) / 255
        }
    }

    @Test("--key-color auto keeps a subject that appears only after the first frames")
    func keyColorLateSubject() throws {
        let dir = try Oracle.scratch()
        // An effect as stock effects are: the screen (the ARKit samples' 1EDB00) alone, then a white box from frame 20.
        let fx = dir + "/late.mov"
        let g = try Oracle.ffmpeg(["-v", "error", "-f", "lavfi", "-i",
                                   "color=c=0x1EDB00:s=320x240:d=2:r=30,format=yuv420p,"
                                       + "drawbox=x=100:y=80:w=120:h=80:color=white:t=fill:enable='gte(n,20)'",
                                   "-c:v", "libx264", "-crf", "10", fx])
        try #require(g.status == 0, "\(g.stderr)")
        let out = dir + "/o.mov"
        let r = try Oracle.mixwrite([fx, Oracle.fixture("base.mov"), "--key-color", "auto", "-o", out])
        try #require(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("its screen is 1EDB00; keyed as"), "\(r.stderr)")
        // The box is white over base, not base showing through it.
        let box = try Self.regionMean(out, at: 1.5, crop: "100:60:110:90")
        #expect(box.count == 3 && box.allSatisfy { $0 > 0.9 }, "\(box)")
    }

    @Test("--key-color auto keeps the corpus's diamonds (MIXWRITE_CORPUS)",
          .enabled(if: Oracle.corpus != nil, "MIXWRITE_CORPUS is not set: the corpus's green-screen clips are not run"))
    func keyColorCorpusDiamonds() throws {
        let corpus = try #require(Oracle.corpus)
        let dir = try Oracle.scratch()
        let fx = corpus + "/greenscreen/fx_diamond_gs_720p_aacST.mov"
        var alpha: [String: Double] = [:]
        for color in ["auto", "1EDB00"] {
            let out = "\(dir)/k-\(color).mov"
            let r = try Oracle.mixwrite(["key", fx, "--key-color", color, "-o", out])
            try #require(r.status == 0, "\(r.stderr)")
            alpha[color] = try Self.regionMean(out, at: 1.0, crop: "iw:ih:0:0", alpha: true).first
        }
        // The screen's own colour as the key takes the diamonds' whites with it; auto keeps them.
        let kept = try #require(alpha["auto"]), screen = try #require(alpha["1EDB00"])
        #expect(kept > 3 * screen && kept > 0.02, "auto \(kept), 1EDB00 \(screen)")
    }

    /// base.mov and fx.mov copied into `dir`, as an editor's media beside its timeline.
    static func media(in dir: String) throws {
        for name in ["base.mov", "fx.mov"] { try FileManager.default.copyItem(atPath: Oracle.fixture(name), toPath: dir + "/" + name) }
    }

    /// The mean level of the whole decoded sound of `path`, dB.
    static func level(_ path: String) throws -> Double {
        try Oracle.rms(Oracle.decodeAudio(path, channels: 1)[...])
    }

    @Test("an EDL as editors write it (from 01:00:00:00, a dissolve, an AA pair) renders; the pair's sound is mixed once",
          .enabled(if: RenderTests.hasAdapters, "python3's opentimelineio is not installed with its adapters (scripts/install-deps.sh test installs them)"))
    func edlFromHourOne() throws {
        let dir = try Oracle.scratch()
        try Self.media(in: dir)
        let edl = dir + "/real.edl"
        try Data("""
        TITLE: Real Export
        FCM: NON-DROP FRAME

        001  base     V     C        00:00:00:00 00:00:01:00 01:00:00:00 01:00:01:00
        * FROM CLIP NAME: base.mov
        002  base     V     C        00:00:01:00 00:00:01:00 01:00:01:00 01:00:01:00
        002  base     V     D    012 00:00:01:00 00:00:02:00 01:00:01:00 01:00:02:00
        * FROM CLIP NAME: base.mov
        * TO CLIP NAME: base.mov
        003  base     AA    C        00:00:00:00 00:00:02:00 01:00:00:00 01:00:02:00
        * FROM CLIP NAME: base.mov

        """.utf8).write(to: URL(fileURLWithPath: edl))
        let out = dir + "/real.mp4"
        let r = try Oracle.mixwrite(["render", edl, "-o", out, "--fps", "24", "--progress", "none"], timeout: 120)
        try #require(r.status == 0, "\(r.stderr)")
        let p = try Oracle.probe(out)
        #expect(p.video.first?.frames == 48 && p.audio.count == 1, "the EDL's 2 s at 24 fps: \(p.streams)")
        #expect(r.stderr.contains("mixed once"), "\(r.stderr)")
        // A1 and A2 hold the same sound at the same time: it is heard at its own level, not 6 dB over it.
        let (mine, own) = (try Self.level(out), try Self.level(Oracle.fixture("base.mov")))
        #expect(abs(mine - own) < 0.5, "the pair at \(mine) dB, base.mov at \(own) dB")
    }

    @Test("a timeline track that names one of a file's audio tracks takes that one, once",
          .enabled(if: Oracle.hasOTIO, "python3's opentimelineio is not installed (scripts/install-deps.sh test installs it)"))
    func namedSourceTrack() throws {
        let dir = try Oracle.scratch()
        // fx.mov's tracks: 440 Hz (1) and 1000 Hz (2). A1 and A2 name track 2, as an export that puts one source track
        // on each timeline track names it; V1's picture is linked to them (no sound of its own).
        let (otio, _) = try RenderTests.timeline(dir, "named", """
        v = track("V1", V); a1 = track("A1", A); a2 = track("A2", A); tl.tracks.extend([v, a1, a2])
        v.append(clip("v", "\(RenderTests.fx)", 0, 50))
        a1.append(clip("a", "\(RenderTests.fx)", 0, 50, {"track": 2}))
        a2.append(clip("b", "\(RenderTests.fx)", 0, 50, {"track": 2}))
        """)
        let out = dir + "/named.mp4"
        let r = try Oracle.mixwrite(["render", otio, "-o", out, "--progress", "none"], timeout: 120)
        try #require(r.status == 0, "\(r.stderr)")
        let s = try Oracle.decodeAudio(out, channels: 2)
        let (t440, t1000) = (RenderTests.tone(s, 440, 0.2, 1.8), RenderTests.tone(s, 1000, 0.2, 1.8))
        #expect(t440 < -50, "track 1 left out: \(t440) dB")
        #expect(abs(t1000 - 20 * log10(0.25)) < 1, "track 2 at its own level, once: \(t1000) dB")
    }

    /// An FCP X library export (`<library><event><project>`), its projects `names`: base with fx connected above it
    /// from 0.5 s for 1 s, a marker at 1 s.
    static func fcpxLibrary(_ dir: String, projects names: [String]) throws -> String {
        let projects = names.map { name in """
                    <project name="\(name)" uid="66666666-7777-8888-9999-\(String(name.count * 111_111_111_111).prefix(12))" modDate="2026-12-06 10:00:00 +0000">
                        <sequence format="r1" duration="2s" tcStart="0s" tcFormat="NDF" audioLayout="stereo" audioRate="48k">
                            <spine>
                                <asset-clip ref="r2" offset="0s" name="base" duration="2s" format="r1" tcFormat="NDF">
                                    <asset-clip ref="r3" lane="1" offset="1/2s" name="fx" duration="1s" format="r1" tcFormat="NDF"/>
                                    <marker start="1s" duration="100/3000s" value="Halfway"/>
                                </asset-clip>
                            </spine>
                        </sequence>
                    </project>
        """ }.joined(separator: "\n")
        let path = dir + "/Library.fcpxml"
        try Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE fcpxml>
        <fcpxml version="1.8">
            <resources>
                <format id="r1" name="FFVideoFormat720p30" frameDuration="100/3000s" width="320" height="240" colorSpace="1-1-1 (Rec. 709)"/>
                <asset id="r2" name="base" uid="A1B2C3D4E5F60718293A4B5C6D7E8F90" src="file://\(dir)/base.mov" start="0s" duration="2s" hasVideo="1" format="r1" hasAudio="1" audioSources="1" audioChannels="2" audioRate="48000"/>
                <asset id="r3" name="fx" uid="0F1E2D3C4B5A69788796A5B4C3D2E1F0" src="file://\(dir)/fx.mov" start="0s" duration="2s" hasVideo="1" format="r1" hasAudio="1" audioSources="2" audioChannels="2" audioRate="48000"/>
            </resources>
            <library location="file:///Users/editor/Movies/Untitled.fcpbundle/">
                <event name="12-6-26" uid="11111111-2222-3333-4444-555555555555">
        \(projects)
                </event>
                <smart-collection name="Projects" match="all">
                    <match-clip rule="is" type="project"/>
                </smart-collection>
            </library>
        </fcpxml>

        """.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("a Final Cut Pro X library export renders its one project; of several, the one --timeline-name names",
          .enabled(if: RenderTests.hasAdapters, "python3's opentimelineio is not installed with its adapters (scripts/install-deps.sh test installs them)"))
    func fcpxLibrary() throws {
        let dir = try Oracle.scratch()
        try Self.media(in: dir)
        let one = try Self.fcpxLibrary(dir, projects: ["Cut 1"])
        let out = dir + "/one.mp4"
        let r = try Oracle.mixwrite(["render", one, "-o", out, "--progress", "none"], timeout: 120)
        try #require(r.status == 0, "\(r.stderr)")
        let p = try Oracle.probe(out)
        #expect(p.video.first?.frames == 60 && p.chapters.map(\.title).contains("Halfway"), "\(p.streams) \(p.chapters)")
        // The connected clip is over base from 0.5 s to 1.5 s: fx's green at 1 s, base's picture at 0.2 s.
        let at1 = try Self.regionMean(out, at: 1.0, crop: "40:40:0:0"), at0 = try Self.regionMean(out, at: 0.2, crop: "40:40:0:0")
        #expect(at1.count == 3 && at1[1] > at1[0] + 0.3, "fx at 1 s: \(at1)")
        #expect(at0 != at1, "base at 0.2 s: \(at0)")

        let two = try Self.fcpxLibrary(dir, projects: ["Cut 1", "Cut 2"])
        let refused = try Oracle.mixwrite(["render", two, "-o", dir + "/x.mp4"], timeout: 60)
        #expect(refused.status == 1 && refused.stderr.contains("'Cut 1', 'Cut 2'") && refused.stderr.contains("--timeline-name"), "\(refused.stderr)")
        let named = try Oracle.mixwrite(["render", two, "--timeline-name", "Cut 2", "-o", dir + "/two.mp4", "--progress", "none"], timeout: 120)
        #expect(named.status == 0, "\(named.stderr)")
        let missing = try Oracle.mixwrite(["render", two, "--timeline-name", "Cut 3", "-o", dir + "/y.mp4"], timeout: 60)
        #expect(missing.status == 1 && missing.stderr.contains("no timeline named 'Cut 3'"), "\(missing.stderr)")
        #expect(try !Oracle.listing(dir).contains { $0 == "x.mp4" || $0 == "y.mp4" })
    }

    @Test("a Premiere / Final Cut Pro 7 XML clip's sourcetrack takes that audio track of its file alone",
          .enabled(if: Self.hasFCP7, "python3's opentimelineio is not installed with otio-fcp-adapter (scripts/install-deps.sh test installs it)"))
    func fcp7SourceTrack() throws {
        let dir = try Oracle.scratch()
        // fx.mov on V1, and on A1 its audio track 2 (1000 Hz) alone, as Premiere writes a clip's source track.
        let xml = dir + "/cut.xml"
        try Data("""
        <?xml version="1.0" ?>
        <xmeml version="4">
            <project>
                <name>x</name>
                <children>
                    <sequence id="sequence-1">
                        <name>x</name>
                        <duration>50</duration>
                        <rate>
                            <timebase>25</timebase>
                            <ntsc>FALSE</ntsc>
                        </rate>
                        <media>
                            <video>
                                <format/>
                                <track>
                                    <clipitem frameBlend="FALSE" id="clipitem-1">
                                        <file id="file-1">
                                            <pathurl>file://\(RenderTests.fx)</pathurl>
                                            <name>fx.mov</name>
                                            <rate>
                                                <timebase>25</timebase>
                                                <ntsc>FALSE</ntsc>
                                            </rate>
                                            <duration>50</duration>
                                            <timecode>
                                                <rate>
                                                    <timebase>25</timebase>
                                                    <ntsc>FALSE</ntsc>
                                                </rate>
                                                <string>00:00:00:00</string>
                                                <frame>0</frame>
                                                <displayformat>NDF</displayformat>
                                            </timecode>
                                            <media>
                                                <video/>
                                                <audio/>
                                            </media>
                                        </file>
                                        <name>fx</name>
                                        <rate>
                                            <timebase>25</timebase>
                                            <ntsc>FALSE</ntsc>
                                        </rate>
                                        <rate>
                                            <timebase>25</timebase>
                                            <ntsc>FALSE</ntsc>
                                        </rate>
                                        <duration>50</duration>
                                        <start>0</start>
                                        <end>50</end>
                                        <in>0</in>
                                        <out>50</out>
                                    </clipitem>
                                </track>
                            </video>
                            <audio>
                                <track>
                                    <clipitem id="clipitem-2">
                                        <name>fx</name>
                                        <duration>50</duration>
                                        <rate>
                                            <timebase>25</timebase>
                                            <ntsc>FALSE</ntsc>
                                        </rate>
                                        <start>0</start>
                                        <end>50</end>
                                        <in>0</in>
                                        <out>50</out>
                                        <file id="file-1"/>
                                        <sourcetrack>
                                            <mediatype>audio</mediatype>
                                            <trackindex>2</trackindex>
                                        </sourcetrack>
                                    </clipitem>
                                </track>
                            </audio>
                        </media>
                    </sequence>
                </children>
            </project>
        </xmeml>

        """.utf8).write(to: URL(fileURLWithPath: xml))
        let out = dir + "/cut.mp4"
        let r = try Oracle.mixwrite(["render", xml, "-o", out, "--progress", "none"], timeout: 120)
        try #require(r.status == 0, "\(r.stderr)")
        let s = try Oracle.decodeAudio(out, channels: 2)
        let (t440, t1000) = (RenderTests.tone(s, 440, 0.2, 1.8), RenderTests.tone(s, 1000, 0.2, 1.8))
        #expect(t440 < -50 && abs(t1000 - 20 * log10(0.25)) < 1, "440 Hz at \(t440) dB, 1000 Hz at \(t1000) dB")
    }

    static let hasFCP7: Bool = {
        (try? Oracle.run("/usr/bin/env", ["python3", "-c", "import opentimelineio as o; o.adapters.from_name('fcp_xml')"]).status) == 0
    }()

    /// A job file `jobs` beside copies of the fixtures, its outputs under `out/`; the folder.
    static func jobs(_ jobs: String, name: String = #function) throws -> String {
        let dir = try Oracle.scratch(name)
        try Self.media(in: dir)
        try Data(jobs.utf8).write(to: URL(fileURLWithPath: dir + "/jobs.json"))
        return dir
    }

    /// The statuses of a `batch --json` run's jobs, in order.
    static func statuses(_ r: Oracle.Result) -> [String] {
        ((try? JSONSerialization.jsonObject(with: r.stdout)) as? [[String: Any]] ?? []).map { $0["status"] as? String ?? "?" }
    }

    @Test("a job that reads another's output waits for it under --jobs 2, and is in its shard; a failed maker is named")
    func dependentJobs() throws {
        // The README's case: a concat of a blend's output (written the other way round in the file, and its path
        // spelt another way).
        let dir = try Self.jobs("""
        {"jobs": [
          {"kind": "concat", "clips": ["out/../out/street.mov", "base.mov"], "output": "out/show.mp4"},
          {"kind": "remix", "movie": "base.mov", "output": "out/other.mov"},
          {"kind": "blend", "fx": "fx.mov", "base": "base.mov", "output": "out/street.mov"}
        ]}
        """)
        let r = try Oracle.mixwrite(["batch", dir + "/jobs.json", "--jobs", "2", "--json", "--progress", "none"])
        #expect(r.status == 0 && Self.statuses(r) == ["done", "done", "done"], "\(r.stderr)")
        #expect(abs((try Oracle.probe(dir + "/out/show.mp4").duration ?? 0) - 4) < 0.05, "the blend's 2 s and base's 2 s")

        // Shards: the concat and the blend it reads are one share's (the first's, where the concat falls), both run.
        try FileManager.default.removeItem(atPath: dir + "/out")
        var ran: [String] = []
        for k in [3, 2, 1] {
            let s = try Oracle.mixwrite(["batch", dir + "/jobs.json", "--shard", "\(k)/3", "--jobs", "2", "--json", "--progress", "none"])
            #expect(s.status == 0, "shard \(k): \(s.stderr)")
            ran += ((try? JSONSerialization.jsonObject(with: s.stdout)) as? [[String: Any]] ?? []).map { "\(k):\($0["index"] as? Int ?? -1)" }
        }
        #expect(ran.sorted() == ["1:0", "1:2", "2:1"], "\(ran)")

        // A maker that fails: the job reading its output is not run, and says why.
        let failing = try Self.jobs("""
        {"jobs": [
          {"kind": "blend", "fx": "missing.mov", "base": "base.mov", "output": "out/street.mov"},
          {"kind": "concat", "clips": ["out/street.mov", "base.mov"], "output": "out/show.mp4"}
        ]}
        """, name: "failingMaker")
        let f = try Oracle.mixwrite(["batch", failing + "/jobs.json", "--jobs", "2", "--json", "--progress", "none"])
        #expect(f.status == 2 && Self.statuses(f) == ["failed", "failed"], "\(f.stderr)")
        #expect(f.stderr.contains("job 1: ") && f.stderr.contains("job 0, which writes it, failed"), "\(f.stderr)")

        // Reading a job with parts (its output exists only once joined), or each other's outputs: refused unrun.
        let refused = try Self.jobs("""
        {"jobs": [
          {"kind": "blend", "fx": "fx.mov", "base": "base.mov", "output": "out/a.mov", "parts": 2},
          {"kind": "concat", "clips": ["out/a.mov"], "output": "out/b.mp4"},
          {"kind": "concat", "clips": ["out/d.mp4"], "output": "out/c.mp4"},
          {"kind": "concat", "clips": ["out/c.mp4"], "output": "out/d.mp4"}
        ]}
        """, name: "refusedOrder")
        let o = try Oracle.mixwrite(["batch", refused + "/jobs.json", "--jobs", "2", "--json", "--progress", "none"])
        #expect(Self.statuses(o) == ["done", "done", "failed", "failed", "failed", "done"] && o.status == 1, "\(o.stderr) \(Self.statuses(o))")
        #expect(o.stderr.contains("made only") || o.stderr.contains("make only when joined"), "\(o.stderr)")
        #expect(o.stderr.contains("a cycle"), "\(o.stderr)")
    }

    @Test("ProRes in .mkv names its profile (its fourcc), as the CLI's prores_ks there does", arguments: [("lt", "apcs", "LT"), ("4444", "ap4h", "4444")])
    func proResInMatroska(_ profile: String, _ tag: String, _ name: String) throws {
        let dir = try Oracle.scratch("\(#function)-\(profile)")
        let out = dir + "/o.mkv"
        let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "--codec", "prores", "--prores-profile", profile,
                                     "--length", "0.5", "-o", out])
        try #require(r.status == 0, "\(r.stderr)")
        let v = try #require(try Oracle.probe(out).video.first)
        #expect(v.raw["codec_tag_string"] == tag && v.raw["profile"] == name, "\(v.raw)")
    }

    @Test("an --offset that starts a source after the output's end is refused, as --at is")
    func offsetPastTheEnd() throws {
        let dir = try Oracle.scratch()
        for offset in ["audio1=5", "fx:2=2"] {
            let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "--audio", Oracle.fixture("tone.m4a"),
                                         "--offset", offset, "-o", dir + "/o.mov"])
            #expect(r.status == 1 && r.stderr.contains("--offset \(offset): ") && r.stderr.contains("past the output's end (2 s)"), "\(r.stderr)")
        }
        #expect(try Oracle.listing(dir).isEmpty)
    }

    @Test(".m4a and .mka from a movie: its sound alone; a blend to .m4a is told why not")
    func soundOnlyOutput() throws {
        let dir = try Oracle.scratch()
        for ext in ["m4a", "mka"] {
            let out = "\(dir)/sound.\(ext)"
            let r = try Oracle.mixwrite(["remix", Oracle.fixture("fx.mov"), "-o", out])
            try #require(r.status == 0, "\(r.stderr)")
            let p = try Oracle.probe(out)
            #expect(p.video.isEmpty && p.audio.count == 1 && abs((p.duration ?? 0) - 2) < 0.05, "\(p.streams)")
            // Both of fx's tracks are in it: 440 Hz and 1000 Hz.
            let s = try Oracle.decodeAudio(out, channels: 2)
            #expect(RenderTests.tone(s, 440, 0.2, 1.8) > -20 && RenderTests.tone(s, 1000, 0.2, 1.8) > -20)
        }
        let b = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", dir + "/x.m4a"])
        #expect(b.status == 1 && b.stderr.contains("holds sound only"), "\(b.stderr)")
    }

    @Test("render names the media file in a damaged-packet warning, as concat does",
          .enabled(if: Oracle.hasOTIO, "python3's opentimelineio is not installed (scripts/install-deps.sh test installs it)"))
    func renderNamesDamage() throws {
        let dir = try Oracle.scratch()
        let damaged = try ReliabilityTests.damagedCopies(dir, count: 3, seed: 7)[2]   // tone.m4a, bit flips: decodes with damage
        let (otio, _) = try RenderTests.timeline(dir, "damaged", """
        v = track("V1", V); a = track("A1", A); tl.tracks.extend([v, a])
        v.append(clip("v", "\(RenderTests.base)", 0, 50)); a.append(clip("a", "\(damaged)", 0, 50))
        """)
        let r = try Oracle.mixwrite(["render", otio, "-o", dir + "/o.mp4", "--json", "--progress", "none"], timeout: 120)
        try #require(r.status == 0, "\(r.stderr)")
        let report = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any]
        let count = report?["damagedPackets"] as? Int ?? 0
        let line = (report?["warnings"] as? [String] ?? []).first { $0.contains("damaged") } ?? ""
        #expect(count > 0 && line.hasPrefix(damaged + ": \(count) damaged packet") && line.contains("(the first near "), "\(count): \(line)")
    }

    @Test("bash completion reads names as typed: an escaped space, an open quote, ~/")
    func bashCompletionAsTyped() throws {
        let dir = try Oracle.scratch()
        for name in ["clip one.mov", "clip two.mov", "other.mov"] { try Data().write(to: URL(fileURLWithPath: dir + "/" + name)) }
        let script = dir + "/mixwrite.bash"
        try Oracle.mixwrite(["--generate-completion-script", "bash"]).stdout.write(to: URL(fileURLWithPath: script))
        // The last word as bash has it in COMP_WORDS when it is typed so (HOME is the folder, for ~/).
        let cases: [(String, [String])] = [
            (dir + "/clip\\ o", [dir + "/clip one.mov"]),
            ("\"" + dir + "/clip o", [dir + "/clip one.mov"]),
            ("'" + dir + "/clip t", [dir + "/clip two.mov"]),
            ("~/clip\\ ", ["~/clip one.mov", "~/clip two.mov"]),
            ("~/oth", ["~/other.mov"]),
        ]
        var harness = "source \(script)\n"
        for (typed, _) in cases {
            let quoted = "'" + typed.replacingOccurrences(of: "'", with: "'\\''") + "'"
            harness += "COMP_WORDS=('\(Oracle.mixwrite)' concat \(quoted)); COMP_CWORD=2; COMPREPLY=()\n"
            harness += "_mixwrite mixwrite \"${COMP_WORDS[2]}\" concat; IFS='|'; echo \"${COMPREPLY[*]}\"; unset IFS\n"
        }
        let r = try Oracle.run("/bin/bash", ["-c", harness], environment: ["HOME": dir, "PATH": "/usr/bin:/bin"])
        try #require(r.status == 0, "\(r.stderr)")
        let lines = r.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (i, (typed, expected)) in cases.enumerated() {
            let got = i < lines.count ? lines[i].split(separator: "|").map(String.init) : ["(no line)"]
            #expect(got == expected, "mixwrite concat \(typed)<TAB>: \(got), expected \(expected)")
        }
    }

    @Test("wording: an odd --size refused, probe -q, an ImageSequenceReference, a render's layer named as its clip",
          .enabled(if: Oracle.hasOTIO, "python3's opentimelineio is not installed (scripts/install-deps.sh test installs it)"))
    func wording() throws {
        let dir = try Oracle.scratch()
        let odd = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "--size", "320x241", "-o", dir + "/o.mp4"])
        #expect(odd.status == 1 && odd.stderr.contains("--size 320x241: a width and height must be even") && odd.stderr.contains("320x240"),
                "\(odd.stderr)")
        let quiet = try Oracle.mixwrite(["probe", "-q", Oracle.fixture("fx.mov")])
        #expect(quiet.status == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty, "\(quiet.stderr)")
        let missing = try Oracle.mixwrite(["probe", "-q", Oracle.fixture("fx.mov"), dir + "/nothing.mov"])
        #expect(missing.status == 2 && missing.stdout.isEmpty && missing.stderr == "mixwrite: error: \(dir)/nothing.mov: no such file\n",
                "\(missing.stderr)")

        let (images, _) = try RenderTests.timeline(dir, "images", """
        v = track("V1", V); tl.tracks.append(v)
        s = otio.schema.ImageSequenceReference(target_url_base="\(dir)/", name_prefix="a", name_suffix=".png", start_frame=1, rate=25)
        v.append(otio.schema.Clip(name="img", media_reference=s, source_range=R(0, 10)))
        """)
        let i = try Oracle.mixwrite(["render", images, "-o", dir + "/i.mp4"])
        #expect(i.status == 1 && i.stderr.contains("is an ImageSequenceReference"), "\(i.stderr)")

        // A key option that does nothing the way the clip is laid: said of the clip, in its metadata's words.
        let (layered, _) = try RenderTests.timeline(dir, "layered", """
        v = track("V1", V); v2 = track("V2", V); tl.tracks.extend([v, v2])
        v.append(clip("b", "\(RenderTests.base)", 0, 25)); v2.append(clip("f", "\(RenderTests.fx)", 0, 25, {"key": "none", "threshold": 0.3}))
        """)
        let l = try Oracle.mixwrite(["render", layered, "-o", dir + "/l.mp4", "--progress", "none"])
        #expect(l.status == 0 && l.stderr.contains("clip 'f' (1 on V2): metadata.mixwrite: the clip is laid as it is (key none), so threshold does nothing"),
                "\(l.stderr)")
        #expect(!l.stderr.contains("fx"), "\(l.stderr)")
    }
}
