import FFmpegSupport
import Foundation

/// Pictures of one input's video stream on the output's timeline, at the output's size and format, upright
/// and placed in the frame. `picture(at:)` answers "what does this input show at output time t": the latest
/// frame that starts by t (within half an output frame), converted once and reused while it stays on screen.
final class VideoTrackReader: PictureSource {
    let file: MediaFile
    let stream: StreamInfo
    private var frames: DecodedFrames
    private let strict: Bool
    /// Half an output frame: a frame that starts this close after t already counts as showing at t.
    private let tolerance: MediaTime
    private let frameDuration: MediaTime
    private let picture: PictureConverter

    /// The frame on screen (decoded, not yet converted) and its start on the output timeline.
    private var current: (frame: Frame, time: MediaTime)?
    private var converted: Frame?
    /// The next decoded frame, read ahead to know when the current one leaves the screen.
    private var next: (frame: Frame, time: MediaTime)?
    private var ended = false
    private var lastTime: MediaTime?

    var damagedPackets: Int { frames.damaged }

    /// `keepAlpha`: pictures in yuva420p, the stream's own alpha kept (an fx composited by it). `keepHDR`: pictures
    /// in 10 bits (yuv420p10), not tone-mapped (`--hdr keep`'s base; `color` is then the HDR stream's own).
    init(file: MediaFile, width: Int, height: Int, color: ColorDescription, outputFrameRate: Rational,
         fit: Fit = .stretch, strict: Bool = false, keepAlpha: Bool = false, keepHDR: Bool = false) throws(MixWriteError) {
        guard let stream = file.mainVideo else { throw .input(file: file.path, "has no video stream") }
        self.file = file
        self.stream = stream
        self.strict = strict
        frames = try VideoTrackReader.open(file, stream)
        picture = PictureConverter(width: width, height: height, color: color, fit: fit, stream: stream, keepAlpha: keepAlpha,
                                   keepHDR: keepHDR)
        let outFrame = MediaTime(frames: 1, rate: outputFrameRate)
        tolerance = MediaTime(value: outFrame.value, timescale: outFrame.timescale * 2)
        frameDuration = stream.frameRate.map { $0.isValid ? MediaTime(frames: 1, rate: $0) : outFrame } ?? outFrame
    }

    /// Threads a video decoder gets: one for every four cores. Each of FFmpeg's frame threads holds pictures of
    /// its own (a 1080p blend's two decoders with FFmpeg's automatic 3: 39 MB more, no faster on 2 cores), and the
    /// keyer and x264 already keep the cores busy.
    static let decoderThreads = max(1, ProcessInfo.processInfo.activeProcessorCount / 4)

    private static func open(_ file: MediaFile, _ stream: StreamInfo) throws(MixWriteError) -> DecodedFrames {
        do {
            let demuxer = try Demuxer(url: file.path)
            demuxer.keepOnly([stream.index])
            return try Decoder(demuxer: demuxer, streamIndex: stream.index, threads: decoderThreads).frames(from: demuxer)
        } catch {
            throw .input(file: file.path, "video stream #\(stream.index) (\(stream.codec)) cannot be decoded: \(error.message.lowercased())")
        }
    }

    /// Jumps to the keyframe at or before output time `t`, so the next `picture(at:)` near `t` decodes
    /// only from there (B-frames before `t` are skipped). A file that cannot seek is decoded from its start.
    func seek(to t: MediaTime) throws(MixWriteError) {
        guard t > .zero else { return }
        do {
            try frames.seek(to: t + file.origin, skippingUntil: t - frameDuration - frameDuration + file.origin)
        } catch {
            // Where a failed seek leaves the demuxer is not defined: start again from the top, only slower.
            frames = try VideoTrackReader.open(file, stream)
        }
        restart()
        seeked = true
    }

    /// Back to the file's first frame, wherever the reader is (a seek to 0 leaves a fresh reader where it is).
    func rewind() throws(MixWriteError) {
        frames = try VideoTrackReader.open(file, stream)
        restart()
    }

    /// Set by a seek until a frame is decoded: the seek may have landed where nothing decodes (and the
    /// frames up to the seek's time are still to decode).
    private(set) var seeked = false

