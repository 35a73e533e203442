import FFmpegSupport
import Foundation

extension SoundSync {
    /// The fine placement: windows along the overlap, each placed to a fraction of a 16 kHz sample by GCC-PHAT.
    struct Fine {
        /// Each window that found its sound: the file's time and the reference's time of it, in seconds.
        private(set) var places: [(file: Double, reference: Double)] = []
        /// How many windows were read (a silent one places nothing).
        private(set) var windows = 0
        /// A drift is fitted only over at least this many seconds of the file; under it, the clocks are taken as one.
        static let driftSpan = 8.0
        /// A window's correlation peak must stand this many times over the next one 2 ms or more away.
        static let peakLead = 1.5

        /// `overlap`: where the two sounds overlap on the reference's timeline (seconds), by the coarse `offset`.
        init(reference: MediaFile, file: MediaFile, stream: Int?, offset: Double, overlap: ClosedRange<Double>) throws(MixWriteError) {
            let rate = Double(fineRate), span = overlap.upperBound - overlap.lowerBound
            let length = min(windowSeconds, max(0.5, span - 0.1))
            // At most a second either way: the FFT stays within 2^17 points (Coarse.block's reason).
            let search = min(1, searchSeconds + searchPPM * 1e-6 * span)
            let count = min(maxWindows, max(1, Int(span / (2 * length))))
            let step = count > 1 ? (span - length) / Double(count - 1) : 0
            let n = Int(length * rate), s = Int(search * rate)
            let fft = try Coarse.transforms(n + n + 2 * s, file: file.path)
            for k in 0..<count {
                let t = Int64(((overlap.lowerBound + Double(k) * step) * rate).rounded())
                let r = try MonoSound.window(reference, rate: fineRate, start: t, length: n)
                let from = Int64(((Double(t) / rate - offset) * rate).rounded()) - Int64(s)
                let f = try MonoSound.window(file, stream: stream, rate: fineRate, start: from, length: n + 2 * s)
                windows += 1
                guard let lag = Self.gccPHAT(r, f, fft) else { continue }
                places.append(((Double(from) + lag) / rate, Double(t) / rate))
            }
        }

        /// Where `r` lies in `f` (samples from `f`'s start, a fraction included), by the phase transform of their
        /// cross-spectrum; nil when either is silent or the peak does not stand out.
        static func gccPHAT(_ r: [Float], _ f: [Float], _ fft: (FourierTransform, FourierTransform)) -> Double? {
            guard r.contains(where: { $0 != 0 }), f.contains(where: { $0 != 0 }) else { return nil }
            let n = fft.0.size
            let (a, b) = (Coarse.spectrum(r, fft.0), Coarse.spectrum(f, fft.0))
            var cross = [Float](repeating: 0, count: 2 * n), out = cross
            for k in 0..<n {
                // conj(R) · F, whitened.
                let re = a[2 * k] * b[2 * k] + a[2 * k + 1] * b[2 * k + 1]
                let im = a[2 * k] * b[2 * k + 1] - a[2 * k + 1] * b[2 * k]
                let magnitude = max((re * re + im * im).squareRoot(), 1e-20)
                (cross[2 * k], cross[2 * k + 1]) = (re / magnitude, im / magnitude)
            }
            fft.1.transform(&cross, into: &out)
            let lags = f.count - r.count
            let c = (0...lags).map { out[2 * $0] }
            guard let m = c.indices.max(by: { c[$0] < c[$1] }) else { return nil }
            let guardBand = fineRate / 500
            let rest = c.indices.filter { abs($0 - m) > guardBand }.map { c[$0] }.max() ?? 0
            guard c[m] > 0, Double(c[m]) >= peakLead * Double(max(rest, 0)) else { return nil }
            guard m > 0, m < lags else { return Double(m) }
            let (y0, y1, y2) = (Double(c[m - 1]), Double(c[m]), Double(c[m + 1]))
            let d = y0 - 2 * y1 + y2
            return Double(m) + (d < 0 ? 0.5 * (y0 - y2) / d : 0)
        }

        /// The line through the places (reference = offset + file × (1 + drift)), refitted without the places that lie
        /// off it; with it, the share of the windows read that agree. nil when no window placed its sound.
        func fit() -> (offset: Double, driftPPM: Double, agreeing: Double)? {
            guard !places.isEmpty else { return nil }
            var kept = places
            var line = Self.line(through: kept)
            for _ in 0..<3 {
                let residuals = places.map { abs($0.reference - line.offset - $0.file * line.scale) }
                let spread = residuals.sorted()[residuals.count / 2] * 3
                let next = zip(places, residuals).filter { $0.1 <= max(agreement, spread) }.map(\.0)
                guard !next.isEmpty else { break }
                kept = next
                line = Self.line(through: kept)
            }
            return (line.offset, (line.scale - 1) * 1e6, Double(kept.count) / Double(max(1, windows)))
        }

        /// The least-squares line; a slope of 1 where the places span less than `driftSpan`.
        private static func line(through p: [(file: Double, reference: Double)]) -> (offset: Double, scale: Double) {
            let files = p.map(\.file)
            guard let lo = files.min(), let hi = files.max(), hi - lo >= driftSpan else {
                let offsets = p.map { $0.reference - $0.file }.sorted()
                return (offsets[offsets.count / 2], 1)
            }
            let n = Double(p.count)
            let mx = files.reduce(0, +) / n, my = p.map(\.reference).reduce(0, +) / n
            let sxy = p.reduce(0) { $0 + ($1.file - mx) * ($1.reference - my) }
            let sxx = p.reduce(0) { $0 + ($1.file - mx) * ($1.file - mx) }
            let scale = sxy / sxx
            return (my - scale * mx, scale)
        }
    }
}
