internal import CFFmpeg

/// A rational point or span of media time: `value / timescale` seconds, as AVFoundation's `CMTime`.
/// The pipeline never keeps time as a `Double`; conversions go through `av_rescale_rnd`, and sums and
/// differences are exact: they are taken on a common timescale (the least common multiple).
public struct MediaTime: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public var value: Int64
    public var timescale: Int64

    public init(value: Int64, timescale: Int64) {
        precondition(timescale > 0, "a MediaTime needs a positive timescale")
        self.value = value
        self.timescale = timescale
    }

    /// For 32-bit timescales (frame rates' numerators, FFmpeg's time bases); literals take the 64-bit init.
    @_disfavoredOverload
    public init(value: Int64, timescale: Int32) {
        self.init(value: value, timescale: Int64(timescale))
    }

    public static let zero = MediaTime(value: 0, timescale: Int64(1))

    /// One tick of `rate`'s frames: `n` frames of `rate` last `n · den / num` seconds.
    public init(frames n: Int64, rate: Rational) {
        let (v, overflow) = n.multipliedReportingOverflow(by: Int64(rate.den))
        self.init(value: overflow ? (n < 0 ? .min : .max) : v, timescale: Int64(rate.num))
    }

    /// A time given in a stream's time base (`num/den` seconds a tick), exactly.
    public init(ticks: Int64, timeBase: Rational) {
        precondition(timeBase.isValid, "a time base must be positive")
        let (v, overflow) = ticks.multipliedReportingOverflow(by: Int64(timeBase.num))
        if !overflow {
            self.init(value: v, timescale: Int64(timeBase.den))
        } else {
            self.init(value: av_rescale_q(ticks, timeBase.av, AVRational(num: 1, den: 1_000_000)), timescale: Int64(1_000_000))
        }
    }

    /// This time in ticks of `timeBase`, rounded to nearest. The corresponding FFmpeg call is `av_rescale_rnd`.
    public func ticks(in timeBase: Rational) -> Int64 {
        rescaled(to: timeBase, AV_ROUND_NEAR_INF)
    }

    /// This time in ticks of `timeBase`, with an explicit rounding. The corresponding FFmpeg call is `av_rescale_rnd`.
    public func ticks(in timeBase: Rational, roundingUp: Bool) -> Int64 {
        rescaled(to: timeBase, roundingUp ? AV_ROUND_UP : AV_ROUND_DOWN)
    }

    /// value/timescale in ticks of num/den: value · den / (timescale · num), computed without overflow
    /// by FFmpeg (it keeps 128 bits in the middle).
    private func rescaled(to timeBase: Rational, _ rounding: AVRounding) -> Int64 {
        let (c, overflow) = timescale.multipliedReportingOverflow(by: Int64(timeBase.num))
        if !overflow { return av_rescale_rnd(value, Int64(timeBase.den), c, rounding) }
        // A timescale this fine (past 2^62 / num) never comes from media: go through the value in seconds.
        return av_rescale_rnd(av_rescale_rnd(value, Int64(1_000_000_000), timescale, rounding),
                              Int64(timeBase.den), Int64(timeBase.num) * 1_000_000_000, rounding)
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

    /// Exact: compares value·other.timescale with other.value·timescale in 128 bits.
    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool {
        compare(lhs, rhs) < 0
    }

    public static func == (lhs: MediaTime, rhs: MediaTime) -> Bool {
        compare(lhs, rhs) == 0
    }

    private static func compare(_ a: MediaTime, _ b: MediaTime) -> Int {
        let l = a.value.multipliedFullWidth(by: b.timescale)
        let r = b.value.multipliedFullWidth(by: a.timescale)
        if l.high != r.high { return l.high < r.high ? -1 : 1 }
        if l.low != r.low { return l.low < r.low ? -1 : 1 }
        return 0
    }

    public func hash(into hasher: inout Hasher) {
        let r = reduced
        hasher.combine(r.value)
        hasher.combine(r.timescale)
    }

    /// The same time with value and timescale divided by their greatest common divisor.
    public var reduced: MediaTime {
        let g = gcd(value.magnitude, UInt64(timescale))
        guard g > 1 else { return self }
        return MediaTime(value: value / Int64(g), timescale: timescale / Int64(g))
    }

    /// Sums and differences never wrap: past 64 bits they stop at the largest time there is (`Int64.max` ticks, of
    /// their sign), which every bound on a length then refuses, as a hostile timeline's huge gaps.
    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime { combine(lhs, rhs, saturating(Int64.addingReportingOverflow)) }

    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime { combine(lhs, rhs, saturating(Int64.subtractingReportingOverflow)) }

    /// `op` stopped at `Int64.max` or `.min` where it would overflow (its sign then is its left operand's).
    private static func saturating(_ op: @escaping (Int64) -> (Int64) -> (partialValue: Int64, overflow: Bool)) -> (Int64, Int64) -> Int64 {
        { a, b in
            let (v, overflow) = op(a)(b)
            return overflow ? (a < 0 ? .min : .max) : v
        }
    }

    /// The sum or difference on the least common multiple of the two timescales, reduced: exact whenever
    /// that timescale fits 64 bits (any two 32-bit timescales do).
    private static func combine(_ lhs: MediaTime, _ rhs: MediaTime, _ op: (Int64, Int64) -> Int64) -> MediaTime {
        if lhs.timescale == rhs.timescale { return MediaTime(value: op(lhs.value, rhs.value), timescale: lhs.timescale) }
        let a = lhs.reduced, b = rhs.reduced
        let g = Int64(gcd(UInt64(a.timescale), UInt64(b.timescale)))
        let (common, o1) = (a.timescale / g).multipliedReportingOverflow(by: b.timescale)
        let (x, o2) = a.value.multipliedReportingOverflow(by: common / a.timescale)
        let (y, o3) = b.value.multipliedReportingOverflow(by: common / b.timescale)
        if !(o1 || o2 || o3) { return MediaTime(value: op(x, y), timescale: common).reduced }
        // Past 64 bits: nanoseconds, the finest a person could tell apart.
        let ns = Rational(1, 1_000_000_000)
        return MediaTime(value: op(a.ticks(in: ns), b.ticks(in: ns)), timescale: Int64(1_000_000_000))
    }

    /// This time times `factor` (num/den, num ≥ 0), exactly while the terms fit 64 bits, else to the nanosecond: a span
    /// of output at a speed, as media. The corresponding FFmpeg call past 64 bits is `av_rescale`.
    public func scaled(by factor: Rational) -> MediaTime {
        let (v, o1) = value.multipliedReportingOverflow(by: Int64(factor.num))
        let (t, o2) = timescale.multipliedReportingOverflow(by: Int64(max(1, factor.den)))
        if !(o1 || o2) { return MediaTime(value: v, timescale: t).reduced }
        let ns = av_rescale(ticks(in: Rational(1, 1_000_000_000)), Int64(factor.num), Int64(max(1, factor.den)))
        return MediaTime(value: ns, timescale: Int64(1_000_000_000))
    }

    /// A time in seconds to the nearest microsecond; nil when not finite or beyond ±2^53 µs.
    public init?(seconds x: Double) {
        let us = (x * 1_000_000).rounded()
        guard us.isFinite, abs(us) <= 9_007_199_254_740_992 else { return nil }
        self.init(value: Int64(us), timescale: Int64(1_000_000))
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
        self.init(value: negative ? -micros : micros, timescale: Int64(1_000_000))
    }
}

private func gcd(_ a: UInt64, _ b: UInt64) -> UInt64 {
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

    init(_ r: AVRational) { self.init(r.num, r.den) }

    var av: AVRational { AVRational(num: num, den: den) }
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
