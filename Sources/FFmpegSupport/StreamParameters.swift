internal import CFFmpeg

/// An encoded packet as plain values, so a stage can hand it to the writer's task without sharing a C
/// object. (An `AVPacket` cannot be proven disconnected once an FFmpeg call has touched it beside its
/// codec, so a packet crosses as a copy of its bytes: a few MB a second, nothing next to encoding.)
public struct EncodedPacket: Sendable {
    public var data: [UInt8]
    public var pts: Int64?
    public var dts: Int64?
    public var duration: Int64
    public var isKeyframe: Bool

    public init(data: [UInt8], pts: Int64?, dts: Int64?, duration: Int64, isKeyframe: Bool) {
        self.data = data; self.pts = pts; self.dts = dts; self.duration = duration; self.isKeyframe = isKeyframe
    }
}

extension Packet {
    /// A Sendable copy of this packet's bytes and timing.
    public var encoded: EncodedPacket {
        let p = pointer.pointee
        let bytes = p.data.map { Array(UnsafeBufferPointer(start: $0, count: Int(p.size))) } ?? []
        return EncodedPacket(data: bytes, pts: pts, dts: dts, duration: p.duration, isKeyframe: isKeyframe)
    }

    /// A packet holding a copy of `encoded`. The corresponding FFmpeg call is `av_new_packet`.
    public convenience init(_ encoded: EncodedPacket) throws(FFmpegError) {
        self.init()
        try check(av_new_packet(pointer, Int32(encoded.data.count)), "av_new_packet")
        if !encoded.data.isEmpty {
            encoded.data.withUnsafeBufferPointer { pointer.pointee.data.update(from: $0.baseAddress!, count: $0.count) }
        }
        pts = encoded.pts
        dts = encoded.dts
        pointer.pointee.duration = encoded.duration
        if encoded.isKeyframe { pointer.pointee.flags |= AV_PKT_FLAG_KEY }
    }
}

/// What a muxer needs to know of a stream, as plain values: every field of `AVCodecParameters` that a
/// mov, mp4 or Matroska muxer reads, with the codec's extradata copied.
public struct StreamParameters: Sendable {
    public var isVideo: Bool
    public var codecID: UInt32
    public var extradata: [UInt8]
    public var format: Int32
    public var bitRate: Int64
    public var bitsPerCodedSample: Int32
    public var bitsPerRawSample: Int32
    public var profile: Int32
    public var level: Int32
    public var width: Int32
    public var height: Int32
    public var sampleAspectRatio: Rational
    public var fieldOrder: UInt32
    public var colorRange: UInt32
    public var colorPrimaries: UInt32
    public var colorTransfer: UInt32
    public var colorSpace: UInt32
    public var chromaLocation: UInt32
    public var videoDelay: Int32
    public var channels: Int32
    public var channelMask: UInt64
    public var sampleRate: Int32
    public var blockAlign: Int32
    public var frameSize: Int32
    public var initialPadding: Int32
    public var trailingPadding: Int32
    public var seekPreroll: Int32
    /// The time base packets come in.
    public var timeBase: Rational
    /// A copied stream's display matrix (its rotation), carried over as it is.
    public var displayMatrix: [Int32]?
    /// The codec's name, for messages.
    public var codecName: String { avcodec_get_name(AVCodecID(rawValue: codecID)).map { String(cString: $0) } ?? "unknown" }

