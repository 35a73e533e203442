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
}
