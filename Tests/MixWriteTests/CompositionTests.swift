import Foundation
import Testing
import TestSupport

/// concat, still and rotation, read back through ffprobe/ffmpeg.
@Suite("concat, still, rotation")
struct CompositionTests {
    static func make(_ dir: String, _ name: String, _ args: [String]) throws -> String {
        let path = dir + "/" + name
        let r = try Oracle.ffmpeg(["-v", "error", "-y"] + args + ["-c:v", "libx264", "-pix_fmt", "yuv420p", path])
        guard r.status == 0 else { throw OracleError("making \(name): \(r.stderr)") }
        return path
    }

    static func span(_ s: [Float], _ a: Double, _ b: Double) -> [Float] {
        Array(s[Int(a * 48000)..<min(s.count, Int(b * 48000))])
    }

    @Test("clips of different sizes, rates, sample rates and layouts, one silent: exact spans, chapters, events")
    func concatClips() throws {
        let dir = try Oracle.scratch()
        let a = try Self.make(dir, "a.mov", ["-f", "lavfi", "-i", "testsrc=s=320x240:r=25:d=1", "-f", "lavfi", "-i",
                                             "aevalsrc=0.25*sin(2*PI*500*t)|0.25*sin(2*PI*500*t):s=48000:c=stereo:d=1", "-c:a", "aac"])
        let b = try Self.make(dir, "b.mp4", ["-f", "lavfi", "-i", "smptebars=s=160x120:r=30:d=1.2"])
        let c = try Self.make(dir, "c.mkv", ["-f", "lavfi", "-i", "testsrc2=s=240x320:r=15:d=0.8", "-f", "lavfi", "-i",
                                             "aevalsrc=0.25*sin(2*PI*900*t):s=22050:c=mono:d=0.8", "-c:a", "aac"])
        let events = dir + "/events.json"
        try Data(#"[{"clip": 1, "time": 0.5, "name": "bars"}, {"clip": 2, "time": 0.1, "name": "pattern"}]"#.utf8)
            .write(to: URL(fileURLWithPath: events))
        let out = dir + "/show.mkv"
        // At 25 fps, a's (the highest, b's 30, is the default: TransitionTests.highestRate).
        let r = try Oracle.mixwrite(["concat", a, b, c, "-o", out, "--events", events, "--json", "--fps", "25"])
        #expect(r.status == 0, "\(r.stderr)")
        let probe = try Oracle.probe(out)
        #expect(probe.video.first?.width == 320 && probe.video.first?.height == 240, "the first clip's size")
        // Each clip lasts until its video ends on its file's timeline, as ffprobe reads its packets, in whole 25 fps
        // frames. c's 0.8 s of video end at 0.846 s where the CLI muxed its AAC priming ahead of it (FFmpeg 5.1: the
        // video starts 46 ms in) and at 0.8 s where it kept the priming as the track's codec delay (9.0).
        let lengths = try [a, b, c].map { try Oracle.videoEnd($0) }
        let frames = lengths.map { Int(($0 * 25).rounded()) }
        #expect(Array(frames.prefix(2)) == [25, 30] && (20...21).contains(frames[2]), "\(lengths)")
        #expect(probe.video.first?.frames == frames.reduce(0, +))
        let total = Double(frames.reduce(0, +)) / 25
        #expect(probe.chapters.count == 3)
        #expect(probe.chapters.map { ($0.start * 1000).rounded() / 1000 } == [0, 1.0, 2.2])
        #expect(probe.chapters.map { $0.title ?? "" } == ["a.mov", "b.mp4", "c.mkv"])
        let video = try Oracle.decodedDuration(out, stream: "v:0"), audio = try Oracle.decodedDuration(out, stream: "a:0")
        #expect(abs(video - total) < 0.04 + 1e-6, "video \(video), expected \(total)")
        #expect(abs(audio - total) <= 1024.0 / 48000 + 1e-6, "audio \(audio), expected \(total)")
        // Each clip's tone inside its own span, silence in the silent clip.
        let mix = try Oracle.decodeAudio(out, channels: 1)
        #expect(Oracle.toneLevel(Self.span(mix, 0.1, 0.9), frequency: 500) > -15)
        #expect(Oracle.toneLevel(Self.span(mix, 0.1, 0.9), frequency: 900) < -60)
        #expect(Oracle.rms(Self.span(mix, 1.1, 2.1)[...]) < -60, "clip b has no audio: silence")
        #expect(Oracle.toneLevel(Self.span(mix, 2.3, 2.95), frequency: 900) > -15)
        #expect(Oracle.toneLevel(Self.span(mix, 2.3, 2.95), frequency: 500) < -60)
        // Events land on the output's timeline.
        let report = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any]
        let timeline = report?["timeline"] as? [String: Any]
        let evs = (timeline?["events"] as? [[String: Any]]) ?? []
        #expect(evs.map { $0["name"] as? String ?? "" } == ["bars", "pattern"])
        #expect(evs.map { (($0["time"] as? Double ?? -1) * 1000).rounded() / 1000 } == [1.5, 2.3])

        // With --event-chapters the events are markers too: each splits its clip's chapter.
        let marked = dir + "/marked.mp4"
        let m = try Oracle.mixwrite(["concat", a, b, c, "-o", marked, "--events", events, "--event-chapters", "--fps", "25"])
        #expect(m.status == 0, "\(m.stderr)")
        let chapters = try Oracle.probe(marked).chapters
        #expect(chapters.map { $0.title ?? "" } == ["a.mov", "b.mp4", "bars", "c.mkv", "pattern"])
        #expect(chapters.map { ($0.start * 1000).rounded() / 1000 } == [0, 1.0, 1.5, 2.2, 2.3])
    }

