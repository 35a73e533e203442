internal import CFFmpeg

/// An output file being written. Owns its `AVFormatContext` and its I/O.
/// `finish()` must run (or `abandon()` after a failure) before the muxer is released.
public final class Muxer {
    let context: UnsafeMutablePointer<AVFormatContext>
    public let path: String
    private var headerWritten = false
    private var closed = false

    /// Creates the output `path` for the container named `format` ("mov", "mp4", "matroska").
    /// The corresponding FFmpeg calls are `avformat_alloc_output_context2` and `avio_open`.
    public init(path: String, format: String) throws(FFmpegError) {
        var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
        try check(avformat_alloc_output_context2(&ctx, nil, format, path), "avformat_alloc_output_context2")
        guard let ctx else { throw FFmpegError(.noMemory, call: "avformat_alloc_output_context2") }
        // Bit-exact output: no library version string, so the same job gives the same bytes.
        ctx.pointee.flags |= AVFMT_FLAG_BITEXACT
        let r = avio_open(&ctx.pointee.pb, path, AVIO_FLAG_WRITE)
        if r < 0 {
            avformat_free_context(ctx)
            throw FFmpegError(code: r, call: "avio_open")
        }
        context = ctx
        self.path = path
    }

    deinit {
        assert(closed, "Muxer for \(path) released without finish() or abandon()")
        if !closed { avio_closep(&context.pointee.pb) }
        avformat_free_context(context)
    }

    /// Whether the container wants codec headers out of band (mov, mp4, mkv).
    public var wantsGlobalHeader: Bool { context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 }

    /// Adds a stream with an encoder's (or a copied stream's) parameters; returns its index.
    /// The corresponding FFmpeg call is `avformat_new_stream`.
    /// `title` names the stream; `isDefault` false marks it as one a player does not play by default (a stem beside
    /// the mix; the container's `enabled`/default flag), true as the one it does.
    /// `frameRate`: a video stream's, which MOV and MP4 time a tmcd track by.
    public func addStream(_ parameters: CodecParameters, language: String? = nil, title: String? = nil,
                          isDefault: Bool? = nil, frameRate: Rational? = nil) throws(FFmpegError) -> Int {
        guard let st = avformat_new_stream(context, nil) else {
            throw FFmpegError(.noMemory, call: "avformat_new_stream")
        }
        try parameters.copy(into: st.pointee.codecpar)
        // HEVC we encode (parameter sets in the header only) goes into MOV and MP4 as 'hvc1', which Apple's players
        // want, not the muxer's default 'hev1'.
        let format = String(cString: context.pointee.oformat.pointee.name)
        if parameters.encoded && st.pointee.codecpar.pointee.codec_id == AV_CODEC_ID_HEVC && (format == "mov" || format == "mp4") {
            st.pointee.codecpar.pointee.codec_tag = UInt32(UInt8(ascii: "h")) | UInt32(UInt8(ascii: "v")) << 8
                | UInt32(UInt8(ascii: "c")) << 16 | UInt32(UInt8(ascii: "1")) << 24
        }
        // ProRes's tag names its profile (apco, apcs, apcn, apch, ap4h, ap4x), and editors read the profile from the
        // sample description (Matroska: its CodecPrivate): prores_ks sets the tag of the profile it encodes, kept here
        // (MOV's default is apch; Matroska's none, read as profile unknown).
        if parameters.encoded && st.pointee.codecpar.pointee.codec_id == AV_CODEC_ID_PRORES && (format == "mov" || format == "matroska") {
            st.pointee.codecpar.pointee.codec_tag = parameters.pointer.pointee.codec_tag
        }
        st.pointee.time_base = parameters.timeBase.av
        if let frameRate, st.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO { st.pointee.avg_frame_rate = frameRate.av }
        if let m = parameters.displayMatrix {
            try check(m.withUnsafeBufferPointer { mw_stream_set_display_matrix(st, $0.baseAddress!) }, "av_stream_new_side_data")
        }
        if let language { av_dict_set(&st.pointee.metadata, "language", language, 0) }
        if let title {
            // Matroska's track Name; MOV and MP4 keep a track's name as its handler's.
            av_dict_set(&st.pointee.metadata, format == "mov" || format == "mp4" ? "handler_name" : "title", title, 0)
        }
        if let isDefault { st.pointee.disposition = isDefault ? AV_DISPOSITION_DEFAULT : 0 }
        return Int(st.pointee.index)
    }

    /// Adds a chapter from `start` to `end` named `title`. The corresponding FFmpeg field is `AVFormatContext.chapters`.
    public func addChapter(id: Int, start: MediaTime, end: MediaTime, title: String) throws(FFmpegError) {
        let size = MemoryLayout<UnsafeMutablePointer<AVChapter>?>.stride * (Int(context.pointee.nb_chapters) + 1)
        guard let grown = av_realloc(context.pointee.chapters, size) else {
            throw FFmpegError(.noMemory, call: "av_realloc")
        }
        context.pointee.chapters = grown.assumingMemoryBound(to: UnsafeMutablePointer<AVChapter>?.self)
        guard let ch = av_mallocz(MemoryLayout<AVChapter>.size)?.assumingMemoryBound(to: AVChapter.self) else {
            throw FFmpegError(.noMemory, call: "av_mallocz")
        }
        let tb = Rational(1, 1000)
        ch.pointee.id = Int64(id)
        ch.pointee.time_base = tb.av
        ch.pointee.start = start.ticks(in: tb)
        ch.pointee.end = end.ticks(in: tb)
        av_dict_set(&ch.pointee.metadata, "title", title, 0)
        context.pointee.chapters[Int(context.pointee.nb_chapters)] = ch
        context.pointee.nb_chapters += 1
    }

