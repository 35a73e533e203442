import CFFmpeg

/// A rational point or span of media time: `value / timescale` seconds, as AVFoundation's `CMTime`.
/// The pipeline never keeps time as a `Double`; conversions go through `av_rescale_q`.
public struct MediaTime: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public var value: Int64
    public var timescale: Int32

    public init(value: Int64, timescale: Int32) {
        precondition(timescale > 0, "a MediaTime needs a positive timescale")
        self.value = value
        self.timescale = timescale
    }

    public static let zero = MediaTime(value: 0, timescale: 1)

    /// A time given in a stream's time base (`num/den` seconds a tick).
    public init(ticks: Int64, timeBase: Rational) {
        // Express it exactly when the time base is 1/den; otherwise rescale to microseconds.
        if timeBase.num == 1, timeBase.den > 0 {
            self.init(value: ticks, timescale: timeBase.den)
        } else {
            let micros: Int64 = av_rescale_q(ticks, timeBase.av, AVRational(num: 1, den: 1_000_000))
            self.init(value: micros, timescale: 1_000_000)
        }
    }

    /// This time in ticks of `timeBase`, rounded to nearest. The corresponding FFmpeg call is `av_rescale_q`.
    public func ticks(in timeBase: Rational) -> Int64 {
        av_rescale_q(value, AVRational(num: 1, den: timescale), timeBase.av)
    }

    /// This time in ticks of `timeBase`, with an explicit rounding. The corresponding FFmpeg call is `av_rescale_q_rnd`.
    public func ticks(in timeBase: Rational, roundingUp: Bool) -> Int64 {
        let rounding = roundingUp ? AV_ROUND_UP : AV_ROUND_DOWN
        return av_rescale_q_rnd(value, AVRational(num: 1, den: timescale), timeBase.av, rounding)
    }

    public func converted(to timescale: Int32) -> MediaTime {
        MediaTime(value: ticks(in: Rational(1, timescale)), timescale: timescale)
    }

    /// Seconds, for people and reports only.
    public var seconds: Double { Double(value) / Double(timescale) }

    public var description: String {
        let ms = ticks(in: Rational(1, 1000))
        let sign = ms < 0 ? "-" : ""
        let a = abs(ms)
        let frac = String(a % 1000)
        return "\(sign)\(a / 1000).\(String(repeating: "0", count: 3 - frac.count))\(frac)s"
    }

    /// The corresponding FFmpeg call is `av_compare_ts`.
    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool {
        av_compare_ts(lhs.value, AVRational(num: 1, den: lhs.timescale),
                      rhs.value, AVRational(num: 1, den: rhs.timescale)) < 0
    }

    public static func == (lhs: MediaTime, rhs: MediaTime) -> Bool {
        av_compare_ts(lhs.value, AVRational(num: 1, den: lhs.timescale),
                      rhs.value, AVRational(num: 1, den: rhs.timescale)) == 0
    }

    public func hash(into hasher: inout Hasher) {
        let g = gcd(abs(value), Int64(timescale))
        hasher.combine(g == 0 ? 0 : value / g)
        hasher.combine(g == 0 ? 1 : Int64(timescale) / g)
    }

    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        if lhs.timescale == rhs.timescale { return MediaTime(value: lhs.value + rhs.value, timescale: lhs.timescale) }
        let scale = max(lhs.timescale, rhs.timescale)
        return MediaTime(value: lhs.converted(to: scale).value + rhs.converted(to: scale).value, timescale: scale)
    }

    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        if lhs.timescale == rhs.timescale { return MediaTime(value: lhs.value - rhs.value, timescale: lhs.timescale) }
        let scale = max(lhs.timescale, rhs.timescale)
        return MediaTime(value: lhs.converted(to: scale).value - rhs.converted(to: scale).value, timescale: scale)
    }

    /// Parses "12", "1.5" or "0.040" seconds exactly (as milliseconds at most microsecond precision).
    public init?(seconds text: String) {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = parts.first, !text.isEmpty else { return nil }
        let negative = first.hasPrefix("-")
        let whole = negative ? first.dropFirst() : first[...]
        guard whole.allSatisfy(\.isNumber), let w = Int64(whole.isEmpty ? "0" : String(whole)) else { return nil }
        var frac: Int64 = 0
        if parts.count == 2 {
            guard !parts[1].isEmpty, parts[1].allSatisfy(\.isNumber) else { return nil }
            var digits = String(parts[1].prefix(6))
            while digits.count < 6 { digits += "0" }
            frac = Int64(digits) ?? 0
        }
        let micros = w * 1_000_000 + frac
        self.init(value: negative ? -micros : micros, timescale: 1_000_000)
    }
}

private func gcd(_ a: Int64, _ b: Int64) -> Int64 {
    var (a, b) = (a, b)
    while b != 0 { (a, b) = (b, a % b) }
    return a
}

/// A rational number (a time base, a frame rate, an aspect ratio), our name for `AVRational`.
public struct Rational: Sendable, Hashable, Codable, CustomStringConvertible {
    public var num: Int32
    public var den: Int32

    public init(_ num: Int32, _ den: Int32) {
        self.num = num
        self.den = den
    }

    public init(_ r: AVRational) { self.init(r.num, r.den) }

    public var av: AVRational { AVRational(num: num, den: den) }
    public var isValid: Bool { num > 0 && den > 0 }
    public var inverted: Rational { Rational(den, num) }
    public var doubleValue: Double { den == 0 ? 0 : Double(num) / Double(den) }
    public var description: String { den == 1 ? "\(num)" : "\(num)/\(den)" }

    /// Reduced form, its terms at most `max`. The corresponding FFmpeg call is `av_reduce`.
    public func reduced(max: Int64 = Int64(Int32.max)) -> Rational {
        var n: Int32 = 0, d: Int32 = 0
        av_reduce(&n, &d, Int64(num), Int64(den), max)
        return Rational(n, d)
    }

    /// "30", "29.97", "30000/1001". The corresponding FFmpeg call is `av_parse_ratio`-like `av_d2q`.
    public init?(parsing text: String) {
        if let slash = text.firstIndex(of: "/") {
            guard let n = Int32(text[..<slash]), let d = Int32(text[text.index(after: slash)...]), n > 0, d > 0
            else { return nil }
            self.init(n, d)
        } else if let v = Double(text), v > 0, v.isFinite, v < 10_000 {
            let special: [(Double, Rational)] = [(23.976, Rational(24000, 1001)), (29.97, Rational(30000, 1001)),
                                                 (59.94, Rational(60000, 1001)), (47.952, Rational(48000, 1001))]
            if let match = special.first(where: { abs($0.0 - v) < 0.0005 }) {
                self = match.1
            } else {
                self.init(av_d2q(v, 100_000))
            }
        } else {
            return nil
        }
    }
}