    @Test("a clip whose sound outlasts its picture is cut at the picture's end: the next clip starts on time, without that sound")
    func soundOutlastsPicture() throws {
        let dir = try Oracle.scratch()
        // 1 s of picture, 3 s of a 500 Hz tone (FFmpeg 7.1 and 9.0 refuse the tone's frames past the clip's span
        // with an end of file, which the mix must take as "no more", not as an error).
        let long = try Self.make(dir, "long.mov", ["-f", "lavfi", "-i", "testsrc=s=320x240:r=25:d=1", "-f", "lavfi", "-i",
                                                   "aevalsrc=0.25*sin(2*PI*500*t):s=48000:c=mono:d=3", "-c:a", "aac"])
        let out = dir + "/out.mp4"
        let r = try Oracle.mixwrite(["concat", long, Oracle.fixture("base.mov"), "-o", out])
        try #require(r.status == 0, "\(r.stderr)")
        let audio = try Oracle.decodedDuration(out, stream: "a:0")
        #expect(abs(audio - 3) <= 1024.0 / 48000 + 1e-6, "1 s of the long clip and base's 2 s: \(audio) s")
        let mix = try Oracle.decodeAudio(out, channels: 1)
        #expect(Oracle.toneLevel(Self.span(mix, 0.1, 0.9), frequency: 500) > -15, "the long clip's tone in its own span")
        #expect(Oracle.toneLevel(Self.span(mix, 1.2, 2.8), frequency: 500) < -60, "and not after it")
        #expect(Oracle.toneLevel(Self.span(mix, 1.2, 2.8), frequency: 660) > -15, "base's tone from 1 s on")
    }

    @Test("a clip tagged 90° comes out upright, as the ffmpeg CLI shows it")
    func rotatedClip() throws {
        let dir = try Oracle.scratch()
        let stored = try Self.make(dir, "stored.mp4", ["-f", "lavfi", "-i", "testsrc=s=320x240:r=25:d=1"])
        let tagged = dir + "/tagged.mov"
        let copy = try Oracle.ffmpeg(["-v", "error", "-y", "-i", stored, "-c", "copy", tagged])
        #expect(copy.status == 0, "\(copy.stderr)")
        try Oracle.tagQuarterTurn(tagged, height: 240)
        #expect(try Oracle.probe(tagged).video.first?.raw["side_data_list"] != nil, "ffprobe reads the display matrix")
        let out = dir + "/upright.mkv"
        #expect(try Oracle.mixwrite(["concat", tagged, "-o", out]).status == 0)
        let probe = try Oracle.probe(out)
        #expect(probe.video.first?.width == 240 && probe.video.first?.height == 320)
        #expect(probe.video.first?.raw["side_data_list"] == nil, "the output carries no rotation of its own")
        let ours = try Oracle.decodeRGB(out).frames
        let theirs = try Oracle.decodeRGB(tagged).frames   // ffmpeg autorotates while decoding
        let unturned = try Oracle.decodeRGB(stored).frames
        #expect(ours.count == theirs.count)
        let psnr = Oracle.psnr(ours[12], theirs[12].map(Double.init))
        #expect(psnr > 30, "PSNR \(psnr) against the autorotated frame")
        #expect(unturned[12].count == ours[12].count, "sizes swap, so the pixel counts are equal")
        #expect(Oracle.psnr(ours[12], unturned[12].map(Double.init)) < psnr - 10)
    }