    /// Sets the file's tags (`creation_time`, `title`, `location`, `make`, `timecode`: MOV and MP4 write a tmcd track for
    /// it, Matroska a tag). The corresponding FFmpeg field is `AVFormatContext.metadata`.
    public func setMetadata(_ tags: [String: String]) {
        for (k, v) in tags.sorted(by: { $0.key < $1.key }) { av_dict_set(&context.pointee.metadata, k, v, 0) }
    }

    /// The time base the muxer chose for a stream (valid after `writeHeader`).
    public func timeBase(ofStream i: Int) -> Rational { Rational(context.pointee.streams[i]!.pointee.time_base) }

    /// Writes the file header. `fastStart` moves the index to the front (mp4). The corresponding FFmpeg call is `avformat_write_header`.
    public func writeHeader(fastStart: Bool) throws(FFmpegError) {
        var options: OpaquePointer? = nil
        defer { av_dict_free(&options) }
        // MOV and MP4 keep a camera's make and model, and Apple's keys, only as QuickTime metadata keys ('mdta').
        let keys = Demuxer.tags(context.pointee.metadata).keys
        let format = String(cString: context.pointee.oformat.pointee.name)
        let mdta = keys.contains { $0.hasPrefix("com.") } || (format == "mp4" && keys.contains { $0 == "make" || $0 == "model" })
        let flags = (fastStart ? ["+faststart"] : []) + ((format == "mov" || format == "mp4") && mdta ? ["+use_metadata_tags"] : [])
        if !flags.isEmpty { av_dict_set(&options, "movflags", flags.joined(), 0) }
        // MOV and MP4 state each track's length (its edit list) in the movie's timescale, by default 1000 a second: a
        // sound of 41,000 samples at 48 kHz read back 40,992 long (0.854 s). The movie's timescale is made the audio's
        // (below), in which every sound's length is whole.
        if format == "mov" || format == "mp4", let scale = movieTimescale() {
            av_dict_set(&options, "movie_timescale", String(scale), 0)
        }
        try check(avformat_write_header(context, &options), "avformat_write_header")
        headerWritten = true
    }

    /// The least common multiple of the audio streams' sample rates (48000 for 48 kHz), where it fits in 31 bits; nil
    /// without audio (the muxer's 1000 then: a picture lasts far more than a millisecond). A video track's length is
    /// then within half a tick of its own (21 µs at 48 kHz: no frame lost), and a movie of 24 hours still fits the
    /// boxes' 32 bits.
    func movieTimescale() -> Int? {
        func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
        var scale: Int? = nil
        for i in 0 ..< Int(context.pointee.nb_streams) {
            let par = context.pointee.streams[i]!.pointee.codecpar.pointee
            guard par.codec_type == AVMEDIA_TYPE_AUDIO, par.sample_rate > 0 else { continue }
            let rate = Int(par.sample_rate), m = (scale ?? rate) / gcd(scale ?? rate, rate) * rate
            if m <= Int(Int32.max) { scale = m }
        }
        return scale
    }

    /// Writes one packet, already in the stream's time base and in interleaved order.
    /// The corresponding FFmpeg call is `av_write_frame` (the `AssetWriter` interleaves, so the muxer need not buffer).
    public func write(_ packet: Packet) throws(FFmpegError) {
        try check(av_write_frame(context, packet.pointer), "av_write_frame")
    }

    /// Writes one encoded packet of stream `index`, its timestamps in `timeBase`, in interleaved order.
    /// The corresponding FFmpeg calls are `av_packet_rescale_ts` and `av_write_frame`.
    public func write(_ encoded: EncodedPacket, stream index: Int, timeBase: Rational) throws(FFmpegError) {
        let packet = try Packet(encoded)
        packet.streamIndex = index
        packet.rescaleTimestamps(from: timeBase, to: self.timeBase(ofStream: index))
        try write(packet)
    }

    /// Writes one packet of stream `index` read from another file (`mixwrite join`), its timestamps in `timeBase`,
    /// in interleaved order. The corresponding FFmpeg calls are `av_packet_rescale_ts` and `av_write_frame`.
    public func write(_ packet: Packet, stream index: Int, timeBase: Rational) throws(FFmpegError) {
        packet.streamIndex = index
        packet.rescaleTimestamps(from: timeBase, to: self.timeBase(ofStream: index))
        try write(packet)
    }

    /// Flushes, writes the trailer and closes the file. The corresponding FFmpeg calls are `av_write_trailer` and `avio_closep`.
    public func finish() throws(FFmpegError) {
        precondition(headerWritten && !closed)
        closed = true
        let trailer = av_write_trailer(context)
        let ioError = context.pointee.pb.pointee.error
        let close = avio_closep(&context.pointee.pb)
        try check(trailer, "av_write_trailer")
        try check(ioError, "avio write")
        try check(close, "avio_closep")
    }

    /// Closes the file without a trailer after a failure; the caller removes it.
    public func abandon() {
        guard !closed else { return }
        closed = true
        avio_closep(&context.pointee.pb)
    }
}
