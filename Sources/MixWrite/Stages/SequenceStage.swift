import FFmpegSupport

/// The video of `concat` (clips end to end, a cut or a transition between two) and of `still` (one picture): each
/// piece read upright, fitted into the output frame and encoded as one stream.
struct SequenceStage: VideoStage {
    struct Piece: Sendable {
        var file: MediaFile
        /// Output frames this piece fills (those it shares with the next included).
        var frames: Int
        /// How it gives way to the next piece: its last `frames` shared with the next one's first; nil: a cut.
        var crossing: Crossing?
        /// Where it starts in its file (a timeline clip's source_range, less its transition's handle): its frame n is
        /// the file's picture at `inPoint` + n frames.
        var inPoint: MediaTime = .zero
        /// A timeline's gap: black, no file read (`file` is only its neighbour's, for the output's settings).
        var isGap = false
        /// Its time changed (a speed, a reverse, a freeze): frame n shows the file at `inPoint` + the retime's offset
        /// of n, `inPoint` then the start of the media the piece uses.
        var retime: Retime?

        /// Where its frame `n` is read in its file: at its time, or retimed, at the time that makes its reader show the
        /// CLI's frame (`Retime.readTime`), never before the file's start (a reader sought there stays where it was).
        func mediaTime(ofFrame n: Int, rate: Rational) -> MediaTime {
            guard let retime else { return inPoint + MediaTime(frames: Int64(n), rate: rate) }
            let moving = max(1, frames - retime.held), k = min(n, moving - 1)
            return max(.zero, inPoint + retime.readTime(at: MediaTime(frames: Int64(retime.reversed ? moving - 1 - k : k), rate: rate), rate: rate))
        }

        /// Its frames not shared with the next piece.
        var ownFrames: Int { frames - (crossing?.frames ?? 0) }
    }

    struct Plan: EncodingPlan {
        var pieces: [Piece]
        /// The output picture; its frames are the pieces', a window of them for a part or an excerpt.
        var video: VideoPlan
        /// The length of the last frame, when the output must end between two frame times (a still as
        /// long as its audio); nil: one frame.
        var lastFrameTicks: Int64?
        /// Encoder ticks a frame: 1, or finer when the last frame is cut short (the encoder's time base follows).
        var ticksPerFrame: Int64 = 1
        /// A still: the picture is read once and flattened on this background (RGB in 0 … 1).
        var background: (r: Double, g: Double, b: Double)?
        /// `--hdr keep`: the output's HDR transfer (10 bits, BT.2020, HEVC); each piece brought into it.
        var hdr: HDRTransfer?
        /// With `hdr`: the first HDR clip's mastering display and light levels, passed on in the stream's SEI.
        var light: LightMetadata?
        /// `--smart`: the clips' GOPs copied where no transition touches them; nil: every frame encoded, not said.
        var smart: SmartPlan?
        /// How a forward clip with a changed speed fills frames between its media's (`--interpolate`).
        var interpolation = Interpolation.nearest

        /// Each piece's first frame on the output.
        let starts: [Int]

        init(pieces: [Piece], video: VideoPlan, lastFrameTicks: Int64? = nil, ticksPerFrame: Int64 = 1,
             background: (r: Double, g: Double, b: Double)? = nil) {
            (self.pieces, self.video, self.lastFrameTicks, self.ticksPerFrame, self.background) =
                (pieces, video, lastFrameTicks, ticksPerFrame, background)
            var starts: [Int] = [], n = 0
            for (i, piece) in pieces.enumerated() {
                starts.append(n)
                n += i + 1 < pieces.count ? piece.ownFrames : piece.frames
            }
            self.starts = starts
            self.video.wholeFrameCount = n
            self.video.frames = 0..<self.video.wholeFrameCount
            let rate = video.frameRate
            if ticksPerFrame != 1 { self.video.encoding.timeBase = Rational(rate.den, Int32(Int64(rate.num) * ticksPerFrame)).reduced() }
        }

        var wholeFrameCount: Int { video.wholeFrameCount }

