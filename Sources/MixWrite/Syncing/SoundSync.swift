import FFmpegSupport
import Foundation

/// Where a file's sound lies on a reference's timeline and how fast its clock runs against the reference's.
///
/// The method: a coarse search correlates the two files' onset envelopes (`OnsetEnvelope`, 10 ms a value) at every
/// placement where they overlap by a second or more, by FFT (11 minutes against 11 minutes at a time), and takes the
/// placement whose correlation is the most significant (the correlation times the square root of the overlap: a short
/// overlap's chance correlation counts for less). Then windows spread along the overlap are read again at 16 kHz, and each is placed to a fraction of a sample
/// by GCC-PHAT (the cross-spectrum whitened, so the room's and the microphone's colour drop out and a sharp peak is
/// left) with a parabola through its peak. A line fitted through the windows' places (outliers dropped) gives the
/// offset at the file's start and its clock's drift; the reference implementation in the tests computes the same
/// places independently (research/sync-reference.py). Tools' (`@_spi(Tools)`): the command line's `sync`.
@_spi(Tools)
public enum SoundSync {
    /// One file's place against the reference.
    public struct Match: Sendable, Codable, Equatable {
        public var file: String
        /// Where the file's time 0 (its origin: a recorder's first sample) falls on the reference's timeline, in seconds;
        /// positive when the file started after the reference. nil when it does not match.
        public var offsetSeconds: Double?
        /// One second of the file's own lasts `1 + driftPPM / 1e6` seconds of the reference's. nil when it does not match.
        public var driftPPM: Double?
        /// How sure: the coarse peak's lead over the best placement a second or more away (1 − second / best), times the
        /// share of the windows that agree with the fitted line. Under `SoundSync.confidenceFloor`, no match.
        public var confidence: Double

        /// The reference's time (seconds) of the file's own time `t`.
        public func referenceTime(ofFileTime t: Double) -> Double? {
            offsetSeconds.map { $0 + t * (1 + (driftPPM ?? 0) / 1e6) }
        }
    }

    /// Under this confidence a file is said not to match (exit 1 in a job; `sync` reports it with no offset).
    public static let confidenceFloor = 0.25
    /// The coarse peak must be at least this significant (correlation × √overlap in hops) to be a match at all.
    static let significanceFloor = 8.0
    /// A second placement this close to the best one's significance is as good: the file matches twice.
    static let ambiguity = 0.9
    /// The windows: 2 s of 16 kHz sound, at most 16 of them, placed within ±(50 ms + 200 ppm of the overlap) of the
    /// coarse estimate (the coarse step is 10 ms; a ±200 ppm clock moves the place that much over the overlap).
    static let fineRate = 16000
    static let windowSeconds = 2.0
    static let maxWindows = 16
    static let searchSeconds = 0.05
    static let searchPPM = 200.0
    /// A window agrees with the line when it lies within this of it (seconds), or 3 median deviations.
    static let agreement = 0.001

    /// Where `file`'s sound lies against `reference`'s (its envelope read once by the caller for many files).
    public static func match(_ file: String, against reference: String) throws(MixWriteError) -> Match {
        let ref = try MediaFile(path: reference, scanVideo: false)
        return try match(try MediaFile(path: file, scanVideo: false), against: ref, envelope: try envelope(of: ref))
    }

    /// The onset envelope of `file`'s sound, refused when it has none to match by (exit 1).
    static func envelope(of file: MediaFile, stream: Int? = nil) throws(MixWriteError) -> OnsetEnvelope {
        guard !file.audioStreams.isEmpty else { throw .usage("\(file.path): has no sound to sync by (no audio stream)") }
        let e = try OnsetEnvelope(file, stream: stream)
        if e.seconds < 1 { throw .usage("\(file.path): its sound is \(NumberText.milliseconds(e.seconds)) s long; syncing needs a second or more") }
        if e.bands.allSatisfy({ $0.allSatisfy { $0 == 0 } }) { throw .usage("\(file.path): its sound is silent; there is nothing to sync by") }
        return e
    }

