internal import CFFmpeg

/// An avfilter graph with named buffer sources and one buffer sink. Owns its `AVFilterGraph`.
public final class FilterGraph {
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private var sources: [UnsafeMutablePointer<AVFilterContext>] = []
    private var sink: UnsafeMutablePointer<AVFilterContext>?
    private var sinkFrameSize: Int?

    /// The corresponding FFmpeg call is `avfilter_graph_alloc`.
    public init(threads: Int = 1) {
        graph = avfilter_graph_alloc()
        precondition(graph != nil, "avfilter_graph_alloc: out of memory")
        graph!.pointee.nb_threads = Int32(threads)
    }

    deinit { avfilter_graph_free(&graph) }

    /// Adds an `abuffer` source for frames of this format; returns its index.
    /// The corresponding FFmpeg call is `avfilter_graph_create_filter`.
    @discardableResult
    public func addAudioSource(matching decoder: Decoder) throws(FFmpegError) -> Int {
        let c = decoder.context.pointee
        return try addAudioSource(sampleRate: Int(c.sample_rate), sampleFormat: c.sample_fmt,
                                  channels: Int(c.ch_layout.nb_channels), layout: c.ch_layout,
                                  timeBase: Rational(1, c.sample_rate))
    }

    /// Adds an `abuffer` source for frames like `frame` (its actual format, which may differ from the stream's header).
    @discardableResult
    public func addAudioSource(matching frame: Frame) throws(FFmpegError) -> Int {
        let c = frame.pointer.pointee
        return try addAudioSource(sampleRate: Int(c.sample_rate), sampleFormat: AVSampleFormat(rawValue: c.format),
                                  channels: Int(c.ch_layout.nb_channels), layout: c.ch_layout,
                                  timeBase: Rational(1, c.sample_rate))
    }

    /// Adds an `abuffer` source of planar float samples, for a track that will send no frames.
    @discardableResult
    public func addSilentAudioSource(sampleRate: Int, channels: Int) throws(FFmpegError) -> Int {
        try addAudioSource(sampleRate: sampleRate, sampleFormat: AV_SAMPLE_FMT_FLTP, channels: channels, layout: nil,
                           timeBase: Rational(1, Int32(sampleRate)))
    }

    func addAudioSource(sampleRate: Int, sampleFormat: AVSampleFormat, channels: Int, layout: AVChannelLayout?,
                        timeBase: Rational) throws(FFmpegError) -> Int {
        var described = "mono"
        var l = AVChannelLayout()
        if let layout, layout.order != AV_CHANNEL_ORDER_UNSPEC, layout.nb_channels == Int32(channels) {
            var copy = layout
            _ = av_channel_layout_copy(&l, &copy)
        } else {
            // An unspecified order ("6 channels") is read as the usual layout of that many channels.
            ChannelLayout.set(&l, channels: channels)
        }
        defer { av_channel_layout_uninit(&l) }
        var buffer = [CChar](repeating: 0, count: 256)
        if av_channel_layout_describe(&l, &buffer, buffer.count) >= 0 { described = string(fromCString: buffer) }
        let format = String(cString: av_get_sample_fmt_name(sampleFormat))
        let args = "time_base=\(timeBase.num)/\(timeBase.den):sample_rate=\(sampleRate):sample_fmt=\(format):channel_layout=\(described)"
        let ctx = try create("abuffer", name: "in\(sources.count)", args: args)
        sources.append(ctx)
        return sources.count - 1
    }

    /// Adds a `buffer` source for pictures of this size and format (their colour tags travel with each frame);
    /// returns its index. The corresponding FFmpeg call is `avfilter_graph_create_filter`.
    @discardableResult
    public func addVideoSource(width: Int, height: Int, pixelFormat: PixelFormat, timeBase: Rational = Rational(1, 1)) throws(FFmpegError) -> Int {
        let args = "video_size=\(width)x\(height):pix_fmt=\(pixelFormat.rawValue):time_base=\(timeBase.num)/\(timeBase.den):pixel_aspect=1/1"
        let ctx = try create("buffer", name: "in\(sources.count)", args: args)
        sources.append(ctx)
        return sources.count - 1
    }

    /// Adds the `buffersink` for pictures.
    public func addVideoSink() throws(FFmpegError) {
        sink = try create("buffersink", name: "out", args: nil)
    }