        /// A piece's reader, for the render and the page's preview alike: a still's picture flattened on its
        /// background, or a clip's frames by output time; upright, fitted, in the output's colour.
        func reader(for piece: Piece) throws(MixWriteError) -> any PictureSource {
            let v = video
            if piece.isGap { return try BlackPicture(width: v.width, height: v.height, tenBits: hdr != nil) }
            if let background {
                return try StillPicture(file: piece.file, width: v.width, height: v.height, color: v.color, fit: v.fit, background: background)
            }
            guard let hdr else {
                return try VideoTrackReader(file: piece.file, width: v.width, height: v.height, color: v.color, outputFrameRate: v.frameRate,
                                            fit: v.fit, strict: v.strict)
            }
            let own = piece.file.mainVideo?.hdr
            let sdr = ColorDescription(matrix: .bt709, fullRange: false)
            let movie = try VideoTrackReader(file: piece.file, width: v.width, height: v.height, color: own == nil ? sdr : v.color,
                                             outputFrameRate: v.frameRate, fit: v.fit, strict: v.strict, keepHDR: own != nil)
            switch own {
            case hdr?: return movie
            case nil: return ConvertedPictures(movie, SDRToHDR(transfer: hdr, from: .bt709).map)
            case let other?:
                let zscale = PictureFilter("zscale=tin=\(other.zscaleName):min=2020_ncl:pin=2020:rin=tv:t=\(hdr.zscaleName):m=2020_ncl:p=2020"
                                           + ":r=tv:npl=1000,format=yuv420p10le")
                return ConvertedPictures(movie, zscale.apply)
            }
        }
    }

    let plan: Plan

    func run(into input: AssetWriterInput) async throws -> Int {
        if let smart = plan.smart, smart.writesTrack(of: plan.video) {
            return try await runSmart(smart, into: input)
        }
        let p = plan
        let encoder = try VideoEncoder(p.video.encoding, hdr: p.hdr, light: p.light)
        try await input.start(encoder.parameters)
        // The pieces are read and drawn a picture or two ahead, beside x264's threads (FramesAhead).
        let buffers = try (0..<3).map { _ in try Frame(width: p.video.width, height: p.video.height, pixelFormat: p.pixelFormat) }
        let readers = PieceReaders(plan: p)
        let ahead = FramesAhead(p.video.frames, buffers: buffers, make: p.video.drawingCaptions { n, frame throws(MixWriteError) in
            try readers.picture(ofFrame: n, into: frame)
        })
        defer { ahead.stop() }
        try await ahead.encodeAll(with: encoder, pts: { $0 * p.ticksPerFrame }) { try await input.append(timed($0)) }
        try await input.finish()
        ahead.stop()
        return readers.close()
    }

    var written: WrittenVideo { plan.video.written(smart: plan.smart) }

    /// Every frame lasts one frame; the sequence's last may be cut short to end with the sound (not a window's
    /// last frame before the end).
    private func timed(_ packet: EncodedPacket) -> EncodedPacket {
        var packet = packet
        let endsSequence = plan.video.frames.upperBound == plan.wholeFrameCount
        let isLast = endsSequence && (packet.pts ?? 0) == Int64(plan.video.frameCount - 1) * plan.ticksPerFrame
        packet.duration = isLast ? (plan.lastFrameTicks ?? plan.ticksPerFrame) : plan.ticksPerFrame
        return packet
    }
}

extension SequenceStage.Plan {
    /// The pictures' format: the output's own.
    var pixelFormat: PixelFormat { VideoPlan.pictureFormat(hdr: hdr) }

    /// Where output frame `n` comes from: piece `i`'s frame `n − starts[i]`, and in a crossing the piece before it too
    /// (`shared`: the crossing's frame k).
    func sources(ofFrame n: Int) -> (piece: Int, shared: Int?) {
        let i = max(0, starts.lastIndex { $0 <= n } ?? 0)
        guard i > 0, n < starts[i - 1] + pieces[i - 1].frames else { return (i, nil) }
        return (i, n - starts[i])
    }
}

/// The pieces' readers as a run through the output's frames needs them: each opened at its first frame needed
/// (sought there when that is not the piece's first), closed once the output is past it; in a crossing the outgoing
/// and the incoming piece's both open. One owner (the stage's task, or the page's preview).
final class PieceReaders {
    let plan: SequenceStage.Plan
    private var open: [Int: any PictureSource] = [:]
    /// The pieces whose frames `minterpolate` makes (`Plan.interpolation`), by piece.
    private var interpolated: [Int: InterpolatedPictures] = [:]
    private var damaged = 0
    /// The media time each reader showed last, so a preview moving within a piece only seeks when it must.
    private var shown: [Int: MediaTime] = [:]

    /// A preview keeps every reader it opened (the slider goes back as often as on); a render closes them as it passes.
    private let keepsOpen: Bool

    init(plan: SequenceStage.Plan, keepsOpen: Bool = false) { (self.plan, self.keepsOpen) = (plan, keepsOpen) }

