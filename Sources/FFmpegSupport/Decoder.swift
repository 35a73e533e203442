internal import CFFmpeg

/// A decoder for one stream of a `Demuxer`. Owns its `AVCodecContext`; `deinit` frees it.
public final class Decoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    public let timeBase: Rational
    /// The stream of the demuxer this decoder reads.
    public let streamIndex: Int

    /// Opens the decoder a stream names. The corresponding FFmpeg calls are `avcodec_find_decoder`,
    /// `avcodec_parameters_to_context` and `avcodec_open2`. `checking`: a decoder that looks for damage rather than
    /// pictures: every error FFmpeg detects is returned (`err_recognition` with `AV_EF_EXPLODE`) instead of concealed,
    /// and the loop filter, which detects nothing, is skipped (`skip_loop_filter`), so its pictures are not shown.
    public init(demuxer: Demuxer, streamIndex: Int, threads: Int = 0, checking: Bool = false) throws(FFmpegError) {
        let st = demuxer.stream(streamIndex)
        let par = st.pointee.codecpar!
        // VP9 with an alpha channel (WebM's alpha_mode): FFmpeg's own decoder ignores the alpha, libvpx's reads it.
        let vp9Alpha = par.pointee.codec_id == AV_CODEC_ID_VP9
            && av_dict_get(st.pointee.metadata, "alpha_mode", nil, 0).map { String(cString: $0.pointee.value) == "1" } == true
        guard let codec = (vp9Alpha ? avcodec_find_decoder_by_name("libvpx-vp9") : nil) ?? avcodec_find_decoder(par.pointee.codec_id) else {
            throw FFmpegError(.decoderNotFound, call: "avcodec_find_decoder")
        }
        guard let ctx = avcodec_alloc_context3(codec) else {
            throw FFmpegError(.noMemory, call: "avcodec_alloc_context3")
        }
        context = ctx
        timeBase = Rational(st.pointee.time_base)
        self.streamIndex = streamIndex
        try check(avcodec_parameters_to_context(ctx, par), "avcodec_parameters_to_context")
        ctx.pointee.pkt_timebase = st.pointee.time_base
        ctx.pointee.thread_count = Int32(threads)
        if checking {
            ctx.pointee.err_recognition |= AV_EF_CRCCHECK | AV_EF_BITSTREAM | AV_EF_BUFFER | AV_EF_EXPLODE
            ctx.pointee.skip_loop_filter = AVDISCARD_ALL
        }
        if par.pointee.codec_type == AVMEDIA_TYPE_VIDEO {
            ctx.pointee.framerate = av_guess_frame_rate(demuxer.context, st, nil)
        }
        try check(avcodec_open2(ctx, codec, nil), "avcodec_open2")
    }

    deinit {
        var c: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&c)
    }

    /// What one packet gave: the frames it completed, and how many failures of the decoder were skipped.
    public struct Decoded {
        public var frames: [Frame] = []
        /// The packet was refused or a frame failed to decode (damaged data): skipped, and the decoder
        /// recovers at the next keyframe.
        public var damaged = 0
    }

    /// Sends one packet (nil: the end of the stream) and receives every frame it completes. This is the
    /// one send/receive loop of mixwrite. Damaged data is counted, not thrown; only running out of memory
    /// is. The corresponding FFmpeg calls are `avcodec_send_packet` and `avcodec_receive_frame`.
    public func decode(_ packet: Packet?) throws(FFmpegError) -> Decoded {
        var out = Decoded()
        while true {
            let sent = avcodec_send_packet(context, packet?.pointer)
            // EAGAIN: the decoder is full; take its frames, then send the same packet again.
            let full = sent == FFmpegError.Code.tryAgain.rawValue
            if sent < 0 && !full && sent != FFmpegError.Code.endOfFile.rawValue {
                try Decoder.throwIfFatal(sent, "avcodec_send_packet")
                out.damaged += 1
            }
            while true {
                let frame = Frame()
                let r = avcodec_receive_frame(context, frame.pointer)
                if r == FFmpegError.Code.tryAgain.rawValue || r == FFmpegError.Code.endOfFile.rawValue { break }
                if r < 0 {
                    try Decoder.throwIfFatal(r, "avcodec_receive_frame")
                    out.damaged += 1
                    break
                }
                out.frames.append(frame)
            }
            // A decoder that is full yet gave nothing back would loop forever: count the packet as lost.
            if !full { return out }
            if out.frames.isEmpty && out.damaged > 0 { return out }
        }
    }

    /// Only running out of memory stops a decode; everything else is damaged input, skipped.
    private static func throwIfFatal(_ code: Int32, _ call: String) throws(FFmpegError) {
        if code == FFmpegError.Code.noMemory.rawValue { throw FFmpegError(code: code, call: call) }
    }

    /// Whether this FFmpeg has a decoder for a stream's codec. The corresponding FFmpeg call is `avcodec_find_decoder`.
    public static func exists(for demuxer: Demuxer, streamIndex: Int) -> Bool {
        avcodec_find_decoder(demuxer.stream(streamIndex).pointee.codecpar.pointee.codec_id) != nil
    }

    /// Skip decoding frames no other frame refers to (B-frames), to reach a point after a seek sooner.
    /// The corresponding FFmpeg field is `AVCodecContext.skip_frame` (`AVDISCARD_NONREF`).
    public var skipsNonReferenceFrames: Bool {
        get { context.pointee.skip_frame == AVDISCARD_NONREF }
        set { context.pointee.skip_frame = newValue ? AVDISCARD_NONREF : AVDISCARD_DEFAULT }
    }

    /// Forgets buffered frames after a seek. The corresponding FFmpeg call is `avcodec_flush_buffers`.
    public func flush() { avcodec_flush_buffers(context) }

    /// The decoded frames of this decoder's stream, read from `demuxer` (which should keep only that stream).
    public func frames(from demuxer: Demuxer) -> DecodedFrames {
        DecodedFrames(demuxer: demuxer, decoder: self)
    }
}

