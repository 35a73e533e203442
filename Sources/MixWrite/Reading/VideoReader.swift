import FFmpegSupport

/// Pictures of one input's video stream on the output's timeline, at the output's size and format.
/// `picture(at:)` answers "what does this input show at output time t": the latest frame that starts by
/// t (within half an output frame), converted once and reused while it stays on screen.
final class VideoReader {
    let file: MediaFile
    let stream: StreamInfo
    private let demuxer: Demuxer
    private let decoder: Decoder
    private let packet = Packet()
    private let target: Scaler.Key
    private var scaler: Scaler?
    /// Half an output frame: a frame that starts this close after t already counts as showing at t.
    private let tolerance: MediaTime
    private let frameDuration: MediaTime

    /// The frame on screen (decoded, not yet converted) and its start on the output timeline.
    private var current: (frame: Frame, time: MediaTime)?
    private var converted: Frame?
    private var scaled: Frame?
    private var convertedIsCurrent = false
    /// The next decoded frame, read ahead to know when the current one leaves the screen.
    private var next: (frame: Frame, time: MediaTime)?
    private var inputEnded = false
    private var decoderDrained = false
    private var lastTime: MediaTime?
    /// After a seek: packets before this time only lead up to it, so their B-frames need not be decoded.
    private var seekTarget: MediaTime?
    private(set) var damagedPackets = 0
    private let strict: Bool

    private let orientation: Orientation
    private let fit: Fit
    private var turned: Frame?
    private var canvas: Frame?

    init(file: MediaFile, width: Int, height: Int, color: ColorDescription, outputFrameRate: Rational,
         fit: Fit = .stretch, strict: Bool = false) throws {
        self.strict = strict
        self.fit = fit
        orientation = Orientation(matrix: file.mainVideo?.displayMatrix)
        guard let stream = file.mainVideo else { throw MixWriteError.input(file: file.path, "has no video stream") }
        self.file = file
        self.stream = stream
        do {
            demuxer = try Demuxer(url: file.path)
            demuxer.keepOnly([stream.index])
            decoder = try Decoder(demuxer: demuxer, streamIndex: stream.index)
        } catch {
            throw MixWriteError.input(file: file.path, "video stream #\(stream.index) (\(stream.codec)) cannot be decoded: \(error.message.lowercased())")
        }
        target = Scaler.Key(width: width, height: height, format: .yuv420p, color: color)
        let outFrame = MediaTime(value: Int64(outputFrameRate.den), timescale: outputFrameRate.num)
        tolerance = MediaTime(value: outFrame.value, timescale: outFrame.timescale * 2)
        if let r = stream.frameRate, r.isValid {
            frameDuration = MediaTime(value: Int64(r.den), timescale: r.num)
        } else {
            frameDuration = outFrame
        }
    }

    /// Jumps to the keyframe at or before output time `t`, so the next `picture(at:)` near `t` decodes
    /// only from there. The corresponding FFmpeg calls are `av_seek_frame` and `avcodec_flush_buffers`.
    func seek(to t: MediaTime) throws {
        guard t > .zero else { return }
        do {
            try demuxer.seek(to: t + file.origin, streamIndex: stream.index)
        } catch {
            return  // Not seekable: decode from the start instead, which is only slower.
        }
        decoder.flush()
        drainRequested = false
        seekTarget = t - frameDuration - frameDuration
        decoder.skipsNonReferenceFrames = true
        current = nil
        next = nil
        converted = nil
        convertedIsCurrent = false
        inputEnded = false
        decoderDrained = false
        lastTime = nil
    }

    /// The picture this input shows at output time `t`, or nil once it has ended (and `hold` is false).
    /// With `hold`, the last picture stays on screen after the end.
    func picture(at t: MediaTime, hold: Bool) throws -> Frame? {
        let limit = t + tolerance
        if current == nil, try readNext() == false { return nil }
        while true {
            if next == nil, try readNext() == false { break }
            guard let n = next, n.time <= limit else { break }
            current = n
            next = nil
            convertedIsCurrent = false
        }
        guard let c = current else { return nil }
        if !hold && next == nil && inputEnded && decoderDrained && c.time + frameDuration <= t {
            return nil
        }
        return try convertedCurrent(c.frame)
    }

