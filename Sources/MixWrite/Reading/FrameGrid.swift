import FFmpegSupport

/// The rate a video stream's frames are on, read from their timestamps rather than taken from the header: an MXF whose
/// header says 12.5 fps for frames every 0.04 s, a phone clip whose average of 30.47 fps is its variable rate's mean.
/// The packets' presentation times, sorted, are on a grid: its step is the mean of the steps within a tick (or 1 %) of the median
/// one (so a Matroska file's 33 and 34 ms, rounded to its millisecond, give 29.97 fps, and a phone's dropped frame does not
/// count), and its rate is shown as an editor shows rates: the nearest standard rate within 0.1 %, else to 1/1000.
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

    /// The rate of frames at `times` (ticks of `timeBase`, in any order).
    static func rate(ofTimes times: [Int64], timeBase: Rational) -> Rational? {
        let sorted = Array(Set(times)).sorted()
        guard sorted.count >= 3, timeBase.isValid else { return nil }
        let steps = zip(sorted.dropFirst(), sorted).map { $0 - $1 }
        let median = steps.sorted()[steps.count / 2]
        // The steps within a tick and 1 % of the median: the grid's, a timestamp's rounding included; others are frames
        // missing, or a variable rate's other steps.
        let slack = max(1, median / 100)
        let regular = steps.filter { abs($0 - median) <= slack }
        let step = Double(regular.reduce(0, +)) / Double(regular.count) * timeBase.doubleValue
        guard step > 0 else { return nil }
        return standard(1 / step)
    }

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