    private func restart() {
        current = nil
        next = nil
        converted = nil
        ended = false
        lastTime = nil
    }

    /// The picture this input shows at output time `t`, or nil once it has ended (and `hold` is false).
    /// With `hold`, the last picture stays on screen after the end.
    func picture(at t: MediaTime, hold: Bool) throws(MixWriteError) -> Frame? {
        let limit = t + tolerance
        if current == nil, try readNext() == false {
            // A seek can land where nothing decodes (an index pointing at a frame whose parameter sets came only
            // at the file's start, as in a cut XAVC file): decode from the top instead, only slower.
            guard seeked else { return nil }
            seeked = false
            frames = try VideoTrackReader.open(file, stream)
            restart()
            if try readNext() == false { return nil }
        }
        seeked = false
        while true {
            if next == nil, try readNext() == false { break }
            guard let n = next, n.time <= limit else { break }
            current = n
            next = nil
            converted = nil
        }
        guard let c = current else { return nil }
        if !hold && next == nil && ended && c.time + frameDuration <= t { return nil }
        if let converted { return converted }
        do { converted = try picture.convert(c.frame) } catch {
            throw .processing(file: file.path, "video stream #\(stream.index): \(error.description)")
        }
        return converted
    }

    /// The next decoded picture (each once, in order, from where it is: the file's first, or a seek's keyframe) and its
    /// time; nil at the end. For a filter that needs every frame of a clip, not the one showing at a time.
    func nextPicture() throws(MixWriteError) -> (picture: Frame, time: MediaTime)? {
        if current == nil {
            guard try readNext() else { return nil }
        } else {
            if next == nil, try readNext() == false { return nil }
            guard let n = next else { return nil }
            (current, next, converted) = (n, nil, nil)
        }
        guard let c = current else { return nil }
        do { converted = try picture.convert(c.frame) } catch {
            throw .processing(file: file.path, "video stream #\(stream.index): \(error.description)")
        }
        return (converted!, c.time)
    }

    /// The first picture of `file` that decodes from `from` (its own time) on, at its own size (`keepAlpha`: with its
    /// alpha). Refuses a file with none: laid over base it would show nothing, and the render would say only that
    /// packets were damaged. Reads up to the first good frame.
    static func firstPicture(in file: MediaFile, from: MediaTime, keepAlpha: Bool, as role: String) throws(MixWriteError) -> Frame {
        let rate = file.mainVideo?.frameRate.flatMap { $0.isValid ? $0 : nil } ?? Rational(30, 1)
        let size = file.displaySize ?? (16, 16)
        let reader = try VideoTrackReader(file: file, width: size.width, height: size.height,
                                          color: ColorDescription(matrix: .bt709, fullRange: false), outputFrameRate: rate, keepAlpha: keepAlpha)
        try reader.seek(to: from)
        if try reader.readNext(), let picture = try reader.picture(at: from, hold: true) { return picture }
        let damaged = reader.damagedPackets
        throw .input(file: file.path, "has no decodable picture\(from > .zero ? " from \(from.seconds) s" : "")"
                         + (damaged > 0 ? " (\(damaged) damaged \(damaged == 1 ? "packet" : "packets"))" : "") + "; as \(role) it would show nothing")
    }

    /// Decodes the next frame into `current` (the first) or `next`; false when the stream has no more.
    private func readNext() throws(MixWriteError) -> Bool {
        let frame: Frame?
        let damagedBefore = frames.damaged
        do { frame = try frames.next() } catch {
            throw .processing(file: file.path, "video stream #\(stream.index): \(error.description)")
        }
        if strict && frames.damaged > damagedBefore {
            throw .processing(file: file.path, "damaged packet in video stream #\(stream.index) (--strict stops at the first)")
        }
        if frames.damaged > damagedBefore {
            // Where: the frame that follows the damage, else the last one before it (the file's own time).
            let after = frame?.bestEffortTimestamp.map { MediaTime(ticks: $0, timeBase: stream.timeBase) - file.origin }
            DamageLog.record(file.path, frames.damaged - damagedBefore, at: after ?? lastTime ?? .zero)
        }
        guard let frame else { ended = true; return false }
        var time: MediaTime
        if let ticks = frame.bestEffortTimestamp {
            time = MediaTime(ticks: ticks, timeBase: stream.timeBase) - file.origin
        } else {
            time = lastTime.map { $0 + frameDuration } ?? .zero
        }
        // Timestamps must rise; a repeated or backward one is taken as the next frame slot.
        if let last = lastTime, time <= last { time = last + MediaTime(value: 1, timescale: Int64(1_000_000)) }
        lastTime = time
        if current == nil { current = (frame, time); converted = nil } else { next = (frame, time) }
        return true
    }
}

