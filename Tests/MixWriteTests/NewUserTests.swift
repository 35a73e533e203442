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
}
