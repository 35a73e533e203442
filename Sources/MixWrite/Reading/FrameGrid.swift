import FFmpegSupport

/// The rate a video stream's frames are on, read from their timestamps rather than taken from the header: an MXF whose
/// header says 12.5 fps for frames every 0.04 s, a phone clip whose average of 30.47 fps is its variable rate's mean.
/// The packets' presentation times, sorted, are on a grid. Where most steps between them are within a tick (or 1 %) of
/// the median one and hardly any (under a tenth) shorter, the grid's step is their mean: a Matroska file's 33 and 34 ms
/// (its millisecond rounding) give 29.97 fps, and a phone's late or dropped frames do not count. Where they are
/// jittered around it (a screen recording's 62 to 72 ms), every step counts, as the whole number of median steps
/// nearest it (a missing frame's gap as two), and the grid's step is their sum over that count. An interlaced stream,
/// whose packets may be fields, is read from its first decoded pictures. The rate is shown as an editor shows rates:
/// the nearest standard rate within 0.1 %, else to 1/1000.
enum FrameGrid {
    /// Packets read from the start: 8 s at 30 fps, enough for a steady mean, little to read.
    static let packets = 240
    /// How near a rate must be to a standard one to be taken as it: a tenth of a percent (29.97 and 30 are 0.1 % apart;
    /// the nearer wins).
    static let standardTolerance = 0.001
    /// The rates editors and cameras use.
    static let standardRates: [Rational] = [
        Rational(1, 1), Rational(2, 1), Rational(5, 1), Rational(6, 1), Rational(8, 1), Rational(10, 1), Rational(12, 1),
        Rational(25, 2), Rational(15000, 1001), Rational(15, 1), Rational(20, 1), Rational(24000, 1001), Rational(24, 1),
        Rational(25, 1), Rational(30000, 1001), Rational(30, 1), Rational(48000, 1001), Rational(48, 1), Rational(50, 1),
        Rational(60000, 1001), Rational(60, 1), Rational(72, 1), Rational(90, 1), Rational(96, 1), Rational(100, 1),
        Rational(120000, 1001), Rational(120, 1), Rational(144, 1), Rational(240, 1),
    ]

    /// The rate of `stream`'s frames, read from the next `packets` packets of `demuxer` (which then reads that stream
    /// only); nil when they give fewer than three distinct times.
    static func measure(_ demuxer: Demuxer, _ stream: StreamInfo) -> Rational? {
        demuxer.keepOnly([stream.index])
        let packet = Packet()
        var times: [Int64] = []
        while times.count < packets {
            do { guard try demuxer.read(into: packet) else { break } } catch { break }
            if packet.streamIndex == stream.index, let t = packet.pts ?? packet.dts { times.append(t) }
        }
        return rate(ofTimes: times, timeBase: stream.timeBase)
    }

    /// Pictures decoded for `measureDecoded`: a second at 25 fps, a GOP's worth of fields.
    static let pictures = 24

    /// The rate of `stream`'s decoded pictures (the first `pictures` of them): an interlaced stream's, whose packets may
    /// be fields. nil when they cannot be decoded or give fewer than three times.
    static func measureDecoded(_ path: String, _ stream: StreamInfo) -> Rational? {
        guard let demuxer = try? Demuxer(url: path) else { return nil }
        demuxer.keepOnly([stream.index])
        guard let frames = try? Decoder(demuxer: demuxer, streamIndex: stream.index, threads: 1).frames(from: demuxer) else { return nil }
        var times: [Int64] = []
        while times.count < pictures, let frame = try? frames.next() {
            if let t = frame.bestEffortTimestamp { times.append(t) }
        }
        return rate(ofTimes: times, timeBase: stream.timeBase)
    }

    /// The rate of frames at `times` (ticks of `timeBase`, in any order).
    static func rate(ofTimes times: [Int64], timeBase: Rational) -> Rational? {
        let sorted = Array(Set(times)).sorted()
        guard sorted.count >= 3, timeBase.isValid else { return nil }
        let steps = zip(sorted.dropFirst(), sorted).map { $0 - $1 }
        let median = steps.sorted()[steps.count / 2]
        guard median > 0 else { return nil }
        // Mostly on the grid (within a tick or 1 % of the median step: a camera's, its rounding included): the mean of
        // those steps; a phone's late or dropped frames do not count.
        let slack = max(1, median / 100)
        let regular = steps.filter { abs($0 - median) <= slack }, early = steps.filter { $0 < median - slack }
        if 2 * regular.count >= steps.count && 10 * early.count < steps.count {
            return standard(step: Double(regular.reduce(0, +)) / Double(regular.count) * timeBase.doubleValue)
        }
        // Jittered around it (a screen recording's 62 to 72 ms): every step, each counted as the whole number of
        // median steps nearest it (a missing frame's gap as two).
        let counted = steps.reduce(0.0) { $0 + max(1, (Double($1) / Double(median)).rounded()) }
        return standard(step: Double(steps.reduce(0, +)) / counted * timeBase.doubleValue)
    }

    /// The rate of frames `step` seconds apart, as an editor shows it; nil for no step.
    private static func standard(step: Double) -> Rational? { step > 0 ? standard(1 / step) : nil }

    /// `fps` as an editor shows it: the nearest standard rate within `standardTolerance`, else rounded to 1/1000.
    static func standard(_ fps: Double) -> Rational {
        let nearest = standardRates.min { abs($0.doubleValue / fps - 1) < abs($1.doubleValue / fps - 1) }!
        if abs(nearest.doubleValue / fps - 1) <= standardTolerance { return nearest }
        let thousandths = max(1, (fps * 1000).rounded())
        return Rational(Int32(min(thousandths, Double(Int32.max))), 1000).reduced()
    }

    /// A rate as people write it: `25`, `29.97`, `12.5`.
    static func text(_ rate: Rational) -> String { NumberText.shortest((rate.doubleValue * 1000).rounded() / 1000) }
}
