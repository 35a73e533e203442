import Synchronization
import Foundation
import FFmpegSupport

/// A retimed source's sound changed in speed with its pitch kept, by FFmpeg's `rubberband` filter with its short
/// window (its standard window smears transients by several milliseconds more). The filter's output lies off the
/// input's time over the speed (slowed down, it comes early: about 12 ms at half speed), by an amount that depends on
/// the speed and the rate: measured once a speed and rate, on a train of clicks through the filter itself, and taken
/// off, so a retimed clip's sound meets its picture at its cuts.
enum Stretch {
    static func filter(speed: Rational) -> String { "rubberband=tempo=\(speed.doubleValue):window=short" }

    /// Output seconds of the source's own sound (or silence where there is none) fed before its first sample, so the
    /// filter is past its start-up when the clip begins; taken off again with the measured delay.
    static let preroll = 0.2

    private static let measured = Mutex<[String: Int64]>([:])

    /// How late (in samples of `sampleRate`; negative: early) `filter(speed:)`'s output is against its input's time
    /// divided by the speed.
    static func delay(speed: Rational, sampleRate: Int) throws(MixWriteError) -> Int64 {
        let key = "\(speed) \(sampleRate)"
        if let known = measured.withLock({ $0[key] }) { return known }
        let found = try measure(speed: speed.doubleValue, sampleRate: sampleRate)
        measured.withLock { $0[key] = found }
        return found
    }

    /// Bursts of 4 ms of 3 kHz, 0.5 s (times the speed, when faster) apart from 0.5 s, through the filter: the median of
    /// each burst's onset (its first sample past a third of its peak: a click as an ear and a test place it; a stretcher
    /// smears a burst's end, not its start) against where the speed puts it.
    private static func measure(speed: Double, sampleRate: Int) throws(MixWriteError) -> Int64 {
        let spacing = 0.5 * max(1, speed), bursts = 5
        let length = spacing * Double(bursts + 1)
        let burst = "if(gte(t\\,0.5)*lt(mod(t-0.5\\,\(spacing))\\,0.004)\\,0.5*sin(2*PI*3000*t)\\,0)"
        var samples: [Float] = []
        do throws(FFmpegError) {
            let graph = FilterGraph()
            try graph.addAudioSink(frameSize: nil)
            try graph.configure("aevalsrc=exprs=\(burst):s=\(sampleRate):d=\(length)," + filter(speed: Rational(parsing: String(speed)) ?? Rational(1, 1))
                                + ",aformat=sample_fmts=fltp:channel_layouts=mono[out]")
            let frame = Frame()
            while case .value = try graph.pull(into: frame) {
                samples += frame.planarFloats()[0]
                frame.unref()
            }
        } catch {
            throw .processing(file: nil, "measuring rubberband's delay at \(speed)×: \(error.description)")
        }
        let rate = Double(sampleRate)
        var offsets: [Double] = []
        for k in 0..<bursts {
            let expected = (0.5 + Double(k) * spacing) / speed * rate
            let from = max(0, Int(expected - 0.05 * rate)), to = min(samples.count, Int(expected + 0.05 * rate))
            guard from < to else { continue }
            let peak = samples[from..<to].map(abs).max() ?? 0
            guard peak > 0.05, let onset = samples[from..<to].firstIndex(where: { abs($0) > peak / 3 }) else { continue }
            offsets.append(Double(onset) - expected)
        }
        guard !offsets.isEmpty else { throw .processing(file: nil, "measuring rubberband's delay at \(speed)×: no burst came through") }
        return Int64(offsets.sorted()[offsets.count / 2].rounded())
    }
}