    init(_ p: AVCodecParameters, timeBase: Rational) {
        isVideo = p.codec_type == AVMEDIA_TYPE_VIDEO
        codecID = p.codec_id.rawValue
        extradata = p.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(p.extradata_size))) } ?? []
        format = p.format
        bitRate = p.bit_rate
        bitsPerCodedSample = p.bits_per_coded_sample
        bitsPerRawSample = p.bits_per_raw_sample
        profile = p.profile
        level = p.level
        width = p.width
        height = p.height
        sampleAspectRatio = Rational(p.sample_aspect_ratio)
        fieldOrder = p.field_order.rawValue
        colorRange = p.color_range.rawValue
        colorPrimaries = p.color_primaries.rawValue
        colorTransfer = p.color_trc.rawValue
        colorSpace = p.color_space.rawValue
        chromaLocation = p.chroma_location.rawValue
        videoDelay = p.video_delay
        channels = p.ch_layout.nb_channels
        channelMask = p.ch_layout.order == AV_CHANNEL_ORDER_NATIVE ? p.ch_layout.u.mask : 0
        sampleRate = p.sample_rate
        blockAlign = p.block_align
        frameSize = p.frame_size
        initialPadding = p.initial_padding
        trailingPadding = p.trailing_padding
        seekPreroll = p.seek_preroll
        self.timeBase = timeBase
    }

    /// Fills `p` (freshly allocated) with these values.
    func apply(to p: UnsafeMutablePointer<AVCodecParameters>) throws(FFmpegError) {
        p.pointee.codec_type = isVideo ? AVMEDIA_TYPE_VIDEO : AVMEDIA_TYPE_AUDIO
        p.pointee.codec_id = AVCodecID(rawValue: codecID)
        p.pointee.codec_tag = 0
        if !extradata.isEmpty {
            let size = extradata.count
            guard let buffer = av_mallocz(size + Int(AV_INPUT_BUFFER_PADDING_SIZE))?.assumingMemoryBound(to: UInt8.self) else {
                throw FFmpegError(.noMemory, call: "av_mallocz")
            }
            extradata.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress!, count: size) }
            p.pointee.extradata = buffer
            p.pointee.extradata_size = Int32(size)
        }
        p.pointee.format = format
        p.pointee.bit_rate = bitRate
        p.pointee.bits_per_coded_sample = bitsPerCodedSample
        p.pointee.bits_per_raw_sample = bitsPerRawSample
        p.pointee.profile = profile
        p.pointee.level = level
        p.pointee.width = width
        p.pointee.height = height
        p.pointee.sample_aspect_ratio = sampleAspectRatio.av
        p.pointee.field_order = AVFieldOrder(rawValue: fieldOrder)
        p.pointee.color_range = AVColorRange(rawValue: colorRange)
        p.pointee.color_primaries = AVColorPrimaries(rawValue: colorPrimaries)
        p.pointee.color_trc = AVColorTransferCharacteristic(rawValue: colorTransfer)
        p.pointee.color_space = AVColorSpace(rawValue: colorSpace)
        p.pointee.chroma_location = AVChromaLocation(rawValue: chromaLocation)
        p.pointee.video_delay = videoDelay
        if !isVideo {
            if channelMask != 0 {
                try check(av_channel_layout_from_mask(&p.pointee.ch_layout, channelMask), "av_channel_layout_from_mask")
            } else {
                av_channel_layout_default(&p.pointee.ch_layout, channels)
            }
        }
        p.pointee.sample_rate = sampleRate
        p.pointee.block_align = blockAlign
        p.pointee.frame_size = frameSize
        p.pointee.initial_padding = initialPadding
        p.pointee.trailing_padding = trailingPadding
        p.pointee.seek_preroll = seekPreroll
    }
}

extension Encoder {
    /// The encoded stream's parameters as plain values. The corresponding FFmpeg call is `avcodec_parameters_from_context`.
    public func streamParameters() throws(FFmpegError) -> StreamParameters {
        let p = CodecParameters()
        try check(avcodec_parameters_from_context(p.pointer, context), "avcodec_parameters_from_context")
        // The copy reads p's extradata: p must outlive it.
        return withExtendedLifetime(p) { StreamParameters(p.pointer.pointee, timeBase: timeBase) }
    }
}

extension Demuxer {
    /// A stream's parameters as plain values, to copy it into an output untouched.
    public func streamParameters(_ index: Int) -> StreamParameters {
        let st = stream(index)
        var p = StreamParameters(st.pointee.codecpar.pointee, timeBase: Rational(st.pointee.time_base))
        if let m = mw_stream_display_matrix(st) { p.displayMatrix = Array(UnsafeBufferPointer(start: m, count: 9)) }
        return p
    }
}
