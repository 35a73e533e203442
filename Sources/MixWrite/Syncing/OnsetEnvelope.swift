import FFmpegSupport
import Foundation

/// Where a file's sound starts and swells, a hundred times a second in four bands: what the coarse search of a sync
/// correlates. Each band's log energy rising from one hop to the next (falls are 0) is what a close lavalier and a far
/// camera microphone share, whatever their colour and the room's reverberation; the waveform itself they do not.
/// 16 bytes a hundredth of a second (5.8 MB an hour), read in one pass of the file's sound at `rate`.
struct OnsetEnvelope {
    /// The analysis: 8 kHz sound, a 256-sample Hann window every 80 samples (100 hops a second).
    static let rate = 8000
    static let hop = 80
    static let window = 256
    static var hopsPerSecond: Int { rate / hop }
    /// The bands, in bins of 31.25 Hz: 62–500 Hz, 0.5–1, 1–2 and 2–4 kHz.
    static let bands: [Range<Int>] = [2..<16, 16..<32, 32..<64, 64..<128]

    /// Each band's onsets, one value a hop; all bands as long.
    private(set) var bands: [[Float]]
    /// Where the first hop lies on the file's timeline, in samples at `rate`.
    private(set) var start: Int64 = 0
    /// Seconds of sound read.
    var seconds: Double { Double(samples) / Double(Self.rate) }
    private var samples = 0

    /// Reads all of `file`'s sound: its audio track `stream` (a stream index; nil: its first).
    init(_ file: MediaFile, stream: Int? = nil) throws(MixWriteError) {
        bands = Array(repeating: [], count: Self.bands.count)
        let sound = try MonoSound(file, stream: stream, rate: Self.rate)
        let fft: FourierTransform
        do { fft = try FourierTransform(size: Self.window, inverse: false) } catch {
            throw .processing(file: file.path, "setting up the sync's analysis: \(error.description)")
        }
        let hann = (0..<Self.window).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(Self.window))) }
        var pending: [Float] = []
        var previous = [Float](repeating: 0, count: Self.bands.count)
        var input = [Float](repeating: 0, count: 2 * Self.window), output = input
        var first = true
        while let (at, samples) = try sound.next() {
            if first { start = at; first = false }
            pending += samples
            self.samples += samples.count
            var used = 0
            while pending.count - used >= Self.window {
                for i in 0..<Self.window { input[2 * i] = pending[used + i] * hann[i]; input[2 * i + 1] = 0 }
                fft.transform(&input, into: &output)
                for (b, range) in Self.bands.enumerated() {
                    var energy: Float = 1e-9
                    for k in range { energy += output[2 * k] * output[2 * k] + output[2 * k + 1] * output[2 * k + 1] }
                    let level = log(energy)
                    // The first hop has nothing before it: no onset (else every file would "start" together).
                    bands[b].append(bands[b].isEmpty ? 0 : max(0, level - previous[b]))
                    previous[b] = level
                }
                used += Self.hop
            }
            pending.removeFirst(used)
        }
    }
}
