import Foundation
import Testing
import TestSupport

/// Surround kept (`--channels 5.1|7.1|auto`): each source's channels at their places in the output's layout, a stereo
/// source on the front pair, a mono one in the centre, the layout tagged in every container; stems in their own
/// layouts. Read back by the CLI's decode, channel by channel: each channel's tones (Goertzel) and the whole against
/// the CLI's own `pan` + `amix` of the same sources.
@Suite("surround: 5.1 and 7.1 mixes, every channel in its place")
struct SurroundTests {
    /// A source of `layout` whose channel k is a tone of `tones[k]` Hz, 1 s, made by the CLI (`amerge`), as FLAC.
    static func source(_ tones: [Int], layout: String, in dir: String, name: String) throws -> String {
        let out = dir + "/\(name).mka"
        var args: [String] = []
        for f in tones { args += ["-f", "lavfi", "-i", "sine=f=\(f):d=1"] }
        let inputs = tones.indices.map { "[\($0)]" }.joined()
        let merge = tones.count == 1 ? "[0]anull[a]" : "\(inputs)amerge=inputs=\(tones.count),aformat=channel_layouts=\(layout)[a]"
        try LayerTests.make(args + ["-filter_complex", merge, "-map", "[a]", "-c:a", "flac", out])
        return out
    }

