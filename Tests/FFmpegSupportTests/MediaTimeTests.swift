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

    @Test("sums keep exactness", arguments: [(Int64(1), Int32(25), Int64(1), Int32(50), 0.06)])
    func sums(_ a: Int64, _ sa: Int32, _ b: Int64, _ sb: Int32, _ seconds: Double) {
        let sum = MediaTime(value: a, timescale: sa) + MediaTime(value: b, timescale: sb)
        #expect(abs(sum.seconds - seconds) < 1e-9)
        #expect((sum - MediaTime(value: b, timescale: sb)) == MediaTime(value: a, timescale: sa))
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
