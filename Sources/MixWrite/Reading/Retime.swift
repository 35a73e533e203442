import FFmpegSupport

/// A clip's time changed on purpose (OTIO's `LinearTimeWarp` and `FreezeFrame`): its output shows its media at
/// `speed` media seconds a second, forwards from its in-point, or backwards over the same media from its end, or the
/// in-point's frame throughout (a freeze, speed 0). Frame n of a clip of N frames at rate r shows the media at
/// `in + n·speed/r`, reversed at `in + (N − 1 − n)·speed/r`: the media frame nearest that time (a tie to the later
/// one, as the CLI's `fps` filter), reversed as the forward clip's frame N − 1 − n; `held` frames at its end hold its
/// last. Its sound is the media's at the same mapped time: stretched with its pitch kept (rubberband), or as a tape
/// plays it (`pitchFollows`), reversed with the picture, silent under a freeze.
struct Retime: Sendable, Hashable {
    /// Media seconds a second of output: 2 a time-lapse, 1/2 slow motion, 0 a freeze. Never negative: `reversed` says
    /// the direction.
    var speed: Rational
    var reversed = false
    /// The sound's pitch moves with the speed, as a tape's (`pitch=follow`); by default it is kept.
    var pitchFollows = false
    /// Output frames at the end that hold the last frame (a concat clip's `freeze=S`).
    var held = 0

    /// The slowest and fastest speeds: rubberband's tempo range.
    static let slowest = 0.01, fastest = 100.0

    /// OTIO's `time_scalar` (negative: reversed; 0: a freeze); nil for 1, which changes nothing. A scalar outside
    /// ±0.01 … ±100 (but 0) is refused by the caller with `range`.
    init?(scalar: Double) {
        guard scalar != 1 else { return nil }
        let magnitude = abs(scalar)
        guard magnitude == 0 || (magnitude >= Self.slowest && magnitude <= Self.fastest), magnitude.isFinite else { return nil }
        speed = magnitude == 0 ? Rational(0, 1) : Rational(parsing: String(magnitude)) ?? Rational(1, 1)
        reversed = scalar < 0
    }

    init(speed: Rational, reversed: Bool = false) { (self.speed, self.reversed) = (speed, reversed) }

    var isFreeze: Bool { speed.num == 0 }

    /// The media `length` of output uses.
    func media(_ length: MediaTime) -> MediaTime { length.scaled(by: speed) }

    /// The output that shows `media` of it: `media(_:)`'s inverse (a freeze's: none).
    func output(_ media: MediaTime) -> MediaTime { isFreeze ? .zero : media.scaled(by: Rational(speed.den, max(1, speed.num))) }

    /// Where frame `n` of a piece of `frames` frames at `rate` shows its media, from the piece's first media time
    /// (the in-point less its handle): `n`'s forward time, or `frames − 1 − n`'s when reversed.
    func mediaOffset(ofFrame n: Int, of frames: Int, rate: Rational) -> MediaTime {
        let moving = max(1, frames - held), k = min(n, moving - 1)
        return media(MediaTime(frames: Int64(reversed ? moving - 1 - k : k), rate: rate))
    }

    /// How it reads in a report: "2×", "0.5×", "reversed at 1×", "a freeze".
    var description: String {
        if isFreeze { return "a freeze" }
        let x = NumberText.shortest(speed.doubleValue) + "×"
        return reversed ? "reversed at " + x : x
    }
}

extension MediaFile {
    /// The times of its main video's keyframes (as the container marks them), on its own timeline, in order: where a
    /// reversed clip's windows begin, so each picture is decoded once. Packets are read, not decoded.
    func keyframeTimes() throws(MixWriteError) -> [MediaTime] {
        guard let stream = mainVideo else { return [] }
        let demuxer: Demuxer
        do { demuxer = try Demuxer(url: path) } catch { throw .input(file: path, MediaFile.explain(error)) }
        demuxer.keepOnly([stream.index])
        var times: [MediaTime] = []
        let packet = Packet()
        while (try? demuxer.read(into: packet)) == true {
            if packet.streamIndex == stream.index, packet.isKeyframe, let pts = packet.pts {
                times.append(MediaTime(ticks: pts, timeBase: stream.timeBase) - origin)
            }
        }
        return times.sorted()
    }
}