    /// Where `file`'s sound (its audio track `stream`; nil: its first) lies against `reference`'s (its first audio
    /// track); `envelope` is the reference's.
    static func match(_ file: MediaFile, stream: Int? = nil, against reference: MediaFile,
                      envelope: OnsetEnvelope) throws(MixWriteError) -> Match {
        let mine = try Self.envelope(of: file, stream: stream)
        let coarse = try Coarse(envelope, mine, file: file.path)
        let name = file.path, refName = reference.path
        guard coarse.best.z >= significanceFloor else {
            return Match(file: name, offsetSeconds: nil, driftPPM: nil, confidence: 0)
        }
        if let second = coarse.second, second.z >= ambiguity * coarse.best.z {
            let (a, b) = (coarse.offset(of: coarse.best.lag), coarse.offset(of: second.lag))
            throw .usage("\(name): its sound matches \(refName) at \(NumberText.milliseconds(min(a, b))) s and "
                         + "\(NumberText.milliseconds(max(a, b))) s equally well; give --offset with its place in seconds")
        }
        let separation = 1 - (coarse.second?.z ?? 0) / coarse.best.z
        let fine = try Fine(reference: reference, file: file, stream: stream, offset: coarse.offset(of: coarse.best.lag),
                            overlap: coarse.overlap(coarse.best.lag))
        let line = fine.fit()
        return Match(file: name, offsetSeconds: line?.offset, driftPPM: line?.driftPPM,
                     confidence: line.map { separation * $0.agreeing } ?? 0)
    }
}

extension SoundSync {
    /// The coarse search: the onset envelopes correlated at every placement, by FFT.
    struct Coarse {
        typealias Peak = (lag: Int, z: Double)
        let best: Peak
        let second: Peak?
        /// Each envelope's first hop on its file's timeline (seconds), and their lengths in hops.
        let refStart: Double, fileStart: Double, refHops: Int, fileHops: Int

        init(_ ref: OnsetEnvelope, _ file: OnsetEnvelope, file path: String) throws(MixWriteError) {
            let hz = Double(OnsetEnvelope.rate)
            (refStart, fileStart) = (Double(ref.start) / hz, Double(file.start) / hz)
            (refHops, fileHops) = (ref.bands[0].count, file.bands[0].count)
            let corr = try Self.correlation(ref.bands, file.bands, path: path)
            let minimum = OnsetEnvelope.hopsPerSecond
            // z of each lag (file's hop j on the reference's hop j + lag) with a second or more of overlap.
            var scored: [Peak] = []
            for lag in (-(fileHops - minimum))...(refHops - minimum) {
                let overlap = min(fileHops, refHops - lag) - max(0, -lag)
                guard overlap >= minimum else { continue }
                let rho = Double(corr[lag + fileHops - 1]) / Double(ref.bands.count * overlap)
                scored.append((lag, rho * Double(overlap).squareRoot()))
            }
            guard let top = scored.max(by: { $0.z < $1.z }) else { throw .usage("\(path): its sound is too short to sync by") }
            best = top
            second = scored.filter { abs($0.lag - top.lag) > minimum }.max { $0.z < $1.z }
        }

        /// Where the file's time 0 falls on the reference's timeline at `lag`, in seconds.
        func offset(of lag: Int) -> Double { refStart - fileStart + Double(lag) / Double(OnsetEnvelope.hopsPerSecond) }

        /// Where the two sounds overlap on the reference's timeline at `lag`, in seconds.
        func overlap(_ lag: Int) -> ClosedRange<Double> {
            let hz = Double(OnsetEnvelope.hopsPerSecond), o = offset(of: lag)
            let lo = max(refStart, o + fileStart), hi = min(refStart + Double(refHops) / hz, o + fileStart + Double(fileHops) / hz)
            return lo...max(lo, hi)
        }

        /// Envelopes are correlated a block of this many hops (11 minutes) at a time: FFTs of twice it, 2^17 points, the
        /// largest FFmpeg 5.1's av_tx computes fast (beyond it, a direct DFT: minutes for a 12-minute file).
        static let block = 1 << 16