    /// Adds the `abuffersink`, which hands out frames of exactly `frameSize` samples (an encoder's frame size).
    public func addAudioSink(frameSize: Int?) throws(FFmpegError) {
        sink = try create("abuffersink", name: "out", args: nil)
        sinkFrameSize = frameSize
    }

    private func create(_ filterName: String, name: String, args: String?) throws(FFmpegError) -> UnsafeMutablePointer<AVFilterContext> {
        guard let filter = avfilter_get_by_name(filterName) else {
            throw FFmpegError(.invalidArgument, call: "avfilter_get_by_name(\(filterName))")
        }
        var ctx: UnsafeMutablePointer<AVFilterContext>? = nil
        try check(avfilter_graph_create_filter(&ctx, filter, name, args, nil, graph), "avfilter_graph_create_filter(\(filterName))")
        return ctx!
    }

    /// Links the sources (`[in0]`, `[in1]`, …) to the sink (`[out]`) through `description`, then configures the graph.
    /// The corresponding FFmpeg calls are `avfilter_graph_parse_ptr` and `avfilter_graph_config`.
    public func configure(_ description: String) throws(FFmpegError) {
        guard let sink else { throw FFmpegError(.invalidArgument, call: "FilterGraph.configure: no sink") }
        // The open ends of the description: its inputs are our sources' outputs and the other way round.
        var outputs: UnsafeMutablePointer<AVFilterInOut>? = nil
        for (i, src) in sources.enumerated().reversed() {
            guard let io = avfilter_inout_alloc() else { throw FFmpegError(.noMemory, call: "avfilter_inout_alloc") }
            io.pointee.name = av_strdup("in\(i)")
            io.pointee.filter_ctx = src
            io.pointee.pad_idx = 0
            io.pointee.next = outputs
            outputs = io
        }
        var inputs = avfilter_inout_alloc()
        inputs?.pointee.name = av_strdup("out")
        inputs?.pointee.filter_ctx = sink
        inputs?.pointee.pad_idx = 0
        inputs?.pointee.next = nil
        defer {
            avfilter_inout_free(&inputs)
            avfilter_inout_free(&outputs)
        }
        try check(avfilter_graph_parse_ptr(graph, description, &inputs, &outputs, nil), "avfilter_graph_parse_ptr")
        try check(avfilter_graph_config(graph, nil), "avfilter_graph_config")
        // The sink's input link exists only once the graph is configured.
        if let sinkFrameSize { av_buffersink_set_frame_size(sink, UInt32(sinkFrameSize)) }
    }

    /// Hands a frame to source `index`; the graph takes its data and leaves `frame` blank (`keep`: the graph takes
    /// a new reference to it, and `frame` stays as it was). False when the graph takes nothing more from that source:
    /// the filters behind it have all they need (an `atrim` past its end). FFmpeg 7.1 and 9.0 say so with `AVERROR_EOF`;
    /// 5.1 took such a frame and dropped it. The corresponding FFmpeg call is `av_buffersrc_add_frame_flags`.
    @discardableResult
    public func push(_ frame: Frame, to index: Int, keep: Bool = false) throws(FFmpegError) -> Bool {
        let flags = keep ? Int32(AV_BUFFERSRC_FLAG_KEEP_REF) : 0
        let r = av_buffersrc_add_frame_flags(sources[index], frame.pointer, flags)
        if r == FFmpegError.Code.endOfFile.rawValue { return false }
        try check(r, "av_buffersrc_add_frame")
        return true
    }

    /// Marks source `index` finished (a source the graph has finished already is left so). The corresponding FFmpeg
    /// call is `av_buffersrc_add_frame` with NULL.
    public func close(_ index: Int) throws(FFmpegError) {
        let r = av_buffersrc_add_frame_flags(sources[index], nil, 0)
        if r == FFmpegError.Code.endOfFile.rawValue { return }
        try check(r, "av_buffersrc_add_frame(NULL)")
    }

    /// Takes the next frame from the sink. The corresponding FFmpeg call is `av_buffersink_get_frame`.
    public func pull(into frame: Frame) throws(FFmpegError) -> Receive<Void> {
        let r = av_buffersink_get_frame(sink, frame.pointer)
        if r == FFmpegError.Code.tryAgain.rawValue { return .needsInput }
        if r == FFmpegError.Code.endOfFile.rawValue { return .endOfStream }
        try check(r, "av_buffersink_get_frame")
        return .value(())
    }

    /// The sink's negotiated time base (valid after `configure`).
    public var sinkTimeBase: Rational { Rational(av_buffersink_get_time_base(sink)) }
}