extension VideoTrackReader {
    /// fx's and base's pictures at `t` (base's last held past its end), the two decoded side by side: after a
    /// seek each may have most of a GOP to decode before `t`, and one decoder thread each leaves a core idle.
    /// fx is read at its own time `fxTime` (a layer placed later in the output, or from later in fx); `holding`: its last
    /// picture stays (a still).
    static func pictures(fx: VideoTrackReader, at fxTime: MediaTime, holding: Bool = false, base: VideoTrackReader,
                         at t: MediaTime) throws(MixWriteError)
        -> (fx: Frame?, base: Frame?) {
        // Each reader is used by one thread only, and both are done before this returns.
        nonisolated(unsafe) var fxResult: Result<Frame?, MixWriteError> = .success(nil)
        nonisolated(unsafe) var baseResult: Result<Frame?, MixWriteError> = .success(nil)
        nonisolated(unsafe) let readers = (fx, base)
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            if i == 0 {
                fxResult = Result { () throws(MixWriteError) in try readers.0.picture(at: fxTime, hold: holding) }
            } else {
                baseResult = Result { () throws(MixWriteError) in try readers.1.picture(at: t, hold: true) }
            }
        }
        let b = try baseResult.get()   // base's failure first, as when read one after the other
        return (try fxResult.get(), b)
    }
}

/// What a sequence of pictures is read from: a clip, or a still picture.
protocol PictureSource: AnyObject {
    func picture(at t: MediaTime, hold: Bool) throws(MixWriteError) -> Frame?
    var damagedPackets: Int { get }
}

/// A decoded picture brought to the output: scaled (display aspect kept by `fit`), turned upright, placed
/// in the frame, yuv420p in the output's colour. Keeps its buffers from one picture to the next.
final class PictureConverter {
    private let target: Scaler.Key
    private let fit: Fit
    private let orientation: Orientation
    private let sampleAspect: Double
    private var scaler: Scaler?
    private var scaled: Frame?
    private var turned: Frame?
    private var canvas: Frame?
    /// An HDR stream's tone mapping to SDR BT.709, before anything else (the output is SDR).
    private let toneMapper: ToneMapper?

    init(width: Int, height: Int, color: ColorDescription, fit: Fit, stream: StreamInfo, keepAlpha: Bool = false,
         keepHDR: Bool = false) {
        toneMapper = keepHDR ? nil : ToneMapper(stream: stream)
        target = Scaler.Key(width: width, height: height, format: keepHDR ? .yuv420p10 : keepAlpha ? .yuva420p : .yuv420p, color: color)
        self.fit = fit
        orientation = Orientation(matrix: stream.displayMatrix)
        let sar = stream.sampleAspectRatio.map { $0.doubleValue } ?? 1
        sampleAspect = sar > 0 ? sar : 1
        sourceColor = stream.color
    }

    private let sourceColor: ColorDescription

    func convert(_ decoded: Frame) throws(FFmpegError) -> Frame {
        let frame = try toneMapper.map { (mapper) throws(FFmpegError) in try mapper.map(try shrunk(decoded)) } ?? decoded
        let color = toneMapper == nil ? frame.color(fallback: sourceColor) : ColorDescription(matrix: .bt709, fullRange: false)
        let key = Scaler.Key(width: frame.width, height: frame.height, format: frame.pixelFormat, color: color)
        let place = placement(width: frame.width, height: frame.height)
        if orientation == .upright && place.isWholeFrame(of: target) {
            return key == target ? frame : try scale(frame, key, width: target.width, height: target.height)
        }
        // Scale (to the turned content's size, sides swapped back), turn upright, then place in the frame.
        let (sw, sh) = orientation.swapsSides ? (place.height, place.width) : (place.width, place.height)
        var picture = try scale(frame, key, width: sw, height: sh)
        if orientation != .upright {
            let out = try reuse(&turned, width: place.width, height: place.height)
            orientation.apply(picture, into: out)
            picture = out
        }
        if place.isWholeFrame(of: target) { return picture }
        let out = try reuse(&canvas, width: target.width, height: target.height)
        place.draw(picture, into: out)
        return out
    }