        /// Σ over bands of the cross-correlation, each band first made zero-mean and of unit variance: index
        /// `lag + file.count - 1` holds Σ_j ref[j + lag] · file[j], for every lag from −(file.count − 1) to ref.count − 1.
        /// By blocks: each block of the reference against each block of the file, their lags added into place.
        static func correlation(_ ref: [[Float]], _ file: [[Float]], path: String) throws(MixWriteError) -> [Float] {
            let (nx, ny, b) = (ref[0].count, file[0].count, block)
            let (forward, inverse) = try transforms(2 * b, file: path)
            // A block's spectrum, band by band, made when it is used (so that memory does not grow with the length:
            // the file's blocks are transformed again for each of the reference's, a few ms each).
            let (xn, yn) = (ref.map(normalized), file.map(normalized))
            func spectra(_ bands: [[Float]], _ block: Int) -> [[Float]] {
                bands.map { spectrum(Array($0[block * b..<min($0.count, (block + 1) * b)]), forward) }
            }
            var out = [Float](repeating: 0, count: nx + ny - 1)
            var sum = [Float](repeating: 0, count: 4 * b), r = sum
            let n = 2 * b
            for i in 0..<(nx + b - 1) / b {
                let x = spectra(xn, i)
                for j in 0..<(ny + b - 1) / b {
                    let y = spectra(yn, j)
                    for k in sum.indices { sum[k] = 0 }
                    for (fx, fy) in zip(x, y) {
                        for k in 0..<n {
                            let (a, bb, c, d) = (fx[2 * k], fx[2 * k + 1], fy[2 * k], fy[2 * k + 1])
                            sum[2 * k] += a * c + bb * d
                            sum[2 * k + 1] += bb * c - a * d
                        }
                    }
                    inverse.transform(&sum, into: &r)
                    // Lag l within the pair (−(b − 1) … b − 1, circular in 2b) is lag (i − j)·b + l of the whole.
                    for l in -(b - 1)...(b - 1) {
                        let index = (i - j) * b + l + ny - 1
                        if index >= 0 && index < out.count { out[index] += r[2 * ((l + n) % n)] / Float(n) }
                    }
                }
            }
            return out
        }

        /// A forward and an inverse FFT of at least `length` points (a power of two).
        static func transforms(_ length: Int, file: String) throws(MixWriteError) -> (FourierTransform, FourierTransform) {
            var n = 1
            while n < length { n *= 2 }
            do { return (try FourierTransform(size: n, inverse: false), try FourierTransform(size: n, inverse: true)) } catch {
                throw .processing(file: file, "the sync's FFT of \(n) points: \(error.description)")
            }
        }

        static func normalized(_ x: [Float]) -> [Float] {
            let mean = x.reduce(0, +) / Float(max(1, x.count))
            let sd = (x.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Float(max(1, x.count))).squareRoot()
            return x.map { sd > 0 ? ($0 - mean) / sd : 0 }
        }

        static func spectrum(_ x: [Float], _ fft: FourierTransform) -> [Float] {
            var input = [Float](repeating: 0, count: 2 * fft.size), output = input
            for (i, v) in x.enumerated() { input[2 * i] = v }
            fft.transform(&input, into: &output)
            return output
        }
    }
}

/// What `mixwrite sync` reports: each file's place on the reference's timeline.
@_spi(Tools)
public struct SyncReport: Sendable, Encodable {
    public var reference: String
    public var sources: [SoundSync.Match]
    /// Why a file has no place (by file): its sound does not match, or matches twice. Not in the JSON.
    public var errors: [String: MixWriteError] = [:]

    enum CodingKeys: String, CodingKey { case reference, sources }

    /// Every file against `reference`, whose sound is read once; a file that fails is reported with no offset and its
    /// reason kept, the others go on. A reference that cannot be read throws.
    public init(reference: String, files: [String]) throws(MixWriteError) {
        self.reference = reference
        let ref = try MediaFile(path: reference, scanVideo: false)
        let envelope = try SoundSync.envelope(of: ref)
        sources = []
        for path in files {
            do throws(MixWriteError) {
                var m = try SoundSync.match(try MediaFile(path: path, scanVideo: false), against: ref, envelope: envelope)
                if m.confidence < SoundSync.confidenceFloor || m.offsetSeconds == nil {
                    errors[path] = .usage("\(path): its sound does not match \(reference)'s (confidence "
                                          + "\(NumberText.milliseconds(m.confidence)), under \(SoundSync.confidenceFloor)); give --offset with its place in seconds")
                    (m.offsetSeconds, m.driftPPM) = (nil, nil)
                }
                sources.append(m)
            } catch {
                errors[path] = error
                sources.append(SoundSync.Match(file: path, offsetSeconds: nil, driftPPM: nil, confidence: 0))
            }
        }
    }
}

@_spi(Tools)
extension SoundSync.Match {
    enum CodingKeys: String, CodingKey { case file, offsetSeconds, driftPPM, confidence }

    /// Every key written, a missing place as null (the JSON `sync --json` promises).
    public func encode(to encoder: any Swift.Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(file, forKey: .file)
        try c.encode(offsetSeconds, forKey: .offsetSeconds)
        try c.encode(driftPPM, forKey: .driftPPM)
        try c.encode(confidence, forKey: .confidence)
    }
}
