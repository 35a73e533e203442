import Foundation
import FFmpegSupport

/// Loudness as EBU R128 / ITU-R BS.1770-4 measure it, from FFmpeg's ebur128 filter.
public struct Loudness: Sendable, Codable, Equatable {
    /// Integrated loudness, LUFS (gated); -70 or below means silence, or too short to measure (< 0.4 s).
    public var integrated: Double
    /// Loudness range, LU.
    public var range: Double
    /// True peak (4× oversampled), dBTP.
    public var truePeak: Double

    /// Under the absolute gate: nothing to measure.
    public var isSilent: Bool { integrated <= -69.9 }

    init?(figures: [String: String]) {
        guard let i = figures["lavfi.r128.I"].flatMap(Double.init) else { return nil }
        integrated = i
        range = figures["lavfi.r128.LRA"].flatMap(Double.init) ?? 0
        let peak = figures["lavfi.r128.true_peak"].flatMap(Double.init) ?? 0
        truePeak = peak > 0 ? 20 * log10(peak) : -144
    }
}

/// What the publishing options did, for the report.
public struct LoudnessReport: Sendable, Codable {
    public var target: Double?
    public var truePeakCeiling: Double?
    /// dB applied to the whole mix to reach the target.
    public var gainDB: Double
    /// Each track (`fx:1` …) as read, before any gain.
    public var sources: [String: Loudness]
    /// The mix before the loudness gain.
    public var mix: Loudness?
    /// The encoded output, read back from the file.
    public var output: Loudness?
}

/// Measurement passes: a mix plan read to its end through ebur128, sound only (no video is decoded).
enum LoudnessMeter {
    static func measure(_ plan: AudioMixPlan) throws(MixWriteError) -> Loudness? {
        var p = plan
        p.measure = true
        let reader = try AudioMix.reader(plan: p, blockSize: 8192)
        while try reader.next() != nil { try checkCancellation() }
        return Loudness(figures: reader.measurement)
    }

    /// One track alone, as read: no gain, no offset, no limiter.
    static func measure(source: AudioSource, of plan: AudioMixPlan) throws(MixWriteError) -> Loudness? {
        var s = source
        (s.gainDB, s.matchGainDB, s.offsetSeconds, s.timelineStart, s.startOffset) = (0, 0, 0, .zero, .zero)
        var p = plan
        (p.sources, p.publishing, p.outputGainDB, p.limit, p.mode) = ([s], AudioMixPlan.Publishing(), 0, false, .average)
        if let span = s.span { p.totalSamples = span.ticks(in: Rational(1, Int32(plan.sampleRate))) }
        return try measure(p)
    }

    /// The audio track of a written file.
    static func measure(file path: String, sampleRate: Int, channels: Int) throws(MixWriteError) -> Loudness? {
        let file = try MediaFile(path: path)
        guard let stream = file.audioStreams.first else { return nil }
        let source = AudioSource(label: "output", path: path, streamIndex: stream.index, track: 1, codec: stream.codec,
                                 sampleRate: stream.sampleRate, channels: stream.channels, layout: stream.layout,
                                 gainDB: 0, offsetSeconds: 0, startOffset: .zero, inputIndex: 0)
        let length = (file.duration ?? .zero).ticks(in: Rational(1, Int32(sampleRate)))
        let plan = AudioMixPlan(sources: [source], sampleRate: sampleRate, channels: channels, totalSamples: max(length, 1),
                                bitRate: 0, mode: .average, strict: false, limit: false)
        return try measure(plan)
    }

    private static func checkCancellation() throws(MixWriteError) {
        if Task.isCancelled { throw .interrupted(signal: MixWriteError.sigint) }
    }
}
