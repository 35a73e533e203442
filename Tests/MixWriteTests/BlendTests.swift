import Foundation
import Testing
import TestSupport

/// The blend end to end through the `mixwrite` binary, each output read back by ffprobe/ffmpeg.
@Suite("blend: mixwrite FX BASE -o OUT")
struct BlendTests {
    /// One blend of the fixtures, shared by the checks that only read it.
    static let blended: Result<String, any Error> = Result {
        let dir = try Oracle.scratch("blended")
        let out = dir + "/out.mov"
        let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", out, "--progress", "none"])
        guard r.status == 0 else { throw OracleError("mixwrite failed (\(r.status)): \(r.stderr)") }
        return out
    }

    @Test("one H.264 and one AAC stream, at base's size")
    func streams() throws {
        let out = try Self.blended.get()
        let probe = try Oracle.probe(out)
        #expect(probe.video.count == 1)
        #expect(probe.audio.count == 1)
        #expect(probe.video.first?.codec == "h264")
        #expect(probe.video.first?.width == 320)
        #expect(probe.video.first?.height == 240)
        #expect(probe.video.first?.raw["pix_fmt"] == "yuv420p")
        #expect(probe.audio.first?.codec == "aac")
        #expect(probe.audio.first?.sampleRate == 48000)
        #expect(probe.audio.first?.channels == 2, "a stereo source makes the mix stereo")
    }

    @Test("video and audio each last base's 2 s (within a frame and an AAC frame)")
    func durations() throws {
        let out = try Self.blended.get()
        let video = try Oracle.decodedDuration(out, stream: "v:0")
        let audio = try Oracle.decodedDuration(out, stream: "a:0")
        #expect(abs(video - 2.0) <= 1.0 / 25 + 1e-6, "video lasts \(video)")
        #expect(abs(audio - 2.0) <= 1024.0 / 48000 + 1e-6, "audio lasts \(audio)")
        let frames = try Oracle.probe(out).video.first?.frames
        #expect(frames == 50)
    }

    @Test("the mix holds every input track's tone, each within 6 dB of the others")
    func everyToneInTheMix() throws {
        let out = try Self.blended.get()
        let mix = try Oracle.decodeAudio(out, channels: 2)
        let left = Oracle.channel(mix, 0, of: 2), right = Oracle.channel(mix, 1, of: 2)
        // Skip the first and last 0.1 s: encoder priming and the limiter's ramps are not the point here.
        let body = { (s: [Float]) in Array(s[4800..<(s.count - 4800)]) }
        for channel in [body(left), body(right)] {
            let tones = [440.0, 1000.0, 660.0].map { Oracle.toneLevel(channel, frequency: $0) }
            // Every source was made at -12 dBFS; mono fx:1 plays at its own level in both channels.
            for (f, level) in zip([440, 1000, 660], tones) {
                #expect(abs(level - -12) < 1.5, "\(f) Hz at \(level) dBFS")
            }
            #expect((tones.max()! - tones.min()!) < 6)
            // A frequency nobody made stays far down: the check above can fail.
            #expect(Oracle.toneLevel(channel, frequency: 1500) < -50)
        }
    }

    @Test("keyed pixels match a float GPUImage reference from the decoded inputs (PSNR ≥ 30 dB through 4:2:0 and H.264)")
    func keyedPixels() throws {
        let out = try Self.blended.get()
        let base = try Oracle.decodeRGB(Oracle.fixture("base.mov"))
        let result = try Oracle.decodeRGB(out)
        #expect(result.frames.count == 50)
        for n in [0, 7, 19, 33, 49] {
            // GPUImage's path (GL_LINEAR chroma, RGBA8 texture, per-pixel key) on the decoded YUV of both inputs.
            let reference = GPUImageReference.blend(fx: try GPUImageReference.decode(Oracle.fixture("fx.mov"), frame: n),
                                                    base: try GPUImageReference.decode(Oracle.fixture("base.mov"), frame: n), .bt601)
                .rgb.flatMap { [$0.0 * 255, $0.1 * 255, $0.2 * 255] }
            // The movie shown as GPUImage shows a movie (GL_LINEAR); what remains is 4:2:0 and H.264.
            let shown = GPUImageReference.rgbTexture(try GPUImageReference.decode(out, frame: n), .bt601)
                .flatMap { [$0.0, $0.1, $0.2].map { UInt8(($0 * 255).rounded()) } }
            let psnr = Oracle.psnr(shown, reference)
            #expect(psnr >= 30, "frame \(n): PSNR \(psnr) dB")
            // The keyed-out screen really shows base: against base alone the picture differs where fx is kept.
            let baseOnly = base.frames[n].map(Double.init)
            #expect(Oracle.psnr(shown, baseOnly) < psnr - 3, "frame \(n) looks like base alone")
        }
    }

    @Test("ffmpeg decodes the output without a single error")
    func decodesCleanly() throws {
        let out = try Self.blended.get()
        let r = try Oracle.ffmpeg(["-v", "error", "-i", out, "-f", "null", "-"])
        #expect(r.status == 0)
        #expect(r.stderr.isEmpty, "ffmpeg said: \(r.stderr)")
    }

    @Test("inputs without audio give an output without an audio stream")
    func noAudio() throws {
        let dir = try Oracle.scratch()
        let out = dir + "/silent.mp4"
        let r = try Oracle.mixwrite([Oracle.fixture("noaudio.mov"), Oracle.fixture("noaudio.mov"), "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        let probe = try Oracle.probe(out)
        #expect(probe.video.count == 1)
        #expect(probe.audio.isEmpty)
    }

    @Test("--audio-tracks first keeps one track a file; --mute leaves a source out")
    func trackSelection() throws {
        let dir = try Oracle.scratch()
        let out = dir + "/first.mov"
        let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", out,
                                     "--audio-tracks", "first", "--mute", "base"])
        #expect(r.status == 0, "\(r.stderr)")
        let mix = try Oracle.decodeAudio(out, channels: 1)
        let body = Array(mix[4800..<(mix.count - 4800)])
        #expect(Oracle.toneLevel(body, frequency: 440) > -15)
        #expect(Oracle.toneLevel(body, frequency: 1000) < -50, "fx:2 is not the first track")
        #expect(Oracle.toneLevel(body, frequency: 660) < -50, "base is muted")
        #expect(try Oracle.probe(out).audio.first?.channels == 1, "only a mono source is left: the mix is mono")
    }

    @Test("--size and --fps set the output's picture")
    func sizeAndRate() throws {
        let dir = try Oracle.scratch()
        let out = dir + "/small.mkv"
        let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", out,
                                     "--size", "160x120", "--fps", "10"])
        #expect(r.status == 0, "\(r.stderr)")
        let probe = try Oracle.probe(out)
        #expect(probe.video.first?.width == 160)
        #expect(probe.video.first?.height == 120)
        #expect(probe.video.first?.frames == 20)
        #expect(probe.video.first?.raw["avg_frame_rate"] == "10/1")
    }
}
