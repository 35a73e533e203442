import FFmpegSupport

/// How a clip with a changed speed fills output frames that fall between its media's frames (`--interpolate`).
public enum Interpolation: String, Sendable, Codable, CaseIterable {
    /// The media frame at the mapped time, as the CLI's `setpts` then `fps` picks it: a 0.5× clip shows each frame twice.
    case nearest
    /// The two media frames around the mapped time, mixed by where it falls between them (`minterpolate`'s blend).
    case blend
    /// Motion-compensated: pictures between the two made by following the motion (`minterpolate`'s mci); slow.
    case motion

    /// `minterpolate`'s options for it (nil: no filter).
    var minterpolate: String? {
        switch self {
        case .nearest: nil
        case .blend: "mi_mode=blend"
        case .motion: "mi_mode=mci:mc_mode=aobmc:me_mode=bidir:vsbmc=1"
        }
    }
}

/// A forward retimed piece's frames made by FFmpeg's `minterpolate`: each of its media frames, upright and fitted, in
/// order, timed at the output time that shows it (`Retime.output`, a ramp's too), and the filter asked for the output's
/// rate, so frame n is the one it makes at n / rate, as the CLI's `setpts=…,minterpolate=fps=R` does. A frame asked
/// out of order (a part, an excerpt, the page) starts the filter again a little before it. Past the pictures the filter
/// makes (its last frames need a media frame after them), the last one made is held.
final class InterpolatedPictures {
    let piece: SequenceStage.Piece
    private let reader: VideoTrackReader
    private let rate: Rational
    private let mode: Interpolation
    private var graph: FilterGraph?
    /// The output frame the filter gives next, and the last it gave.
    private var nextFrame = 0
    private var last: Frame?
    private let pulled = Frame()
    private var lastPTS: Int64?
    private var ended = false
    /// Input ticks an output frame: the filter's input times are in 1/(rate·ticks) seconds.
    private static let ticks: Int32 = 1000

    init(piece: SequenceStage.Piece, reader: VideoTrackReader, rate: Rational, mode: Interpolation) {
        (self.piece, self.reader, self.rate, self.mode) = (piece, reader, rate, mode)
    }

    var damagedPackets: Int { reader.damagedPackets }

    /// Output frame `n` of the piece (its moving part's last for a frame in its held end).
    func picture(frame n: Int) throws(MixWriteError) -> Frame {
        let moving = max(1, piece.frames - (piece.retime?.held ?? 0))
        let n = min(n, moving - 1)
        if graph == nil || n < nextFrame - 1 || n > nextFrame + 2 * Int(rate.doubleValue.rounded(.up)) { try start(at: n) }
        if n == nextFrame - 1, let last { return last }
        do {
            while nextFrame <= n {
                guard let frame = try pull() else { break }
                last = frame
            }
        } catch {
            throw .processing(error, file: piece.file.path)
        }
        guard let last else { throw .input(file: piece.file.path, "has no decodable picture for its retimed frame \(n)") }
        return last
    }

    /// A new filter, fed from a little before frame `n`'s media (three output frames' worth).
    private func start(at n: Int) throws(MixWriteError) {
        guard let retime = piece.retime, let options = mode.minterpolate else { return }
        let g = FilterGraph()
        let fps = "\(rate.num)/\(rate.den)"
        let media = piece.inPoint + retime.media(MediaTime(frames: Int64(n), rate: rate))
        try reader.seek(to: media - MediaTime(value: 3, timescale: Int64(max(1, Int(rate.doubleValue.rounded())))))
        if media <= MediaTime(value: 1, timescale: Int64(10)) { try reader.rewind() }
        do {
            guard let first = try reader.nextPicture() else { throw MixWriteError.input(file: piece.file.path, "has no decodable picture to retime") }
            try g.addVideoSource(width: first.picture.width, height: first.picture.height, pixelFormat: first.picture.pixelFormat,
                                 timeBase: Rational(rate.den, rate.num * Self.ticks))
            try g.addVideoSink()
            // In the pictures' own format out (minterpolate takes 10-bit pictures through a conversion).
            try g.configure("[in0]minterpolate=fps=\(fps):\(options),format=\(first.picture.pixelFormat)[out]")
            (graph, nextFrame, last, lastPTS, ended) = (g, n, nil, nil, false)
            try feed(first.picture, at: first.time)
        } catch {
            throw .processing(error, file: piece.file.path)
        }
    }

    /// The filter's next picture at or after `nextFrame` (earlier ones dropped), fed media frames until it has one;
    /// nil once it has no more.
    private func pull() throws -> Frame? {
        guard let graph else { return nil }
        while true {
            pulled.unref()
            switch try graph.pull(into: pulled) {
            case .value:
                guard let pts = pulled.pts else { continue }
                let frame = Int(MediaTime(ticks: pts, timeBase: graph.sinkTimeBase).ticks(in: rate.inverted))
                guard frame >= nextFrame else { continue }
                nextFrame = frame + 1
                return try pulled.copied(reusing: last)
            case .endOfStream: return nil
            case .needsInput:
                guard !ended else { return nil }
                if let next = try reader.nextPicture() { try feed(next.picture, at: next.time) } else {
                    ended = true
                    try graph.close(0)
                }
            }
        }
    }

    /// A copy of `picture` to the filter at the output time showing media time `time` (a frame whose time does not rise
    /// past the last fed is left out).
    private func feed(_ picture: Frame, at time: MediaTime) throws(FFmpegError) {
        guard let retime = piece.retime, let graph else { return }
        let offset = (time - piece.inPoint).seconds
        let firstSpeed = retime.ramp?.first?.speed ?? retime.speed.doubleValue
        let output = offset < 0 ? offset / firstSpeed : retime.output(time - piece.inPoint).seconds
        let pts = Int64((output * rate.doubleValue * Double(Self.ticks)).rounded())
        guard lastPTS.map({ pts > $0 }) ?? true else { return }
        lastPTS = pts
        let copy = try picture.copied(reusing: nil)
        copy.pts = pts
        try graph.push(copy, to: 0)
    }
}
