import Testing
@testable import FFmpegSupport

@Suite("MediaTime: rational time")
struct MediaTimeTests {
    @Test("rescaling rounds to nearest and compares exactly across time bases")
    func rescale() {
        let t = MediaTime(value: 1001, timescale: 30000)   // one NTSC frame
        #expect(t.ticks(in: Rational(1, 48000)) == 1602)    // 1601.6 rounds up
        #expect(t.ticks(in: Rational(1, 48000), roundingUp: false) == 1601)
        #expect(MediaTime(value: 1, timescale: 25) == MediaTime(value: 40, timescale: 1000))
        #expect(MediaTime(value: 1, timescale: 3) < MediaTime(value: 333_334, timescale: 1_000_000))
        #expect(MediaTime(value: 1, timescale: 3) > MediaTime(value: 333_333, timescale: 1_000_000))
    }

    /// Each case: a/sa + b/sb = n/d exactly, whatever the two timescales (a common timescale, not the larger one).
    @Test("sums and differences are exact for any pair of timescales", arguments: [
        (Int64(1), Int64(25), Int64(1), Int64(50), Int64(3), Int64(50)),
        (1, 3, 1, 2, 5, 6),                                   // rounding to the larger timescale gave 1 s
        (1001, 30000, 1, 44100, 147_247, 4_410_000),           // an NTSC frame and one sample at 44.1 kHz
        (7, 2_147_483_647, 1, 2_147_483_629, 17_179_869_050, 4_611_685_975_477_714_963), // two large primes
        (-1, 3, 1, 7, -4, 21),
    ])
    func sums(_ a: Int64, _ sa: Int64, _ b: Int64, _ sb: Int64, _ n: Int64, _ d: Int64) {
        let x = MediaTime(value: a, timescale: sa), y = MediaTime(value: b, timescale: sb)
        let sum = x + y
        #expect(sum == MediaTime(value: n, timescale: d), "\(a)/\(sa) + \(b)/\(sb) gave \(sum.value)/\(sum.timescale)")
        #expect(sum - y == x)
        #expect(sum - x == y)
    }

    @Test("seconds parse exactly", arguments: [("1.5", Int64(1_500_000)), ("0.040", 40_000), ("12", 12_000_000), ("-0.5", -500_000)])
    func parse(_ text: String, _ micros: Int64) {
        #expect(MediaTime(seconds: text) == MediaTime(value: micros, timescale: 1_000_000))
    }

    @Test("nonsense does not parse", arguments: ["", "abc", "1.2.3", "1.", "1e3"])
    func rejects(_ text: String) {
        #expect(MediaTime(seconds: text) == nil)
    }

    @Test("frame rates parse, NTSC rates exactly")
    func rates() {
        #expect(Rational(parsing: "29.97") == Rational(30000, 1001))
        #expect(Rational(parsing: "30000/1001") == Rational(30000, 1001))
        #expect(Rational(parsing: "25") == Rational(25, 1))
        #expect(Rational(parsing: "0") == nil)
        #expect(Rational(parsing: "x") == nil)
    }
}