    /// Output frame `n` (in order, for a render; anywhere, for a preview) into `output`.
    func picture(ofFrame n: Int, into output: Frame) throws(MixWriteError) {
        let (i, shared) = plan.sources(ofFrame: n)
        for k in open.keys where !keepsOpen && k < i - (shared == nil ? 0 : 1) { closeReader(k) }
        let incoming = try picture(piece: i, frame: n - plan.starts[i])
        do {
            if let k = shared, let crossing = plan.pieces[i - 1].crossing {
                let outgoing = try picture(piece: i - 1, frame: n - plan.starts[i - 1])
                try output.makeWritable()
                crossing.draw(outgoing, incoming, into: output, at: k)
            } else if plan.hdr == nil {
                try output.copyPicture(from: incoming)
            } else {
                try output.copyPlanes(from: incoming)
            }
        } catch { throw .processing(error, file: nil) }
    }

    /// Piece `k`'s frame `n`, upright and fitted: decoded on from where its reader is when that is less than two
    /// seconds of its media behind, else sought. A reversed piece's come from the window of them read forwards.
    func picture(piece k: Int, frame n: Int) throws(MixWriteError) -> Frame {
        let reader: any PictureSource
        if let r = open[k] { reader = r } else {
            reader = try plan.reader(for: plan.pieces[k])
            open[k] = reader
        }
        if plan.pieces[k].retime?.reversed == true { return try reversedPicture(piece: k, frame: n, reader: reader) }
        if let filter = try interpolator(piece: k, reader: reader) { return try filter.picture(frame: n) }
        let t = plan.pieces[k].mediaTime(ofFrame: n, rate: plan.video.frameRate)
        return try picture(of: reader, piece: k, at: t)
    }

    /// `reader`'s picture at media time `t`, sought first unless it is at most two seconds on from the last one shown
    /// (`seeking`: sought whatever it showed).
    private func picture(of reader: any PictureSource, piece k: Int, at t: MediaTime, seeking: Bool = false) throws(MixWriteError) -> Frame {
        let far = MediaTime(value: 2, timescale: Int64(1))
        if let movie = (reader as? VideoTrackReader) ?? (reader as? ConvertedPictures)?.movie,
           seeking || (shown[k].map({ t < $0 || t - $0 > far }) ?? (t > .zero)) {
            if t > .zero { try movie.seek(to: t) } else { try movie.rewind() }
        }
        guard let picture = try reader.picture(at: t, hold: true) else {
            throw .input(file: plan.pieces[k].file.path, "has no decodable picture at \(t.seconds) s")
        }
        shown[k] = t
        return picture
    }

    /// A reversed piece's frames being played: copies of their pictures by frame, read forwards.
    private var window: (piece: Int, frames: [Int: Frame])?
    private var spare: [Frame] = []
    /// Each reversed piece's file's keyframe times, read once.
    private var keyframes: [Int: [MediaTime]] = [:]

    /// Frame `n` of reversed piece `k`: from the window, or a new window: the frames from `n` on (those the output
    /// shows next) whose media lies from the keyframe before `n`'s on (`BackwardFrames.start`), decoded forwards from
    /// it (each picture once) and shown backwards, so memory is a GOP's pictures, whatever the clip's length.
    private func reversedPicture(piece k: Int, frame n: Int, reader: any PictureSource) throws(MixWriteError) -> Frame {
        if let w = window, w.piece == k, let f = w.frames[n] { return f }
        let piece = plan.pieces[k], rate = plan.video.frameRate
        let top = piece.mediaTime(ofFrame: n, rate: rate)
        if keyframes[k] == nil { keyframes[k] = try piece.file.keyframeTimes() }
        let floor = BackwardFrames.start(before: top, keyframes: keyframes[k]!)
        var next = n + 1
        while next < piece.frames && piece.mediaTime(ofFrame: next, rate: rate) >= floor { next += 1 }
        if let old = window {
            var seen = Set<ObjectIdentifier>()
            for f in old.frames.values where seen.insert(ObjectIdentifier(f)).inserted { spare.append(f) }
        }
        window = nil
        var frames: [Int: Frame] = [:]
        var last: (time: MediaTime, copy: Frame)?
        for m in (n..<next).reversed() {
            let t = piece.mediaTime(ofFrame: m, rate: rate)
            if let last, last.time == t { frames[m] = last.copy; continue }
            // The window's earliest picture sought (the reader is past it, at the window before).
            let picture = try picture(of: reader, piece: k, at: t, seeking: last == nil)
            do {
                let copy = try picture.copied(reusing: spare.popLast())
                (frames[m], last) = (copy, (t, copy))
            } catch {
                throw .processing(error, file: piece.file.path)
            }
        }
        window = (k, frames)
        return frames[n]!
    }