/// The frames of one stream, in decode order: the one read/decode loop of mixwrite. Owns its demuxer
/// and decoder. A read error ends the stream, as the end of a truncated file does, and is counted as damage.
public final class DecodedFrames {
    public let demuxer: Demuxer
    public let decoder: Decoder
    /// Packets or frames that could not be read or decoded, skipped so far.
    public private(set) var damaged = 0
    private var queue: [Frame] = []
    private var head = 0
    private var drained = false
    private let packet = Packet()
    /// After a seek: packets before this (stream ticks) only lead up to it, so B-frames need not be decoded.
    private var skipUntil: Int64?

    init(demuxer: Demuxer, decoder: Decoder) {
        self.demuxer = demuxer
        self.decoder = decoder
    }

    /// The next frame, or nil once the stream is over.
    public func next() throws(FFmpegError) -> Frame? {
        while head == queue.count {
            if drained { return nil }
            queue.removeAll(keepingCapacity: true)
            head = 0
            let more: Bool
            do { more = try demuxer.read(into: packet) } catch let e where e.code == .noMemory { throw e } catch {
                damaged += 1
                more = false
            }
            if !more {
                drained = true
                take(try decoder.decode(nil))
                continue
            }
            guard packet.streamIndex == decoder.streamIndex else { continue }
            if let until = skipUntil, let ts = packet.pts ?? packet.dts, ts >= until {
                skipUntil = nil
                decoder.skipsNonReferenceFrames = false
            }
            take(try decoder.decode(packet))
        }
        defer { head += 1 }
        return queue[head]
    }

    private func take(_ d: Decoder.Decoded) {
        queue.append(contentsOf: d.frames)
        damaged += d.damaged
    }

    /// Jumps to the keyframe at or before `time` (on the stream's own timeline) and decodes only reference
    /// frames until `skipUntil`. The corresponding FFmpeg calls are `av_seek_frame` and `avcodec_flush_buffers`.
    public func seek(to time: MediaTime, skippingUntil skipUntil: MediaTime) throws(FFmpegError) {
        try demuxer.seek(to: time, streamIndex: decoder.streamIndex)
        decoder.flush()
        queue.removeAll()
        head = 0
        drained = false
        self.skipUntil = skipUntil.ticks(in: decoder.timeBase)
        decoder.skipsNonReferenceFrames = true
    }
}
