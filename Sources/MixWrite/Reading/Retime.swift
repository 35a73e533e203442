import FFmpegSupport

/// A clip's time changed on purpose (OTIO's `LinearTimeWarp` and `FreezeFrame`): its output shows its media at
/// `speed` media seconds a second, forwards from its in-point, or backwards over the same media from its end, or the
/// in-point's frame throughout (a freeze, speed 0). Frame n of a clip of N frames at rate r shows the media at
/// `in + n·speed/r`, reversed at `in + (N − 1 − n)·speed/r`: the media frame the CLI's `setpts` then `fps` shows
/// for it (`SequenceStage.Piece.mediaTime`), reversed as the forward clip's frame N − 1 − n; `held` frames at its end
/// hold its last. Its sound is the media's at the same mapped time: stretched with its pitch kept (rubberband), or as a tape
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
    /// Under its freeze, or its held end, the sound at the held frame sustained (`--freeze-audio hold`), not silence.
    var holdsSound = false
    /// How long its sound's held end lasts (a concat clip's `freeze=S` when `holdsSound`); the rest moves.
    var heldSound: MediaTime = .zero
    /// A speed ramp: speeds at output seconds from the clip's start, linear between them, the first before the first
    /// point and the last after the last (`speed=1@0,0.25@2,1@4`); `speed` is then the first. nil: `speed` throughout.
    var ramp: [RampPoint]?

    struct RampPoint: Sendable, Hashable {
        var at: Double
        var speed: Double
    }

    /// The slowest and fastest speeds: rubberband's tempo range.
    static let slowest = 0.01, fastest = 100.0

    /// OTIO's `time_scalar` (negative: reversed; 0: a freeze); nil for 1, which changes nothing, and outside
    /// ±0.01 … ±100 (but 0), which the caller refuses.
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
    func media(_ length: MediaTime) -> MediaTime {
        guard let ramp else { return length.scaled(by: speed) }
        return MediaTime(seconds: Self.integral(ramp, upTo: length.seconds)) ?? .zero
    }

    /// The output that shows `media` of it: `media(_:)`'s inverse (a freeze's: none).
    func output(_ media: MediaTime) -> MediaTime {
        guard let ramp else { return isFreeze ? .zero : media.scaled(by: Rational(speed.den, max(1, speed.num))) }
        return MediaTime(seconds: Self.inverse(ramp, of: media.seconds)) ?? .zero
    }

    /// Whether its speed is not 1 somewhere (a ramp's anywhere).
    var changesSpeed: Bool { speed != Rational(1, 1) || ramp != nil }

    /// The ramp's speed at output second `t`.
    static func speed(_ ramp: [RampPoint], at t: Double) -> Double {
        guard let next = ramp.firstIndex(where: { $0.at > t }) else { return ramp.last?.speed ?? 1 }
        guard next > 0 else { return ramp[0].speed }
        let (a, b) = (ramp[next - 1], ramp[next])
        return a.speed + (b.speed - a.speed) * (t - a.at) / (b.at - a.at)
    }

    /// Media seconds shown by output second `t`: the speed's integral from 0 (exact: linear between the points, so
    /// the trapezoids' sum).
    static func integral(_ ramp: [RampPoint], upTo t: Double) -> Double {
        let knots = [0] + ramp.map(\.at).filter { $0 > 0 && $0 < t } + [t]
        var sum = 0.0
        for (a, b) in zip(knots, knots.dropFirst()) { sum += (b - a) * (speed(ramp, at: a) + speed(ramp, at: b)) / 2 }
        return sum
    }

    /// The output second showing media second `m`: the segment it falls in, its quadratic solved.
    static func inverse(_ ramp: [RampPoint], of m: Double) -> Double {
        guard m > 0 else { return 0 }
        var (t, shown) = (0.0, 0.0)
        for next in ramp.map(\.at).filter({ $0 > 0 }) + [Double.infinity] {
            let va = speed(ramp, at: t), vb = next.isFinite ? speed(ramp, at: next) : va
            let span = next.isFinite ? (next - t) * (va + vb) / 2 : .infinity
            if shown + span >= m {
                let left = m - shown, k = next.isFinite ? (vb - va) / (next - t) : 0
                return t + (abs(k) < 1e-12 ? left / va : (-va + (va * va + 2 * k * left).squareRoot()) / k)
            }
            (t, shown) = (next, shown + span)
        }
        return t
    }

    /// A piece of a retimed sound at one speed: its output and media samples from the clip's start.
    struct SoundPiece: Sendable, Equatable {
        var output: Range<Int64>
        var media: Range<Int64>
        var speed: Rational
        /// A held sound (`holdsSound`): its stretch is heard as a sustain, its stretcher's delay not taken off.
        var holds = false
    }

    /// Output seconds a ramp's sound piece lasts at most.
    static let rampPiece = 0.1

    /// Its sound in pieces of one speed each, in samples of `rate`: one, but a ramp's every `rampPiece` of output (those
    /// of one speed joined), each the media between its ends' mapped times at their mean speed; then a held end's. A
    /// freeze's: its held sound, or none (silent).
    func soundPieces(count: Int64, sampleRate rate: Int) -> [SoundPiece] {
        let sample = Rational(1, Int32(rate))
        if isFreeze { return holdsSound ? [Self.holding(output: 0..<count, from: 0, reversed: false, rate: rate)] : [] }
        let held = holdsSound ? min(count - 1, heldSound.ticks(in: sample)) : 0
        var pieces = movingPieces(count: count - held, sampleRate: rate)
        if held > 0, let last = pieces.last {
            pieces.append(Self.holding(output: (count - held)..<count, from: last.media.upperBound, reversed: reversed, rate: rate))
        }
        return pieces
    }

    /// The least media (seconds) a held sound is stretched from: a few periods of a low voice.
    static let holdGrain = 0.05

    /// A held sound for `output`'s samples: the media's `holdGrain` at the held frame (from `from` on, or before it
    /// when it ends the clip's forward media, since there is none after; a reversed clip's is its start), stretched to
    /// fill it, no slower than the slowest speed (a long hold stretches more of the media).
    private static func holding(output: Range<Int64>, from: Int64, reversed: Bool, rate: Int) -> SoundPiece {
        let length = Int64(output.count)
        let grain = min(length, max(Int64(holdGrain * Double(rate)), Int64((Double(length) * slowest).rounded(.up))))
        let start = from == 0 || reversed ? 0 : max(0, from - grain)
        return SoundPiece(output: output, media: start..<(start + grain), speed: Rational(Int32(grain), Int32(length)).reduced(), holds: true)
    }

    /// The moving part's sound pieces.
    private func movingPieces(count: Int64, sampleRate rate: Int) -> [SoundPiece] {
        guard let ramp else {
            let sample = Rational(1, Int32(rate))
            return [SoundPiece(output: 0..<count, media: 0..<max(1, media(MediaTime(ticks: count, timeBase: sample)).ticks(in: sample)), speed: speed)]
        }
        let step = Int64(Self.rampPiece * Double(rate))
        var pieces: [SoundPiece] = []
        var o: Int64 = 0
        while o < count {
            let end = min(count, o + step)
            let m0 = Int64((Self.integral(ramp, upTo: Double(o) / Double(rate)) * Double(rate)).rounded())
            let m1 = Int64((Self.integral(ramp, upTo: Double(end) / Double(rate)) * Double(rate)).rounded())
            let v = Rational(parsing: String(format: "%.4f", Double(m1 - m0) / Double(end - o))) ?? Rational(1, 1)
            if let last = pieces.last, last.speed == v {
                pieces[pieces.count - 1].output = last.output.lowerBound..<end
                pieces[pieces.count - 1].media = last.media.lowerBound..<m1
            } else {
                pieces.append(SoundPiece(output: o..<end, media: m0..<max(m0 + 1, m1), speed: v))
            }
            o = end
        }
        return pieces
    }

    /// The media time (from the clip's first) to ask a reader for at output offset `t` (its forward offset when
    /// reversed) so that it shows the CLI's frame: a reader shows the last frame at most half an output frame of `rate`
    /// past the time asked, and the CLI's `setpts` then `fps` the last whose time, over the speed, lies less than half an
    /// output frame past `t`: so the media half a frame on, less that half frame and a hair (a frame exactly there is
    /// the next output frame's: a nanosecond; a ramp's media is a Double's, to the microsecond: two). A freeze: 0.
    func readTime(at t: MediaTime, rate: Rational) -> MediaTime {
        guard !isFreeze else { return .zero }
        let half = MediaTime(frames: 1, rate: rate).scaled(by: Rational(1, 2))
        let hair = ramp == nil ? MediaTime(value: 1, timescale: Int64(1_000_000_000)) : MediaTime(value: 2, timescale: Int64(1_000_000))
        return media(t + half) - half - hair
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