    /// Piece `k`'s `minterpolate` when the plan interpolates and it plays forwards at a changed speed.
    private func interpolator(piece k: Int, reader: any PictureSource) throws(MixWriteError) -> InterpolatedPictures? {
        if let filter = interpolated[k] { return filter }
        let piece = plan.pieces[k]
        guard plan.interpolation != .nearest, let r = piece.retime, !r.isFreeze, !r.reversed, r.changesSpeed,
              let movie = reader as? VideoTrackReader else { return nil }
        let filter = InterpolatedPictures(piece: piece, reader: movie, rate: plan.video.frameRate, mode: plan.interpolation)
        interpolated[k] = filter
        return filter
    }

    private func closeReader(_ k: Int) {
        damaged += open[k]?.damagedPackets ?? 0
        (open[k], shown[k], keyframes[k], interpolated[k]) = (nil, nil, nil, nil)
        if window?.piece == k { window = nil }
    }

    /// The damaged packets skipped so far, by the readers closed and those open.
    var damagedPackets: Int { open.values.reduce(damaged) { $0 + $1.damagedPackets } }

    /// Every reader closed: the damaged packets they skipped.
    func close() -> Int {
        for k in open.keys { closeReader(k) }
        return damaged
    }
}

/// A sequence's pictures by output time: a timeline's bottom video track as the picture the layers are laid over.
final class SequencePictures: PictureSource {
    private let readers: PieceReaders
    private let output: Frame

    init(_ plan: SequenceStage.Plan) throws(MixWriteError) {
        readers = PieceReaders(plan: plan)
        do { output = try Frame(width: plan.video.width, height: plan.video.height, pixelFormat: plan.pixelFormat) } catch {
            throw .processing(file: nil, "cannot allocate the bottom track's picture: \(error.description)")
        }
    }

    /// The frame at `t` (the sequence's last one after its end).
    func picture(at t: MediaTime, hold: Bool) throws(MixWriteError) -> Frame? {
        let n = Int(t.ticks(in: readers.plan.video.frameRate.inverted))
        try readers.picture(ofFrame: min(max(0, n), readers.plan.wholeFrameCount - 1), into: output)
        return output
    }

    var damagedPackets: Int { readers.damagedPackets }
}

/// A timeline's gap: one black picture of the output's size (8 or 10 bits).
final class BlackPicture: PictureSource {
    let damagedPackets = 0
    private let picture: Frame

    init(width: Int, height: Int, tenBits: Bool) throws(MixWriteError) {
        do { picture = try Frame(width: width, height: height, pixelFormat: tenBits ? .yuv420p10 : .yuv420p) } catch {
            throw .processing(file: nil, "cannot allocate a gap's picture: \(error.description)")
        }
        for plane in 0..<3 {
            let rows = plane == 0 ? height : (height + 1) / 2, columns = plane == 0 ? width : (width + 1) / 2
            let level = plane == 0 ? 16 : 128   // black, in limited range
            for y in 0..<rows {
                let row = picture.plane(plane) + y * picture.stride(plane)
                if tenBits {
                    row.withMemoryRebound(to: UInt16.self, capacity: columns) { $0.update(repeating: UInt16(level << 2), count: columns) }
                } else {
                    row.update(repeating: UInt8(level), count: columns)
                }
            }
        }
    }

    func picture(at t: MediaTime, hold: Bool) throws(MixWriteError) -> Frame? { picture }
}

/// A piece's pictures brought into the output's HDR: an SDR clip lifted, a clip of the other transfer converted.
final class ConvertedPictures: PictureSource {
    let movie: VideoTrackReader
    private let convert: (Frame) throws(FFmpegError) -> Frame

    init(_ movie: VideoTrackReader, _ convert: @escaping (Frame) throws(FFmpegError) -> Frame) { (self.movie, self.convert) = (movie, convert) }

    func picture(at t: MediaTime, hold: Bool) throws(MixWriteError) -> Frame? {
        guard let picture = try movie.picture(at: t, hold: hold) else { return nil }
        do { return try convert(picture) } catch { throw .processing(error, file: movie.file.path) }
    }

    var damagedPackets: Int { movie.damagedPackets }
}
