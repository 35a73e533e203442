import Foundation
import Testing
import TestSupport

/// A mix ready to publish: loudness target and true peak, level matching, ducking, fades, the report.
/// Loudness is read by the ffmpeg CLI's ebur128 filter on the output file, never by mixwrite.
@Suite("publishing: --loudness, --true-peak, --level-match, --duck, fades")
struct PublishingTests {
    /// Pink noise with a tone over it (a dense, loud source) and a quieter voice-like source of 1 kHz bursts.
    static func sources(_ dir: String, seconds: Double = 8) throws -> (String, String) {
        let bed = dir + "/bed.wav", voice = dir + "/voice.wav"
        var r = try Oracle.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "anoisesrc=c=pink:r=44100:a=0.4:d=\(seconds)",
                                   "-f", "lavfi", "-i", "sine=f=3000:r=44100:d=\(seconds)", "-filter_complex",
                                   "[0][1]amix=inputs=2:normalize=0,aformat=channel_layouts=stereo", bed])
        guard r.status == 0 else { throw OracleError(r.stderr) }
        r = try Oracle.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=1000:r=48000:d=\(seconds)", "-af",
                               "volume='if(lt(mod(t,4),2),1,0)':eval=frame", voice])
        guard r.status == 0 else { throw OracleError(r.stderr) }
        return (bed, voice)
    }

    @Test("--loudness reaches the target within 0.5 LU and holds the true peak, on the encoded output",
          arguments: [(-16.0, -1.0, false), (-23.0, -1.0, false), (-14.0, -2.0, false), (-12.0, -1.0, true)])
    func loudnessTarget(target: Double, ceiling: Double, peaky: Bool) throws {
        let dir = try Oracle.scratch("loudness\(Int(-target))\(peaky)")
        let (bed, voice) = try Self.sources(dir)
        let out = dir + "/out.m4a"
        var args = ["remix", bed, "--audio", voice, "--loudness", String(target), "-o", out, "-q"]
        if peaky {
            // Clicks at 0.9 over a quiet hum: the target needs 14 dB more gain than the peaks allow, so the
            // true-peak limiter works hard and the gain must be found through it.
            let clicks = dir + "/clicks.wav"
            let made = try Oracle.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i",
                                          "aevalsrc=0.05*sin(2*PI*200*t)+if(lt(mod(t\\,0.5)\\,0.01)\\,0.9*sin(2*PI*2000*t)\\,0):s=48000:c=stereo:d=8",
                                          clicks])
            #expect(made.status == 0, "\(made.stderr)")
            args = ["remix", clicks, "--loudness", String(target), "-o", out, "-q"]
        }
        if ceiling != -1 { args += ["--true-peak", String(ceiling)] }
        let r = try Oracle.mixwrite(args)
        #expect(r.status == 0, "\(r.stderr)")
        let measured = try Oracle.loudness(out)
        print("--loudness \(target) --true-peak \(ceiling)\(peaky ? " (clicks)" : ""): \(measured.integrated) LUFS, true peak \(measured.truePeak) dBTP")
        #expect(abs(measured.integrated - target) <= 0.5, "integrated \(measured.integrated) LUFS for \(target)")
        #expect(measured.truePeak <= ceiling, "true peak \(measured.truePeak) dBTP over \(ceiling)")
    }

    @Test("the report gives each track's, the mix's and the output's loudness, and the gain; -v prints them")
    func report() throws {
        let dir = try Oracle.scratch()
        let (bed, voice) = try Self.sources(dir, seconds: 4)
        let out = dir + "/out.m4a"
        let r = try Oracle.mixwrite(["remix", bed, "--audio", voice, "--loudness", "-18", "-o", out, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        let loudness = try #require((json["audio"] as? [String: Any])?["loudness"] as? [String: Any])
        let sources = try #require(loudness["sources"] as? [String: [String: Double]])
        #expect(Set(sources.keys) == ["movie:1", "audio1:1"], "\(sources.keys)")
        let output = try #require(loudness["output"] as? [String: Double])
        let measured = try Oracle.loudness(out)
        #expect(abs((output["integrated"] ?? 0) - measured.integrated) <= 0.2, "report \(output), ffmpeg \(measured)")
        #expect(loudness["gainDB"] is Double)
        let v = try Oracle.mixwrite(["remix", bed, "--audio", voice, "--loudness", "-18", "-o", out, "-y", "-v", "--progress", "none"])
        #expect(v.stderr.contains("loudness of the output: -18"), "\(v.stderr)")
    }

    @Test("a silent mix with --loudness: a warning, no gain, a silent output (the AAC noise floor under -100 dBFS)")
    func silentMix() throws {
        let dir = try Oracle.scratch()
        let silent = dir + "/silent.wav"
        _ = try Oracle.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo:d=3", silent])
        let out = dir + "/out.m4a"
        let r = try Oracle.mixwrite(["remix", silent, "--loudness", "-16", "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("silent"), "\(r.stderr)")
        let samples = try Oracle.decodeAudio(out)
        #expect(Oracle.rms(samples[...]) < -100, "rms \(Oracle.rms(samples[...])) dBFS")
        #expect(samples.allSatisfy { $0.isFinite })
    }

    @Test("--level-match brings a source 20 dB quieter to the same level; --gain still applies on top")
    func levelMatch() throws {
        let dir = try Oracle.scratch()
        let loud = try AudioMixTests.tone(dir, "loud.wav", AudioMixTests.sine(0.3, 440), layout: "mono", seconds: 3)
        let quiet = try AudioMixTests.tone(dir, "quiet.wav", AudioMixTests.sine(0.03, 1000), layout: "mono", seconds: 3)
        for (gain, expected) in [(0.0, 0.0), (-6.0, -6.0)] {
            let out = dir + "/out\(Int(-gain)).m4a"
            var args = ["remix", loud, "--audio", quiet, "--level-match", "-o", out, "-q"]
            if gain != 0 { args += ["--gain", "audio1=\(gain)"] }
            let r = try Oracle.mixwrite(args)
            #expect(r.status == 0, "\(r.stderr)")
            let mix = AudioMixTests.span(try Oracle.decodeAudio(out, channels: 1), 0.5, 2.5)
            let difference = Oracle.toneLevel(mix, frequency: 1000) - Oracle.toneLevel(mix, frequency: 440)
            #expect(abs(difference - expected) <= 1, "1 kHz − 440 Hz: \(difference) dB with --gain audio1=\(gain)")
        }
    }

    @Test("--duck: the music ≥ 10 dB lower while the voice plays, within 1.5 dB in its pauses, the voice untouched")
    func duck() throws {
        let dir = try Oracle.scratch()
        let voice = dir + "/voice.mkv"
        var r = try Oracle.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=160x120:r=25:d=12", "-f", "lavfi",
                                   "-i", "sine=f=1000:r=48000:d=12", "-filter_complex",
                                   "[1]volume='if(lt(mod(t,4),2),0.8,0)':eval=frame[v]", "-map", "0:v", "-map", "[v]",
                                   "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", voice])
        #expect(r.status == 0, "\(r.stderr)")
        let music = try AudioMixTests.tone(dir, "music.wav", AudioMixTests.sine(0.2, 440), seconds: 12)
        let plain = dir + "/plain.mkv", ducked = dir + "/ducked.mkv"
        r = try Oracle.mixwrite(["remix", voice, "--audio", music, "-o", plain, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try Oracle.mixwrite(["remix", voice, "--audio", music, "--duck", "audio1", "-o", ducked, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let p = try Oracle.decodeAudio(plain, channels: 1), d = try Oracle.decodeAudio(ducked, channels: 1)
        for k in 0..<3 {
            let talk = Double(4 * k) + 0.5, pause = Double(4 * k) + 3.1   // the pause's second half
            let musicTalk = Oracle.toneLevel(AudioMixTests.span(d, talk, talk + 1), frequency: 440)
                - Oracle.toneLevel(AudioMixTests.span(p, talk, talk + 1), frequency: 440)
            let musicPause = Oracle.toneLevel(AudioMixTests.span(d, pause, pause + 0.8), frequency: 440)
                - Oracle.toneLevel(AudioMixTests.span(p, pause, pause + 0.8), frequency: 440)
            let voiceTalk = Oracle.toneLevel(AudioMixTests.span(d, talk, talk + 1), frequency: 1000)
                - Oracle.toneLevel(AudioMixTests.span(p, talk, talk + 1), frequency: 1000)
            print("duck, burst \(k): music \(musicTalk) dB while talking, \(musicPause) dB in the pause; voice \(voiceTalk) dB")
            #expect(musicTalk <= -10, "music while the voice plays: \(musicTalk) dB")
            #expect(abs(musicPause) <= 1.5, "music in the pause: \(musicPause) dB")
            #expect(abs(voiceTalk) <= 0.5, "voice: \(voiceTalk) dB")
        }
    }

    @Test("--fade-in and --fade-out: silence at the ends, half amplitude halfway, full level between")
    func fades() throws {
        let dir = try Oracle.scratch()
        let tone = try AudioMixTests.tone(dir, "tone.wav", AudioMixTests.sine(0.3, 440), layout: "mono", seconds: 4)
        let out = dir + "/out.m4a"
        let r = try Oracle.mixwrite(["remix", tone, "--fade-in", "1", "--fade-out", "1", "-o", out, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let s = try Oracle.decodeAudio(out, channels: 1)
        let full = Oracle.toneLevel(AudioMixTests.span(s, 1.5, 2.5), frequency: 440)
        let half = Oracle.toneLevel(AudioMixTests.span(s, 0.45, 0.55), frequency: 440)
        #expect(Oracle.rms(AudioMixTests.span(s, 0, 0.05)[...]) < full - 25)
        #expect(abs(half - (full - 6)) <= 1.5, "halfway in: \(half) dB against \(full) dB")
        #expect(Oracle.rms(AudioMixTests.span(s, 3.95, 4.0)[...]) < full - 25)
    }

    @Test("refusals: --true-peak without --loudness, a target out of range, ducking every source (exit 1, no output)")
    func refusals() throws {
        let dir = try Oracle.scratch()
        let tone = try AudioMixTests.tone(dir, "tone.wav", AudioMixTests.sine(0.3, 440), seconds: 1)
        for args in [["--true-peak", "-1"], ["--loudness", "-80"], ["--duck", "movie"], ["--duck", "nobody"], ["--fade-in", "-1"]] {
            let out = dir + "/out.m4a"
            let r = try Oracle.mixwrite(["remix", tone, "-o", out] + args)
            #expect(r.status == 1, "\(args): \(r.status) \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(args): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }

    @Test("job files: loudness, true-peak, level-match, duck and fades, as the CLI; a bad value names the job and key")
    func jobFile() throws {
        let dir = try Oracle.scratch()
        let (bed, voice) = try Self.sources(dir, seconds: 4)
        let jobs = """
        {"jobs": [
          {"kind": "remix", "movie": "\(bed)", "audio": ["\(voice)"], "output": "\(dir)/a.m4a",
           "loudness": -20, "true-peak": -2, "level-match": true, "duck": ["audio1"], "fade-in": 0.5, "fade-out": 0.5},
          {"kind": "remix", "movie": "\(bed)", "audio": ["\(voice)"], "output": "\(dir)/b.m4a", "duck": {"movie": 12}}
        ]}
        """
        try Data(jobs.utf8).write(to: URL(fileURLWithPath: dir + "/jobs.json"))
        let r = try Oracle.mixwrite(["batch", dir + "/jobs.json", "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let a = try Oracle.loudness(dir + "/a.m4a")
        #expect(abs(a.integrated + 20) <= 0.5 && a.truePeak <= -2, "\(a)")
        #expect(FileManager.default.fileExists(atPath: dir + "/b.m4a"))
        try Data(#"{"jobs": [{"kind": "remix", "movie": "x.mov", "output": "y.m4a", "loudness": "loud"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: dir + "/bad.json"))
        let bad = try Oracle.mixwrite(["batch", dir + "/bad.json"])
        #expect(bad.status == 2 && bad.stderr.contains("job 0: 'loudness'"), "\(bad.stderr)")
    }

    @Test("the JSON Schema accepts the publishing keys and refuses a depth out of range (python3 jsonschema)",
          .enabled(if: Oracle.hasJSONSchema, "python3 with jsonschema is not installed: the schema is not checked"))
    func schema() throws {
        let dir = try Oracle.scratch()
        let good = #"{"jobs": [{"kind": "blend", "fx": "a.mov", "base": "b.mov", "output": "o.mov", "loudness": -16, "true-peak": -1, "#
            + #""level-match": true, "duck": {"audio1": 15}, "fade-in": 1, "fade-out": 2}]}"#
        let bad = #"{"jobs": [{"kind": "still", "image": "a.png", "audio": ["b.m4a"], "output": "o.mp4", "duck": {"audio1": 90}}]}"#
        try Data(good.utf8).write(to: URL(fileURLWithPath: dir + "/good.json"))
        try Data(bad.utf8).write(to: URL(fileURLWithPath: dir + "/bad.json"))
        let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            jsonschema.validate(json.load(open(sys.argv[2])), schema)
            try:
                jsonschema.validate(json.load(open(sys.argv[3])), schema)
                sys.exit("a 90 dB duck was accepted")
            except jsonschema.ValidationError:
                pass
            """
        let r = try Oracle.run("/usr/bin/env", ["python3", "-c", script, Oracle.root.path + "/Schemas/jobs.schema.json",
                                                dir + "/good.json", dir + "/bad.json"])
        #expect(r.status == 0, "\(r.stderr)")
    }
}
