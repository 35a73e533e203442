import FFmpegSupport

/// One audio track's sound placed by its own timestamps, as the ffmpeg CLI's `aresample=async` places it: each decoded
/// frame is compared with where the sound before it ends. A frame that starts later than that by more than
/// `tolerance` has the gap before it filled with silence of the gap's length; one that starts earlier (an overlap, a
/// step back) has what lies under the sound before it dropped. Less than `tolerance` is left as it is: AAC's priming,
/// a container's timestamps rounded to the millisecond and a muxer's jitter are not sound missing, and a correction
/// there would be a click. The first frame sets the track's place: later than its planned start by more than
/// `tolerance` (a track whose header gives no start), silence before it; else the track starts at its planned start,
/// as edit lists and priming have always placed it.
struct TrackClock {
    /// How far a frame's timestamp may lie from the end of the sound before it, in seconds, before the sound is moved
    /// to it (`MediaFile.timingTolerance`).
    static let tolerance = MediaFile.timingTolerance

    /// What to do with a frame.
    enum Step: Equatable {
        /// Its samples as they are.
        case play
        /// This many samples of silence first, then its samples.
        case silenceFirst(Int)
        /// Its first this many samples are under the sound before it: dropped.
        case dropLeading(Int)
        /// All of it is under the sound before it.
        case drop
    }

    /// One correction made: seconds on the file's timeline where the sound was moved, and by how much (silence
    /// inserted, or sound dropped).
    struct Correction: Equatable {
        var filled: Bool
        /// The silence before the first frame (a track that starts later than planned).
        var leading = false
        var at: Double
        var length: Double
    }

    /// The track's planned start on its file's timeline (the file's origin included), in the stream's time base.
    private let start: Int64
    private let timeBase: Rational
    /// Samples placed so far (inserted silence included), at `rate`.
    private var placed: Int64 = 0
    private var rate = 0
    /// Where the first frame's timestamp lies against the planned start, in samples, when it was taken as the start.
    private var skew: Int64?
    private(set) var corrections: [Correction] = []
    /// Dropping an overlap that has not ended yet.
    private var trimming = false

    init(start: MediaTime, timeBase: Rational) {
        self.start = start.ticks(in: timeBase)
        self.timeBase = timeBase
    }

    /// Where the frame with timestamp `pts` (the stream's time base; nil: none) and `samples` samples at `sampleRate`
    /// goes, and the clock moved past it.
    mutating func step(pts: Int64?, samples: Int, sampleRate: Int) -> Step {
        if rate != sampleRate {
            // A track whose rate changes keeps its place: what was placed, counted at the new rate.
            if rate > 0 { placed = placed * Int64(sampleRate) / Int64(rate); skew = skew.map { $0 * Int64(sampleRate) / Int64(rate) } }
            rate = sampleRate
        }
        let tolerance = Int64(Self.tolerance * Double(sampleRate))
        guard let pts else { placed += Int64(samples); return .play }
        let at = Self.rescale(pts - start, from: timeBase, toRate: sampleRate)
        guard let skew else {
            if at > tolerance {
                record(filled: true, at: 0, length: at)
                corrections[0].leading = true
                self.skew = 0
                placed = at + Int64(samples)
                return .silenceFirst(Int(at))
            }
            self.skew = at
            placed = Int64(samples)
            return .play
        }
        let gap = at - skew - placed
        if gap > tolerance {
            trimming = false
            record(filled: true, at: placed, length: gap)
            placed += gap + Int64(samples)
            return .silenceFirst(Int(gap))
        }
        // An overlap, once it is over the tolerance, is dropped whole: the frames after its first are still under the
        // sound before them until the timestamps catch up.
        if gap < -tolerance || (trimming && gap < 0) {
            trimming = true
            let under = min(-gap, Int64(samples))
            record(filled: false, at: at - skew, length: under)
            placed += Int64(samples) - under
            return under == Int64(samples) ? .drop : .dropLeading(Int(under))
        }
        trimming = false
        placed += Int64(samples)
        return .play
    }