    @Test("still: exactly as long as its audio, even dimensions, alpha on the background colour")
    func still() throws {
        let dir = try Oracle.scratch()
        let png = dir + "/odd.png"
        // 101×75: the left half opaque red, the right half fully transparent.
        let made = try Oracle.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=red:s=101x75,format=rgba",
                                      "-vf", "geq=r='255':g='0':b='0':a='if(lt(X,50),255,0)'", "-frames:v", "1", png])
        #expect(made.status == 0, "\(made.stderr)")
        let sound = dir + "/sound.wav"
        _ = try Oracle.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=440:r=44100:d=1.3", sound])
        let out = dir + "/still.mp4"
        let r = try Oracle.mixwrite(["still", png, sound, "-o", out, "--background", "0000FF"])
        #expect(r.status == 0, "\(r.stderr)")
        let probe = try Oracle.probe(out)
        let w = probe.video.first?.width ?? 1, h = probe.video.first?.height ?? 1
        #expect(w % 2 == 0 && h % 2 == 0 && abs(w - 101) <= 1 && abs(h - 75) <= 1, "\(w)x\(h)")
        let video = try Oracle.decodedDuration(out, stream: "v:0"), audio = try Oracle.decodedDuration(out, stream: "a:0")
        #expect(abs(audio - 1.3) <= 1024.0 / 48000 + 1e-6, "audio \(audio)")
        #expect(abs(video - audio) <= 1024.0 / 48000 + 1e-6, "video \(video), audio \(audio)")
        let frame = try Oracle.decodeRGB(out).frames[0]
        let left = 3 * (h / 2 * w + 10), right = 3 * (h / 2 * w + w - 10)
        #expect(frame[left] > 200 && frame[left + 2] < 60, "opaque red stays red")
        #expect(frame[right] < 60 && frame[right + 2] > 200, "transparent shows the blue background")
    }

    @Test("the rotated and odd files of the corpus go through blend, concat and still (MIXWRITE_CORPUS)",
          .enabled(if: Oracle.corpus != nil, "MIXWRITE_CORPUS is not set: the corpus rotated and odd files are not run"))
    func corpusRotatedAndOdd() throws {
        let corpus = try #require(Oracle.corpus)
        let dir = try Oracle.scratch()
        let movies = try Oracle.listing(corpus + "/rotation").map { corpus + "/rotation/" + $0 }
            + ["odd_518x488_h264_aac.mp4", "odd_161x121_vp9_noaudio.webm", "odd_496x241_cineform.mov"].map { corpus + "/video/" + $0 }
        #expect(movies.count >= 6, "the corpus's rotation folder and odd files: \(movies)")
        for (i, movie) in movies.enumerated() {
            let concat = try Oracle.mixwrite(["concat", movie, Oracle.fixture("base.mov"), "-o", dir + "/c\(i).mp4", "--size", "320x240"])
            #expect(concat.status == 0, "concat \(movie): \(concat.stderr)")
            let blend = try Oracle.mixwrite([Oracle.fixture("fx.mov"), movie, "-o", dir + "/b\(i).mov", "--duration", "fx"])
            #expect(blend.status == 0, "blend over \(movie): \(blend.stderr)")
            if blend.status == 0 {
                let clean = try Oracle.ffmpeg(["-v", "error", "-i", dir + "/b\(i).mov", "-f", "null", "-"])
                #expect(clean.stderr.isEmpty, "\(movie): \(clean.stderr)")
            }
        }
        let images = try Oracle.listing(corpus + "/images").map { corpus + "/images/" + $0 }
        #expect(images.count >= 3, "the corpus's images: \(images)")
        for (i, image) in images.enumerated() {
            let still = try Oracle.mixwrite(["still", image, Oracle.fixture("tone.m4a"), "-o", dir + "/s\(i).mp4"])
            #expect(still.status == 0, "still \(image): \(still.stderr)")
            if still.status == 0 {
                let p = try Oracle.probe(dir + "/s\(i).mp4")
                #expect((p.video.first?.width ?? 1) % 2 == 0 && (p.video.first?.height ?? 1) % 2 == 0, "\(image)")
            }
        }
    }
}