    private var hdrScaler: Scaler?
    private var hdrScaled: Frame?

    /// An HDR picture larger than it is shown, scaled down first in its own format and colour, so that the tone
    /// mapping (by the pixel, and the dearest step) works on what is shown: a 4K phone clip in a 1080p output, a
    /// quarter of it. Square pixels only (the placement reads the shrunk picture's shape again).
    private func shrunk(_ frame: Frame) throws(FFmpegError) -> Frame {
        guard sampleAspect == 1 else { return frame }
        let place = placement(width: frame.width, height: frame.height)
        let (sw, sh) = orientation.swapsSides ? (place.height, place.width) : (place.width, place.height)
        guard sw * sh < frame.width * frame.height, sw >= 2, sh >= 2 else { return frame }
        let key = Scaler.Key(width: frame.width, height: frame.height, format: frame.pixelFormat, color: frame.color(fallback: sourceColor))
        let destination = Scaler.Key(width: sw, height: sh, format: frame.pixelFormat, color: key.color)
        if hdrScaler?.source != key || hdrScaler?.destination != destination { hdrScaler = try Scaler(from: key, to: destination) }
        if hdrScaled?.width != sw || hdrScaled?.height != sh || hdrScaled?.pixelFormat != frame.pixelFormat {
            hdrScaled = try Frame(width: sw, height: sh, pixelFormat: frame.pixelFormat)
        }
        try hdrScaled!.makeWritable()
        try hdrScaler!.scale(frame, into: hdrScaled!)
        // The tone mapping reads the picture's colour tags, as the decoder gave them.
        hdrScaled!.copyColorTags(from: frame)
        return hdrScaled!
    }

    /// Scales `frame` to `width` × `height` in the output's format and colour. A change of matrix between limited-range
    /// YUV pictures is made after scaling, in the YUV domain (`MatrixConversion`), not by swscale.
    private func scale(_ frame: Frame, _ key: Scaler.Key, width: Int, height: Int) throws(FFmpegError) -> Frame {
        let yuvMatrix = key.color.matrix != target.color.matrix && !key.color.fullRange && !target.color.fullRange && !key.format.isRGB
            && target.format != .yuv420p10
        let destination = Scaler.Key(width: width, height: height, format: target.format,
                                     color: yuvMatrix ? ColorDescription(matrix: key.color.matrix, fullRange: false) : target.color)
        if key == destination && !yuvMatrix { return frame }
        if scaler?.source != key || scaler?.destination != destination { scaler = try Scaler(from: key, to: destination) }
        let out = try reuse(&scaled, width: width, height: height)
        try scaler!.scale(frame, into: out)
        if yuvMatrix {
            if matrixConversion?.from != key.color.matrix {
                matrixConversion = (key.color.matrix, MatrixConversion(from: key.color.matrix, to: target.color.matrix))
            }
            matrixConversion!.conversion.apply(out)
        }
        return out
    }

    private var matrixConversion: (from: ColorMatrix, conversion: MatrixConversion)?

    /// `buffer`, made writable, or a new picture when it has another size.
    private func reuse(_ buffer: inout Frame?, width: Int, height: Int) throws(FFmpegError) -> Frame {
        if let b = buffer, b.width == width, b.height == height {
            try b.makeWritable()
            return b
        }
        let b = try Frame(width: width, height: height, pixelFormat: target.format)
        buffer = b
        return b
    }

    /// Where the upright picture goes in the output frame, by `fit`, keeping the display aspect (SAR included).
    private func placement(width w: Int, height h: Int) -> Placement {
        var dw = Double(w) * sampleAspect, dh = Double(h)
        if orientation.swapsSides { swap(&dw, &dh) }
        return Placement(fitting: dw, dh, into: target.width, target.height, fit: fit)
    }
}