    /// A correction, in seconds on the file's timeline; one that continues the last (a run of overlapping frames)
    /// lengthens it.
    private mutating func record(filled: Bool, at: Int64, length: Int64) {
        let rate = Double(self.rate)
        func seconds(_ n: Int64) -> Double { Double(n) / rate }
        let startSeconds = Double(start) * timeBase.doubleValue
        if !filled, var last = corrections.last, !last.filled, abs(last.at + last.length - (startSeconds + seconds(at))) < Self.tolerance {
            last.length += seconds(length)
            corrections[corrections.count - 1] = last
            return
        }
        corrections.append(Correction(filled: filled, at: startSeconds + seconds(at), length: seconds(length)))
    }

    private static func rescale(_ ticks: Int64, from timeBase: Rational, toRate rate: Int) -> Int64 {
        MediaTime(ticks: ticks, timeBase: timeBase).ticks(in: Rational(1, Int32(rate)))
    }

    /// The corrections in words, for the warning that names `track` (`gap.mkv:1`); nil without any.
    static func describe(_ corrections: [Correction], track: String, origin: Double) -> String? {
        guard let first = corrections.first else { return nil }
        func s(_ x: Double) -> String { NumberText.milliseconds(x) }
        func one(_ c: Correction) -> String {
            c.leading ? "starts at \(s(c.at + c.length - origin)) s, where its first packet lies (\(s(c.length)) s after the start its header gives)"
                : c.filled ? "\(s(c.length)) s of silence inserted at \(s(c.at - origin)) s (a gap in its timestamps)"
                : "\(s(c.length)) s of sound dropped at \(s(c.at - origin)) s (its timestamps step back over the sound before)"
        }
        if corrections.count == 1 { return "\(track): \(one(first))" }
        let filled = corrections.filter(\.filled), dropped = corrections.filter { !$0.filled }
        var parts: [String] = []
        if !filled.isEmpty {
            parts.append("\(filled.count) gap\(filled.count == 1 ? "" : "s") filled with \(s(filled.map(\.length).reduce(0, +))) s of silence")
        }
        if !dropped.isEmpty {
            parts.append("\(s(dropped.map(\.length).reduce(0, +))) s of overlapping sound dropped in \(dropped.count) place\(dropped.count == 1 ? "" : "s")")
        }
        return "\(track): its timestamps were followed: \(parts.joined(separator: ", ")); the first: \(one(first))"
    }
}

/// The corrections the audio readers made to their tracks' timing, as warnings by file: each track's said once per
/// job, however many passes read it (a loudness measurement, a stem). Process-wide by path, as DamageLog.
enum TimingLog {
    /// Forgotten for a job's tracks once it is planned, taken when it is done.
    static let lines = FileNotes()

    static func record(_ path: String, _ source: AudioSource, _ corrections: [TrackClock.Correction], origin: Double) {
        guard let line = TrackClock.describe(corrections, track: "\(source.shownPath):\(source.track)", origin: origin) else { return }
        lines.add(path, line)
    }
}

extension TrackClock {
    /// Decoded `frames` of the track placed by their timestamps (`step`): silence before a late one, the overlap of an
    /// early one dropped.
    mutating func place(_ frames: [Frame]) throws(FFmpegError) -> [Frame] {
        var placed: [Frame] = []
        for decoded in frames where decoded.sampleCount > 0 {
            switch step(pts: decoded.bestEffortTimestamp, samples: decoded.sampleCount, sampleRate: decoded.sampleRate) {
            case .play: placed.append(decoded)
            case .drop: break
            case .dropLeading(let n): placed.append(try decoded.droppingLeading(n))
            case .silenceFirst(let n):
                // In blocks of a second: a long gap is many frames, none of them huge.
                var left = n
                while left > 0 {
                    let count = min(left, max(1, decoded.sampleRate))
                    placed.append(try decoded.silence(samples: count))
                    left -= count
                }
                placed.append(decoded)
            }
        }
        return placed
    }
}
