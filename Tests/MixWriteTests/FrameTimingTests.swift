import Foundation
import Testing
import TestSupport

/// Pictures by their timestamps: the output's rate is the grid the source's frames are on (not its header's average),
/// its length what is there, and a variable-rate source is conformed to it by time, as the ffmpeg CLI's `fps` filter
/// conforms it (the oracle the frames are held to).
@Suite("pictures placed by their timestamps")
struct FrameTimingTests {
    /// The output's rate as ffprobe states it, and its frame count.
    static func rateAndFrames(_ path: String) throws -> (rate: String, frames: Int) {
        let r = try Oracle.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries",
                                                    "stream=r_frame_rate,nb_read_packets", "-of", "csv=p=0", path])
        let fields = r.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",")
        return (String(fields.first ?? ""), Int(fields.last ?? "") ?? -1)
    }

    @Test("a 30 fps clip with frames missing (a 22.5 fps average) is written at 30 fps, each frame the one showing then, and said")
    func variableRateIsConformed() throws {
        let dir = try Oracle.scratch()
        let vfr = dir + "/vfr.mp4"
        // 4 s at 30 fps, every other frame of the first 2 s dropped: frames on the 1/30 s grid, 90 of them.
        let made = try Oracle.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=4",
                                      "-vf", "select='gte(t,2)+not(mod(n,2))'", "-fps_mode", "passthrough",
                                      "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", vfr])
        try #require(made.status == 0, "\(made.stderr)")
        let stated = try Oracle.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "stream=avg_frame_rate",
                                                         "-of", "csv=p=0", vfr]).stdoutText
        #expect(stated.hasPrefix("45/2"), "the header's average: \(stated)")
        let out = dir + "/out.mp4"
        let r = try Oracle.mixwrite(["concat", vfr, "-o", out, "--progress", "none"], timeout: 120)
        try #require(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("vfr.mp4: its frames are on a 30 fps grid, not the 22.5 fps its header says"), "\(r.stderr)")
        let (rate, frames) = try Self.rateAndFrames(out)
        #expect(rate == "30/1" && frames == 120, "\(rate) fps, \(frames) frames")
        // Each output frame against the CLI's fps filter's (the frame showing at that time), both decoded to gray.
        let mine = try RenderTests.luma(out), cli = try RenderTests.luma(vfr, filters: "fps=30")
        try #require(mine.count == 120 && cli.count == 120, "\(mine.count) and \(cli.count) frames")
        let worst = zip(mine, cli).map { RenderTests.psnr($0, $1) }.min() ?? 0
        #expect(worst > 35, "the worst frame against the CLI's fps=30: \(worst) dB")
    }

    @Test("the corpus's 25p XAVC MXF (its header: 12.5 fps, 13.44 s) is written at 25 fps, as long as its frames",
          .enabled(if: Oracle.corpus != nil, "MIXWRITE_CORPUS is not set: the corpus's MXF is not run"))
    func mxfRateAndLength() throws {
        let mxf = try #require(Oracle.corpus) + "/multiaudio/xavc_1080p_4xpcm24_mono.mxf"
        let dir = try Oracle.scratch()
        let out = dir + "/xavc.mp4"
        let r = try Oracle.mixwrite(["concat", mxf, "--size", "320x180", "-o", out, "--progress", "none"], timeout: 300)
        try #require(r.status == 0, "\(r.stderr)")
        let decoded = try Oracle.run("/usr/bin/ffprobe", ["-v", "quiet", "-select_streams", "v", "-count_frames", "-show_entries",
                                                          "stream=nb_read_frames", "-of", "csv=p=0", mxf]).stdoutText
        let sourceFrames = Int(decoded.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").first ?? "") ?? -1
        let (rate, frames) = try Self.rateAndFrames(out)
        #expect(rate == "25/1" && frames == sourceFrames, "\(rate) fps, \(frames) frames; the MXF decodes \(sourceFrames)")
        let p = try Oracle.probe(out)
        #expect(abs((p.audio.first?.duration ?? 0) - Double(sourceFrames) / 25) < 0.03, "the sound as long as the pictures: \(String(describing: p.audio.first?.duration))")
    }

    @Test("every phone and camera clip of the corpus is written at a rate an editor shows",
          .enabled(if: Oracle.corpus != nil, "MIXWRITE_CORPUS is not set: the corpus's clips are not run"))
    func corpusRatesAreStandard() throws {
        let corpus = try #require(Oracle.corpus)
        let dir = try Oracle.scratch()
        // The odd rates FFmpeg's headers give these: 640000/21003, 6372000/212521, 810000/13487, 750000/71393, 140000/5087;
        // a Matroska file's 60 for frames 33 ms apart, a screen recording's jittered 62 to 72 ms steps, an interlaced
        // stream's fields, each a packet (50 a second).
        let clips = ["video/sef_slowmo_h264_aac12k.mp4": "30/1", "video/sample_720p_h264_ac3.mkv": "30/1",
                     "video/no_duration_vp9_opus.webm": "15000/1001", "multiaudio/h264_1080i_2xmp2_swe_nor.ts": "25/1", "rotation/displaymatrix_rot90_sar12.mov": "30000/1001",
                     "rotation/portrait_4k60_rot90_aac.mp4": "60/1", "video/fire_phone_rot180_vfr_aacMono48k.mp4": nil,
                     "video/hevc_10bit_1080p_vfr_aac.mp4": nil, "video/odd_496x241_cineform.mov": "14587/1000"]
        // A rate an editor shows: a standard one, or one to 1/1000 (a variable-rate phone's 8 to 12.5 fps average).
        func shown(_ rate: String) -> Bool {
            let parts = rate.split(separator: "/").compactMap { Int($0) }
            return parts.count == 2 && parts[1] > 0 && (parts[1] == 1001 || 1000 % parts[1] == 0)
        }
        for (clip, expected) in clips.sorted(by: { $0.key < $1.key }) {
            let out = dir + "/" + clip.replacingOccurrences(of: "/", with: "_") + ".mp4"
            let r = try Oracle.mixwrite(["concat", corpus + "/" + clip, "--size", "160x120", "-o", out, "--progress", "none"], timeout: 300)
            try #require(r.status == 0, "\(clip): \(r.stderr)")
            let (rate, _) = try Self.rateAndFrames(out)
            if let expected { #expect(rate == expected, "\(clip): \(rate) fps") } else { #expect(shown(rate), "\(clip): \(rate) fps") }
        }
    }
}