    /// Decodes the next frame into `next`; false when the stream has no more.
    private func readNext() throws -> Bool {
        let frame = Frame()
        while true {
            switch try receive(into: frame) {
            case .value:
                let ticks = frame.bestEffortTimestamp
                var time: MediaTime
                if let ticks {
                    time = MediaTime(ticks: ticks, timeBase: stream.timeBase) - file.origin
                } else {
                    time = lastTime.map { $0 + frameDuration } ?? .zero
                }
                // Timestamps must rise; a repeated or backward one is taken as the next frame slot.
                if let last = lastTime, time <= last { time = last + MediaTime(value: 1, timescale: 1_000_000) }
                lastTime = time
                if current == nil { current = (frame, time); convertedIsCurrent = false; return true }
                next = (frame, time)
                return true
            case .endOfStream:
                decoderDrained = true
                return false
            case .needsInput:
                if inputEnded {
                    // Already draining and still asking for input: nothing more will come.
                    if drainRequested { decoderDrained = true; return false }
                    try requestDrain()
                    continue
                }
                let more: Bool
                do {
                    more = try demuxer.read(into: packet)
                } catch {
                    // A read error ends the input, as a truncated file does.
                    try damaged()
                    more = false
                }
                if !more {
                    inputEnded = true
                    try requestDrain()
                    continue
                }
                guard packet.streamIndex == stream.index else { continue }
                if let target = seekTarget, let ts = packet.pts ?? packet.dts,
                   MediaTime(ticks: ts, timeBase: stream.timeBase) - file.origin >= target {
                    seekTarget = nil
                    decoder.skipsNonReferenceFrames = false
                }
                do {
                    _ = try decoder.send(packet)
                } catch {
                    try damaged()
                }
            }
        }
    }

    private func receive(into frame: Frame) throws -> Receive<Void> {
        do {
            return try decoder.receive(into: frame)
        } catch {
            // A damaged frame is skipped; the decoder recovers at the next keyframe.
            try damaged()
            if inputEnded { return .endOfStream }
            return .needsInput
        }
    }

    private var drainRequested = false

    /// Sends the end of the stream; a decoder that refuses it has nothing more to give.
    private func requestDrain() throws {
        drainRequested = true
        do { _ = try decoder.send(nil) } catch { try damaged() }
    }

    private func damaged() throws {
        damagedPackets += 1
        if strict {
            throw MixWriteError.processing(file: file.path, "damaged packet in video stream #\(stream.index) (--strict stops at the first)")
        }
    }

    private func convertedCurrent(_ frame: Frame) throws -> Frame {
        if convertedIsCurrent, let converted { return converted }
        let sourceColor = frame.color(fallback: stream.color)
        let key = Scaler.Key(width: frame.width, height: frame.height, format: frame.pixelFormat, color: sourceColor)
        let place = placement(width: frame.width, height: frame.height)
        if orientation == .upright && place.isWholeFrame(target) {
            if key == target {
                converted = frame
            } else {
                converted = try scale(frame, key, width: target.width, height: target.height, into: &scaled)
            }
        } else {
            // Scale (to the turned content's size, sides swapped back), turn upright, then place in the frame.
            let (sw, sh) = orientation.swapsSides ? (place.height, place.width) : (place.width, place.height)
            var picture = try scale(frame, key, width: sw, height: sh, into: &scaled)
            if orientation != .upright {
                if turned == nil || turned!.width != place.width || turned!.height != place.height {
                    turned = try Frame(width: place.width, height: place.height, pixelFormat: .yuv420p)
                }
                try turned!.makeWritable()
                orientation.apply(picture, into: turned!)
                picture = turned!
            }
            if place.isWholeFrame(target) {
                converted = picture
            } else {
                if canvas == nil { canvas = try Frame(width: target.width, height: target.height, pixelFormat: .yuv420p) }
                try canvas!.makeWritable()
                place.draw(picture, into: canvas!)
                converted = canvas
            }
        }
        convertedIsCurrent = true
        return converted!
    }

