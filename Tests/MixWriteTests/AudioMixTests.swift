import Foundation
import Testing
import TestSupport

/// The audio mix: every source, each at its own level, never clipped, exactly as long as the video.
@Suite("audio mix and remix")
struct AudioMixTests {
    /// Makes a tone file with the ffmpeg CLI: `expr` per channel (aevalsrc syntax), `seconds` long.
    static func tone(_ dir: String, _ name: String, _ expr: String, rate: Int = 48000, layout: String = "stereo",
                     seconds: Double = 2) throws -> String {
        let path = dir + "/" + name
        let r = try Oracle.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i",
                                   "aevalsrc=\(expr):s=\(rate):c=\(layout):d=\(seconds)", path])
        guard r.status == 0 else { throw OracleError("making \(name): \(r.stderr)") }
        return path
    }

    static func sine(_ amplitude: Double, _ frequency: Double) -> String { "\(amplitude)*sin(2*PI*\(frequency)*t)" }

    /// Samples of the decoded output between `from` and `to` seconds, one channel.
    static func span(_ samples: [Float], _ from: Double, _ to: Double, rate: Int = 48000) -> [Float] {
        Array(samples[Int(from * Double(rate))..<min(samples.count, Int(to * Double(rate)))])
    }

    @Test("two near-full-scale sources: equal levels, peaks at or under -1 dBFS")
    func fullScaleSourcesAreLimited() throws {
        let dir = try Oracle.scratch()
        let a = try Self.tone(dir, "a.wav", Self.sine(0.99, 500) + "|" + Self.sine(0.99, 500))
        let b = try Self.tone(dir, "b.wav", Self.sine(0.99, 700), rate: 44100, layout: "mono")
        let out = dir + "/mix.m4a"
        let r = try Oracle.mixwrite(["remix", a, "--audio", b, "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        let mix = try Oracle.decodeAudio(out)
        #expect(Oracle.peak(mix) <= -1.0, "peak \(Oracle.peak(mix)) dBFS")
        let left = Self.span(Oracle.channel(mix, 0, of: 2), 0.2, 1.8)
        let l500 = Oracle.toneLevel(left, frequency: 500), l700 = Oracle.toneLevel(left, frequency: 700)
        #expect(abs(l500 - l700) < 1, "500 Hz at \(l500), 700 Hz at \(l700)")
    }

    @Test("a single source keeps its own level")
    func singleSourceKeepsItsLevel() throws {
        let dir = try Oracle.scratch()
        let a = try Self.tone(dir, "a.wav", Self.sine(0.25, 440) + "|" + Self.sine(0.25, 440))
        let out = dir + "/one.m4a"
        #expect(try Oracle.mixwrite(["remix", a, "-o", out]).status == 0)
        let level = Oracle.toneLevel(Self.span(Oracle.channel(try Oracle.decodeAudio(out), 0, of: 2), 0.2, 1.8), frequency: 440)
        #expect(abs(level - -12.04) < 0.5, "\(level) dBFS")
    }

    @Test("--gain -12 shows as 12 ± 2 dB; --mix average gives each source 1/N")
    func gainAndAverage() throws {
        let dir = try Oracle.scratch()
        let a = try Self.tone(dir, "a.wav", Self.sine(0.25, 440) + "|" + Self.sine(0.25, 440))
        let b = try Self.tone(dir, "b.wav", Self.sine(0.25, 880) + "|" + Self.sine(0.25, 880))
        let gained = dir + "/gain.m4a", averaged = dir + "/avg.m4a"
        #expect(try Oracle.mixwrite(["remix", a, "--audio", b, "--gain", "audio1=-12", "-o", gained]).status == 0)
        #expect(try Oracle.mixwrite(["remix", a, "--audio", b, "--mix", "average", "-o", averaged]).status == 0)
        let g = Self.span(Oracle.channel(try Oracle.decodeAudio(gained), 0, of: 2), 0.2, 1.8)
        let drop = Oracle.toneLevel(g, frequency: 440) - Oracle.toneLevel(g, frequency: 880)
        #expect(abs(drop - 12) <= 2, "audio1 is \(drop) dB below movie")
        let avg = Self.span(Oracle.channel(try Oracle.decodeAudio(averaged), 0, of: 2), 0.2, 1.8)
        for f in [440.0, 880.0] {
            let level = Oracle.toneLevel(avg, frequency: f)
            #expect(abs(level - (-12.04 - 6.02)) < 0.7, "\(f) Hz at \(level) dBFS; 1/2 of -12 is -18")
        }
    }

    @Test("one file used twice (concat a b a): each use's two tracks sound in their places (each use read as an input of its own)")
    func fileUsedTwice() throws {
        let dir = try Oracle.scratch()
        let clips = try SmartRenderTests.clips(in: dir)   // 2 s each; clip n's tracks 200n + 100 and 200n + 1100 Hz
        let out = dir + "/aba.mp4"
        let r = try Oracle.mixwrite(["concat", clips[0], clips[1], clips[0], "-o", out, "--smart", "off", "--progress", "none"])
        try #require(r.status == 0, "\(r.stderr)")
        let sound = try Oracle.decodeAudio(out)
        func level(_ hz: Double, _ from: Double) -> Double {
            Oracle.toneLevel(Array(sound[Int(from * 48000)..<Int((from + 1.5) * 48000)]), frequency: hz)
        }
        for (from, present, absent) in [(0.25, [300.0, 1300], [500.0, 1500]), (2.25, [500, 1500], [300, 1300]), (4.25, [300, 1300], [500, 1500])] {
            for hz in present { #expect(level(hz, from) > -30, "\(hz) Hz from \(from) s: \(level(hz, from)) dB") }
            for hz in absent { #expect(level(hz, from) < -60, "no \(hz) Hz from \(from) s: \(level(hz, from)) dB") }
        }
        // One use naming a file's tracks twice (the movie and the same file as --audio): one decoder a track feeding both
        // sources, so each tone is summed twice: 6 dB over the movie's own.
        var levels: [Double] = []
        for extra in [[], ["--audio", clips[0]]] {
            let remixed = dir + "/remix-\(extra.count).mp4"
            let m = try Oracle.mixwrite(["remix", clips[0], "-o", remixed, "--progress", "none"] + extra)
            try #require(m.status == 0, "\(m.stderr)")
            levels.append(Oracle.toneLevel(Array(try Oracle.decodeAudio(remixed)[24000..<72000]), frequency: 300))
        }
        #expect(abs(levels[1] - levels[0] - 6.02) < 0.5, "the 300 Hz tone with the file as --audio too: \(levels) dB")
    }

    @Test("--offset leaves real silence before a source")
    func offset() throws {
        let dir = try Oracle.scratch()
        let a = try Self.tone(dir, "a.wav", Self.sine(0.25, 440) + "|" + Self.sine(0.25, 440), seconds: 3)
        let b = try Self.tone(dir, "b.wav", Self.sine(0.25, 880), layout: "mono", seconds: 1)
        let out = dir + "/offset.m4a"
        #expect(try Oracle.mixwrite(["remix", a, "--audio", b, "--offset", "audio1=1.5", "-o", out]).status == 0)
        let left = Oracle.channel(try Oracle.decodeAudio(out), 0, of: 2)
        #expect(Oracle.toneLevel(Self.span(left, 0.1, 1.4), frequency: 880) < -60, "audio1 sounds before its offset")
        #expect(abs(Oracle.toneLevel(Self.span(left, 1.6, 2.4), frequency: 880) - -12.04) < 1, "audio1 missing after its offset")
        #expect(Oracle.toneLevel(Self.span(left, 2.6, 2.95), frequency: 880) < -60, "audio1 lasts 1 s")
        // No level jump in the other source when audio1 ends (dropout_transition=0).
        let before = Oracle.toneLevel(Self.span(left, 1.6, 2.4), frequency: 440)
        let after = Oracle.toneLevel(Self.span(left, 2.6, 2.95), frequency: 440)
        #expect(abs(before - after) < 0.5, "movie's level moved from \(before) to \(after) when audio1 ended")
    }

    @Test("mono-only sources give mono; a 5.1 source downmixes to stereo with its tone kept")
    func layouts() throws {
        let dir = try Oracle.scratch()
        let m1 = try Self.tone(dir, "m1.wav", Self.sine(0.25, 440), layout: "mono")
        let m2 = try Self.tone(dir, "m2.wav", Self.sine(0.25, 660), rate: 22050, layout: "mono")
        let mono = dir + "/mono.m4a"
        #expect(try Oracle.mixwrite(["remix", m1, "--audio", m2, "-o", mono]).status == 0)
        #expect(try Oracle.probe(mono).audio.first?.channels == 1)
        // 5.1 with a tone only in the centre channel and another only in the surrounds.
        let c = Self.sine(0.25, 1000), s = Self.sine(0.25, 300)
        let surround = try Self.tone(dir, "s.wav", "0|0|\(c)|0|\(s)|\(s)", layout: "5.1")
        let stereo = dir + "/stereo.m4a"
        #expect(try Oracle.mixwrite(["remix", surround, "-o", stereo]).status == 0)
        #expect(try Oracle.probe(stereo).audio.first?.channels == 2)
        let mix = try Oracle.decodeAudio(stereo)
        for ch in 0..<2 {
            let x = Self.span(Oracle.channel(mix, ch, of: 2), 0.2, 1.8)
            // The standard matrix puts the centre and each surround into the front pair at -3 dB.
            #expect(abs(Oracle.toneLevel(x, frequency: 1000) - (-12.04 - 3.01)) < 1.5, "centre tone in channel \(ch)")
            #expect(abs(Oracle.toneLevel(x, frequency: 300) - (-12.04 - 3.01)) < 1.5, "surround tone in channel \(ch)")
        }
    }

    @Test("remix: a codec the container refuses at its header (VP8 into .mov) is exit 2 with the way out, nothing written")
    func remixRefusedCodec() throws {
        let dir = try Oracle.scratch()
        let webm = dir + "/vp8.webm"
        let made = try Oracle.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=160x120:r=25:d=1", "-f", "lavfi",
                                      "-i", "sine=d=1", "-c:v", "libvpx", "-c:a", "libvorbis", webm])
        try #require(made.status == 0, "\(made.stderr)")
        let r = try Oracle.mixwrite(["remix", webm, "-o", dir + "/out.mov"])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr == "mixwrite: error: \(webm): its video (vp8) cannot be copied into a .mov file; use .mkv\n", "\(r.stderr)")
        #expect(try Oracle.listing(dir) == ["vp8.webm"], "left: \((try? Oracle.listing(dir)) ?? [])")
        let ok = try Oracle.mixwrite(["remix", webm, "-o", dir + "/out.mkv", "-q"])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(try Oracle.probe(dir + "/out.mkv").video.first?.codec == "vp8")
    }

    @Test("remix: every track mixed, video packets byte-identical, audio exactly as long as the video")
    func remixMovie() throws {
        let dir = try Oracle.scratch()
        let out = dir + "/remix.mov"
        let r = try Oracle.mixwrite(["remix", Oracle.fixture("fx.mov"), "--audio", Oracle.fixture("tone.m4a"), "-o", out, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let md5 = { (path: String) throws -> String in
            try Oracle.ffmpeg(["-v", "error", "-i", path, "-map", "0:v", "-c", "copy", "-f", "md5", "-"]).stdoutText
        }
        #expect(try md5(out) == md5(Oracle.fixture("fx.mov")))
        #expect(!(try md5(out)).isEmpty)
        let probe = try Oracle.probe(out)
        #expect(probe.audio.count == 1 && probe.video.count == 1)
        let mix = Self.span(try Oracle.decodeAudio(out, channels: 1), 0.1, 1.9)
        for f in [440.0, 1000.0, 880.0] { #expect(Oracle.toneLevel(mix, frequency: f) > -16, "\(f) Hz missing") }
        let audio = try Oracle.decodedDuration(out, stream: "a:0"), video = try Oracle.decodedDuration(out, stream: "v:0")
        #expect(abs(audio - video) <= 1024.0 / 48000 + 1e-6, "audio \(audio) s, video \(video) s")
        // The report names every source track with its route.
        let report = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any]
        let sources = ((report?["audio"] as? [String: Any])?["sources"] as? [[String: Any]]) ?? []
        #expect(sources.map { "\($0["label"]!):\($0["track"]!)" } == ["movie:1", "movie:2", "audio1:1"])
        #expect(sources.allSatisfy { ($0["route"] as? String)?.contains("decoded") == true })
        #expect((report?["video"] as? [String: Any])?["copied"] as? Bool == true)
    }

    @Test("AAC encoded in segments on both cores joins seamlessly: the windows at the joins are as good as one encoder's")
    func segmentedEncodingIsSeamless() throws {
        let dir = try Oracle.scratch()
        // 12 s (four segments of 128 AAC frames and a bit): noise, a tone and clicks, under the limiter's ceiling.
        let src = dir + "/src.wav"
        let made = try Oracle.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "anoisesrc=c=pink:r=48000:a=0.1:d=12:seed=7",
                                      "-f", "lavfi", "-i", "aevalsrc='0.2*sin(2*PI*440*t)+if(lt(mod(t,0.37),0.003),0.4,0)':s=48000:d=12",
                                      "-filter_complex", "[0:a][1:a]amix=inputs=2:normalize=0", "-c:a", "pcm_f32le", src])
        #expect(made.status == 0, "\(made.stderr)")
        // The same mix encoded in segments of 128 frames (2048 by default, so 12 s has several joins here) and
        // by one encoder: at every join the segmented file must be as good as the single encoder's.
        var decoded: [[Float]] = []
        for (name, frames) in [("segments", "128"), ("single", "100000")] {
            let out = dir + "/\(name).m4a"
            let r = try Oracle.run(Oracle.mixwrite, ["remix", src, "-o", out, "--channels", "1"],
                                   environment: ["MIXWRITE_AAC_SEGMENT_FRAMES": frames])
            #expect(r.status == 0, "\(r.stderr)")
            decoded.append(try Oracle.decodeAudio(out, channels: 1))
        }
        let original = try Oracle.decodeAudio(src, channels: 1)
        // ffmpeg decodes the last AAC frame whole (up to 1023 samples past the end the file states).
        for coded in decoded {
            #expect(coded.count >= original.count && coded.count < original.count + 1024, "\(coded.count) samples for \(original.count)")
        }
        let n = min(decoded[0].count, decoded[1].count, original.count), w = 1024
        func snr(_ coded: [Float], _ r: Range<Int>) -> Double {
            var signal = 0.0, noise = 0.0
            for i in r { signal += Double(original[i] * original[i]); noise += Double((coded[i] - original[i]) * (coded[i] - original[i])) }
            return 10 * log10(signal / max(noise, 1e-12))
        }
        #expect(snr(decoded[0], 0..<n) > 30, "SNR \(snr(decoded[0], 0..<n)) dB")
        #expect(abs(snr(decoded[0], 0..<n) - snr(decoded[1], 0..<n)) < 0.5)
        // The windows on each side of every join (every 128 frames).
        let joins = (1..<(n / w)).filter { $0 % 128 == 127 || $0 % 128 == 0 }
        #expect(joins.count >= 6)
        // Two encodings of the same signal differ window by window (here about 0.8 dB s.d., rarely 5 dB) with
        // no seam at all; a broken join (a lost, doubled or shifted packet) falls to 0 dB or below.
        var differences: [Double] = []
        for j in joins {
            let segmented = snr(decoded[0], j * w ..< (j + 1) * w), single = snr(decoded[1], j * w ..< (j + 1) * w)
            #expect(segmented > 30 && segmented > single - 4, "window \(j): \(segmented) dB in segments, \(single) dB from one encoder")
            differences.append(segmented - single)
        }
        let meanDifference = differences.reduce(0, +) / Double(max(differences.count, 1))
        #expect(meanDifference > -1.5, "the joins are \(meanDifference) dB worse on average")
    }

    @Test("sound that ends just past a segment's share (within its post-roll) is written whole: a 43.70 s remix; 8-frame segments ending 1 to 2049 samples past; a concat of 6 s in 3 parts, joined")
    func endsInPostRoll() throws {
        let dir = try Oracle.scratch()
        func tone(_ samples: Int, _ path: String) throws {
            let made = try Oracle.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=440:r=48000", "-af", "atrim=end_sample=\(samples)",
                                          "-c:a", "pcm_s16le", path])
            try #require(made.status == 0, "\(made.stderr)")
        }
        // (segment frames, samples): 2048 frames of 1024 are 2,097,152 samples; 43.70 s is 448 more.
        let cases: [(frames: String?, samples: Int)] = [(nil, 2_097_600)] + [1, 448, 1024, 2048, 2049].map { ("8", 5 * 8192 + $0) }
        for (frames, samples) in cases {
            let src = dir + "/\(samples).wav"
            try tone(samples, src)
            // In segments (2048 or 8 frames) and by one encoder: the same length, the same tone to the end.
            var decoded: [[Float]] = []
            for (name, segment) in [("segments", frames ?? "2048"), ("single", "100000")] {
                let out = dir + "/\(samples)-\(name).m4a"
                let r = try Oracle.run(Oracle.mixwrite, ["remix", src, "-o", out, "-q"], environment: ["MIXWRITE_AAC_SEGMENT_FRAMES": segment])
                try #require(r.status == 0, "\(samples) samples in \(name): \(r.stderr)")
                let clean = try Oracle.ffmpeg(["-v", "error", "-xerror", "-i", out, "-f", "null", "-"])
                #expect(clean.status == 0 && clean.stderr.isEmpty, "\(samples) samples in \(name): \(clean.stderr)")
                decoded.append(try Oracle.decodeAudio(out, channels: 1))
            }
            #expect(decoded[0].count == decoded[1].count && decoded[0].count > samples - 1024, "\(decoded.map(\.count)) samples for \(samples)")
            let end = min(decoded[0].count, decoded[1].count, samples)
            let levels = decoded.map { Oracle.toneLevel(Array($0[(end - 4800)..<end]), frequency: 440) }
            #expect(levels[0] > -24 && abs(levels[0] - levels[1]) < 1, "\(samples) samples: the last 0.1 s's tone at \(levels) dB")
        }
        // 3 × 2 s clips: 288,000 samples, 1,280 past the 35th share of 8 frames; the last part ends in that post-roll.
        let clips = try SmartRenderTests.clips(in: dir)
        let joined = dir + "/joined.mp4"
        for k in 1...3 {
            let r = try Oracle.run(Oracle.mixwrite, ["concat"] + clips + ["-o", joined, "--parts", "3", "--part", "\(k)", "-q"],
                                   environment: ["MIXWRITE_AAC_SEGMENT_FRAMES": "8"])
            try #require(r.status == 0, "part \(k): \(r.stderr)")
        }
        let j = try Oracle.run(Oracle.mixwrite, ["join", joined], timeout: 120)
        try #require(j.status == 0, "join: \(j.stderr)")
        let p = try Oracle.probe(joined)
        #expect(abs((p.audio.first?.duration ?? 0) - 6) < 0.03, "\(p.audio)")
        let clean = try Oracle.ffmpeg(["-v", "error", "-xerror", "-i", joined, "-f", "null", "-"])
        #expect(clean.status == 0 && clean.stderr.isEmpty, "\(clean.stderr)")
    }

    @Test("an audio-only remix is as long as its source to the sample, in MOV and MP4 (their movie timescale, 1000 a second by default, cut it to whole milliseconds)")
    func lengthToTheSample() throws {
        let dir = try Oracle.scratch()
        for (rate, samples) in [(48000, 41000), (44100, 44101)] {
            let src = dir + "/\(rate).wav"
            let made = try Oracle.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=440:r=\(rate)", "-af", "atrim=end_sample=\(samples)",
                                          "-c:a", "pcm_s16le", src])
            try #require(made.status == 0, "\(made.stderr)")
            for ext in ["m4a", "mov"] {
                let out = dir + "/\(rate).\(ext)"
                let r = try Oracle.mixwrite(["remix", src, "-o", out, "-q", "--progress", "none"])
                try #require(r.status == 0, "\(r.stderr)")
                // The stream's length as a reader states it (the edit list's), in samples of its own time base (the
                // output's rate, 48 kHz: 44,101 samples at 44.1 kHz are 48,001.09 there).
                let p = try Oracle.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries",
                                                           "stream=time_base,duration_ts", "-of", "csv=p=0", out])
                let fields = p.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",")
                let base = fields.first.map { $0.split(separator: "/").compactMap { Double($0) } } ?? []
                let length = fields.count == 2 ? Double(fields[1]) : nil
                let expected = base.count == 2 ? Double(samples) / Double(rate) * base[1] / base[0] : .nan
                #expect(length.map { abs($0 - expected) < 1 } == true,
                        "\(samples) samples at \(rate) Hz into .\(ext): \(p.stdoutText) (\(expected) expected) \(p.stderr)")
            }
        }
    }

    @Test("unknown sources in --gain/--mute are usage errors")
    func unknownSource() throws {
        let dir = try Oracle.scratch()
        let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "--gain", "music=-3", "-o", dir + "/o.mov"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("unknown source 'music'"), "\(r.stderr)")
        #expect(try Oracle.listing(dir).isEmpty)
    }

    @Test("every multi-track and audio file of the corpus remixes cleanly (MIXWRITE_CORPUS)",
          .enabled(if: Oracle.corpus != nil, "MIXWRITE_CORPUS is not set: the corpus audio files are not run"))
    func corpusAudio() throws {
        let corpus = try #require(Oracle.corpus)
        let dir = try Oracle.scratch()
        var files = try Oracle.listing(corpus + "/multiaudio").map { corpus + "/multiaudio/" + $0 }
        files += try Oracle.listing(corpus + "/audio").map { corpus + "/audio/" + $0 }
        #expect(files.count > 20)
        for (i, file) in files.enumerated() {
            let source = try Oracle.probe(file)
            let out = dir + "/\(i)" + (source.video.contains { $0.raw["disposition"]?.contains("attached_pic = 1") != true } ? ".mkv" : ".mka")
            let r = try Oracle.mixwrite(["remix", file, "-o", out, "--audio", Oracle.fixture("tone.m4a")])
            #expect(r.status == 0, "\(file): \(r.stderr)")
            guard r.status == 0 else { continue }
            let probe = try Oracle.probe(out)
            #expect(probe.audio.count == 1, "\(file)")
            // The corpus track is in the mix beside the 880 Hz tone: the mix is more than that tone alone.
            let mix = try Oracle.decodeAudio(out, channels: 1)
            #expect(Oracle.toneLevel(Array(mix.prefix(48000)), frequency: 880) > -20, "\(file): audio1 missing")
        }
    }
}