    /// The decoded audio track `track` of `file`, one array a channel.
    static func channels(_ file: String, track: Int = 0) throws -> [[Float]] {
        let probe = try Oracle.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "a:\(track)", "-show_entries", "stream=channels",
                                                        "-of", "csv=p=0", file])
        let n = try #require(Int(probe.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)))
        let samples = try Oracle.decodeAudio(file, stream: "0:a:\(track)", channels: n)
        return (0..<n).map { Oracle.channel(samples, $0, of: n) }
    }

    /// ffprobe's channel layout of each audio track.
    static func layouts(_ file: String) throws -> [String] {
        try Oracle.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries", "stream=channel_layout", "-of", "csv=p=0", file])
            .stdoutText.split(separator: "\n").map(String.init)
    }

    /// Each channel holds its own tones at about their level, and none of the others.
    static func expectTones(_ channels: [[Float]], _ expected: [[Int]], all: [Int], _ what: String) {
        for (k, own) in expected.enumerated() {
            let body = Array(channels[k][4800..<min(channels[k].count, 43200)])
            for f in all {
                let level = Oracle.toneLevel(body, frequency: Double(f))
                if own.contains(f) {
                    #expect(level > -24, "\(what): channel \(k) should hold \(f) Hz: \(level) dB")
                } else {
                    #expect(level < -60, "\(what): channel \(k) should not hold \(f) Hz: \(level) dB")
                }
            }
        }
    }

    static let side51 = [300, 500, 700, 90, 1100, 1300]

    @Test("--channels 5.1: a 5.1(side) source at its places, a stereo one on the front pair, a mono one in the centre; as the CLI's pan and amix, channel by channel; tagged 5.1 in MOV, MP4, Matroska (FLAC) and WebM (Opus)")
    func fivePointOne() throws {
        let dir = try Oracle.scratch()
        let s51 = try Self.source(Self.side51, layout: "5.1(side)", in: dir, name: "s51")
        let st = try Self.source([1700, 1900], layout: "stereo", in: dir, name: "st")
        let mono = try Self.source([2300], layout: "mono", in: dir, name: "mono")
        let sounds = ["--audio", s51, "--audio", st, "--audio", mono, "--channels", "5.1"]
        let pcm = dir + "/pcm.mov"
        let r = try LayerTests.mixwrite(["concat", Oracle.fixture("noaudio.mov"), "-o", pcm, "--audio-codec", "pcm"] + sounds)
        try #require(r.status == 0, "\(r.stderr)")
        let mine = try Self.channels(pcm)
        try #require(mine.count == 6)
        // FL FR FC LFE BL BR: the side pair of 5.1(side) is 5.1's back pair.
        Self.expectTones(mine, [[300, 1700], [500, 1900], [700, 2300], [90], [1100], [1300]], all: Self.side51 + [1700, 1900, 2300], "5.1")
        let reference = dir + "/cli.wav"
        try LayerTests.make(["-i", s51, "-i", st, "-i", mono, "-filter_complex",
                             "[0]aresample=48000,pan=5.1|FL=c0|FR=c1|FC=c2|LFE=c3|BL=c4|BR=c5[a];[1]aresample=48000,pan=5.1|FL=c0|FR=c1[b];"
                                + "[2]aresample=48000,pan=5.1|FC=c0[c];[a][b][c]amix=inputs=3:normalize=0[o]",
                             "-map", "[o]", "-c:a", "pcm_f32le", reference])
        let cli = try Self.channels(reference)
        for k in 0..<6 {
            let n = min(mine[k].count, cli[k].count)
            let signal = cli[k][..<n].reduce(0.0) { $0 + Double($1 * $1) }
            let noise = zip(mine[k][..<n], cli[k][..<n]).reduce(0.0) { $0 + Double(($1.0 - $1.1) * ($1.0 - $1.1)) }
            let snr = 10 * log10(signal / max(noise, 1e-30))
            #expect(snr > 40, "channel \(k): \(snr) dB from the CLI's pan + amix")
        }
        for (name, codec, extra) in [("aac.mp4", "aac", [String]()), ("flac.mkv", "flac", []), ("opus.webm", "opus", ["--codec", "vp9"])] {
            let out = dir + "/" + name
            let run = try LayerTests.mixwrite(["concat", Oracle.fixture("noaudio.mov"), "-o", out, "--audio-codec", codec] + sounds + extra)
            try #require(run.status == 0, "\(run.stderr)")
            #expect(try Self.layouts(out) == ["5.1"], "\(name)")
            Self.expectTones(try Self.channels(out), [[300, 1700], [500, 1900], [700, 2300], [90], [1100], [1300]],
                             all: Self.side51 + [1700, 1900, 2300], name)
        }
    }

    @Test("--channels auto takes the widest layout (a 7.1 source: 7.1, its side pair kept); without --channels a 5.1 source folds to stereo as before")
    func autoAndDefault() throws {
        let dir = try Oracle.scratch()
        let s71 = try Self.source(Self.side51 + [1500, 2500], layout: "7.1", in: dir, name: "s71")
        let st = try Self.source([1700, 1900], layout: "stereo", in: dir, name: "st")
        let (wide, folded) = (dir + "/wide.mp4", dir + "/folded.mp4")
        var r = try LayerTests.mixwrite(["concat", Oracle.fixture("noaudio.mov"), "-o", wide, "--audio", s71, "--audio", st, "--channels", "auto", "--json"])
        try #require(r.status == 0, "\(r.stderr)")
        #expect(try Self.layouts(wide) == ["7.1"])
        let all = Self.side51 + [1500, 2500, 1700, 1900]
        Self.expectTones(try Self.channels(wide), [[300, 1700], [500, 1900], [700], [90], [1100], [1300], [1500], [2500]], all: all, "7.1")
        let routes = ((try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])?["audio"] as? [String: Any])?["sources"] as? [[String: Any]]
        #expect((routes?.last?["route"] as? String)?.contains("stereo to the front pair") == true, "\(routes ?? [])")
        r = try LayerTests.mixwrite(["concat", Oracle.fixture("noaudio.mov"), "-o", folded, "--audio", s71])
        try #require(r.status == 0, "\(r.stderr)")
        #expect(try Self.layouts(folded) == ["stereo"])
    }

    @Test("a 5.1 mix's stems keep their sources' own layouts: 5.1, stereo, mono, each with its own tones")
    func stemsInOwnLayouts() throws {
        let dir = try Oracle.scratch()
        let s51 = try Self.source(Self.side51, layout: "5.1(side)", in: dir, name: "s51")
        let st = try Self.source([1700, 1900], layout: "stereo", in: dir, name: "st")
        let mono = try Self.source([2300], layout: "mono", in: dir, name: "mono")
        let out = dir + "/stems.mov"
        let r = try LayerTests.mixwrite(["concat", Oracle.fixture("noaudio.mov"), "-o", out, "--audio", s51, "--audio", st, "--audio", mono,
                                         "--channels", "5.1", "--stems"])
        try #require(r.status == 0, "\(r.stderr)")
        #expect(try Self.layouts(out) == ["5.1", "5.1", "stereo", "mono"])
        let all = Self.side51 + [1700, 1900, 2300]
        Self.expectTones(try Self.channels(out, track: 2), [[1700], [1900]], all: all, "the stereo stem")
        Self.expectTones(try Self.channels(out, track: 3), [[2300]], all: all, "the mono stem")
    }
}