    private func scale(_ frame: Frame, _ key: Scaler.Key, width: Int, height: Int, into buffer: inout Frame?) throws -> Frame {
        let destination = Scaler.Key(width: width, height: height, format: .yuv420p, color: target.color)
        if key == destination { return frame }
        if scaler?.source != key || scaler?.destination != destination { scaler = try Scaler(from: key, to: destination) }
        if buffer == nil || buffer!.width != width || buffer!.height != height {
            buffer = try Frame(width: width, height: height, pixelFormat: .yuv420p)
        }
        try buffer!.makeWritable()
        try scaler!.scale(frame, into: buffer!)
        return buffer!
    }

    /// Where the upright picture goes in the output frame, by `fit`, keeping the display aspect (SAR included).
    private func placement(width w: Int, height h: Int) -> Placement {
        let sar = stream.sampleAspectRatio.map { $0.doubleValue } ?? 1
        var dw = Double(w) * (sar > 0 ? sar : 1), dh = Double(h)
        if orientation.swapsSides { swap(&dw, &dh) }
        return Placement(fitting: dw, dh, into: target.width, target.height, fit: fit)
    }
}

/// A picture's rectangle in the output frame; it may stick out of it (fill), or leave bars (fit).
struct Placement {
    var x: Int
    var y: Int
    var width: Int
    var height: Int

    /// Where a picture shown `dw` × `dh` goes in a `width` × `height` frame; even, so chroma stays aligned.
    init(fitting dw: Double, _ dh: Double, into width: Int, _ height: Int, fit: Fit) {
        switch fit {
        case .stretch:
            self.init(x: 0, y: 0, width: width, height: height)
        case .fit, .fill:
            let W = Double(width), H = Double(height)
            let scale = fit == .fit ? min(W / dw, H / dh) : max(W / dw, H / dh)
            let cw = max(2, Int((dw * scale).rounded()) & ~1), ch = max(2, Int((dh * scale).rounded()) & ~1)
            self.init(x: ((width - cw) / 2) & ~1, y: ((height - ch) / 2) & ~1, width: cw, height: ch)
        }
    }

    init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    func isWholeFrame(_ target: Scaler.Key) -> Bool { x == 0 && y == 0 && width == target.width && height == target.height }

    /// `bars` (Y, U, V; black by default) where the picture does not reach, the picture (cropped to the
    /// frame) elsewhere.
    func draw(_ picture: Frame, into canvas: Frame, bars: (UInt8, UInt8, UInt8) = (16, 128, 128)) {
        for plane in 0..<3 {
            let shift = plane == 0 ? 0 : 1
            let cw = (canvas.width + shift) >> shift, ch = (canvas.height + shift) >> shift
            let px = x >> shift, py = y >> shift
            let pw = (width + shift) >> shift, ph = (height + shift) >> shift
            let black = plane == 0 ? bars.0 : plane == 1 ? bars.1 : bars.2
            let dst = canvas.plane(plane), src = picture.plane(plane)
            let ds = canvas.stride(plane), ss = picture.stride(plane)
            let x0 = max(0, px), x1 = min(cw, px + pw)
            for row in 0..<ch {
                let d = dst + row * ds
                let sr = row - py
                guard sr >= 0, sr < ph, x1 > x0 else {
                    d.update(repeating: black, count: cw)
                    continue
                }
                if x0 > 0 { d.update(repeating: black, count: x0) }
                (d + x0).update(from: src + sr * ss + (x0 - px), count: x1 - x0)
                if x1 < cw { (d + x1).update(repeating: black, count: cw - x1) }
            }
        }
    }
}
