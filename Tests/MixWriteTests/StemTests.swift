import Foundation
import Testing
import TestSupport

/// `--stems`: after the mix, every source track on its own as it enters the mix, read back by the ffmpeg CLI:
/// ffprobe's streams, titles and default flags; each stem's spectrum (its own tone, nothing else), its length
/// against the mix's, its gain and offset.
@Suite("stems: every source track beside the mix")
struct StemTests {
    /// Stream `index`'s sound, left channel, from 0.6 s to 1.8 s (after base's offset below).
    static func span(_ path: String, _ index: Int) throws -> [Float] {
        let left = Oracle.channel(try Oracle.decodeAudio(path, stream: "0:a:\(index)"), 0, of: 2)
        return Array(left[Int(0.6 * 48000) ..< Int(1.8 * 48000)])
    }

    @Test("a blend with --stems (.mov, AAC; .mkv, FLAC): the mix first and default, then fx:1, fx:2, base:1, each its own tone at its gain, none of the others', as long as the mix, its offset kept; the report lists them",
          arguments: [("mov", "aac"), ("mkv", "flac")])
    func blend(ext: String, codec: String) throws {
        let dir = try Oracle.scratch("stems-\(ext)")
        let out = dir + "/out." + ext
        let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", out, "--stems", "--audio-codec", codec,
                                     "--gain", "fx:2=-6", "--offset", "base=0.5", "--json", "-q", "--progress", "none"])
        try #require(r.status == 0, "\(r.stderr)")
        let audio = (try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])?["audio"] as? [String: Any]
        let stems = (audio?["stems"] as? [[String: Any]]) ?? []
        #expect(stems.compactMap { $0["name"] as? String } == ["fx:1", "fx:2", "base:1"] && audio?["codec"] as? String == codec, "\(audio ?? [:])")
        #expect((stems.dropFirst().first?["route"] as? String)?.contains("gain -6.0 dB") == true, "fx:2's route names its gain: \(stems)")

        let p = try Oracle.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries",
                                                    "stream=codec_name:stream_tags=title,handler_name:stream_disposition=default",
                                                    "-of", "csv=p=0", out]).stdoutText
        let rows = p.split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
        try #require(rows.count == 4, "\(p)")
        #expect(rows.allSatisfy { $0.first == codec }, "\(p)")
        #expect(rows[0].contains("1") && rows[1...].allSatisfy { $0.contains("0") }, "the mix alone plays by default: \(p)")
        for (row, name) in zip(rows[1...], ["fx:1", "fx:2", "base:1"]) { #expect(row.contains(name), "\(name): \(row)") }

        let tones = [440.0, 1000, 660]
        let mix = try Self.span(out, 0)
        #expect(tones.allSatisfy { Oracle.toneLevel(mix, frequency: $0) > -20 }, "the mix holds every tone")
        for (n, own) in tones.enumerated() {
            let stem = try Self.span(out, n + 1)
            let level = Oracle.toneLevel(stem, frequency: own)
            let others = tones.filter { $0 != own }.map { Oracle.toneLevel(stem, frequency: $0) }
            print("\(ext) stem \(n + 1): its tone \(level) dB, the others \(others) dB")
            #expect(abs(level - (n == 1 ? -18 : -12)) < 1, "stem \(n + 1): \(level) dB (fx:2 is 6 dB down)")
            #expect(others.allSatisfy { $0 < -60 }, "stem \(n + 1) holds only its own source: \(others)")
            let length = try Oracle.decodedDuration(out, stream: "a:\(n + 1)"), mixLength = try Oracle.decodedDuration(out, stream: "a:0")
            #expect(abs(length - mixLength) < 0.001, "stem \(n + 1): \(length) s, the mix \(mixLength) s")
        }
        // base's stem starts 0.5 s late, as base does in the mix.
        let base = Oracle.channel(try Oracle.decodeAudio(out, stream: "0:a:3"), 0, of: 2)
        #expect(Oracle.rms(base[Int(0.05 * 48000) ..< Int(0.45 * 48000)]) < -60, "silence before base's offset")
    }

    @Test("remix and concat take --stems too")
    func otherCommands() throws {
        let dir = try Oracle.scratch()
        for (args, expected) in [(["remix", Oracle.fixture("fx.mov"), "--audio", Oracle.fixture("tone.m4a")], 4),
                                 (["concat", Oracle.fixture("fx.mov"), Oracle.fixture("base.mov")], 4)] {
            let out = dir + "/\(args[0]).mkv"
            let r = try Oracle.mixwrite(args + ["--stems", "-o", out, "-q", "--progress", "none"])
            try #require(r.status == 0, "\(r.stderr)")
            #expect(try Oracle.probe(out).audio.count == expected, "\(args[0])")
        }
    }

    @Test("a ducked source's stem is ducked as in the mix (--duck base: base's stem 15 dB down while fx plays), and the mix's fade-in is on it")
    func ducked() throws {
        let dir = try Oracle.scratch()
        let out = dir + "/out.mkv"
        let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", out, "--stems", "--duck", "base",
                                     "--fade-in", "0.5", "-q", "--progress", "none"])
        try #require(r.status == 0, "\(r.stderr)")
        let base = Oracle.channel(try Oracle.decodeAudio(out, stream: "0:a:3"), 0, of: 2)
        let level = Oracle.toneLevel(Array(base[Int(0.8 * 48000) ..< Int(1.8 * 48000)]), frequency: 660)
        let start = Oracle.rms(base[0 ..< Int(0.05 * 48000)]), later = Oracle.rms(base[Int(0.8 * 48000) ..< Int(0.85 * 48000)])
        print("base's stem ducked: 660 Hz at \(level) dB (-12 unducked); the fade-in: \(start) dB at the start, \(later) dB later")
        #expect(abs(level - (-27)) < 2, "\(level)")
        #expect(start < later - 10, "the fade-in on the stem")
    }
}
