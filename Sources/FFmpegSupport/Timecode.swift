internal import CFFmpeg

/// SMPTE timecode (`01:00:00:00`; `;` before the frames for drop-frame at 29.97 and 59.94), counted at a rate by
/// libavutil's timecode functions.
public enum Timecode {
    /// `text` moved on by `frames` at `rate` (`01:00:00:00` + 25 frames at 25 fps: `01:00:01:00`), drop-frame kept as
    /// the text says; nil when `text` is not a timecode at that rate. The corresponding FFmpeg calls are
    /// `av_timecode_init_from_string` and `av_timecode_make_string`.
    public static func advanced(_ text: String, by frames: Int, rate: Rational) -> String? {
        var tc = AVTimecode()
        guard av_timecode_init_from_string(&tc, rate.av, text, nil) >= 0, frames >= 0, frames <= Int(Int32.max) else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(AV_TIMECODE_STR_SIZE))
        guard let s = av_timecode_make_string(&tc, &buffer, Int32(frames)) else { return nil }
        return String(cString: s)
    }
}
