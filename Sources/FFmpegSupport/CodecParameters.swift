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
    /// Matroska's BlockAdditional (libvpx's alpha plane for VP9 with alpha), carried to the muxer; nil for most.
    public var blockAdditional: [UInt8]?

    public init(data: [UInt8], pts: Int64?, dts: Int64?, duration: Int64, isKeyframe: Bool, blockAdditional: [UInt8]? = nil) {
        self.data = data; self.pts = pts; self.dts = dts; self.duration = duration; self.isKeyframe = isKeyframe
        self.blockAdditional = blockAdditional
    }
}

extension Packet {
    /// A Sendable copy of this packet's bytes and timing.
    public var encoded: EncodedPacket {
        let p = pointer.pointee
        let bytes = p.data.map { Array(UnsafeBufferPointer(start: $0, count: Int(p.size))) } ?? []
        var size = 0
        let additional = av_packet_get_side_data(pointer, AV_PKT_DATA_MATROSKA_BLOCKADDITIONAL, &size)
            .map { Array(UnsafeBufferPointer(start: $0, count: size)) }
        return EncodedPacket(data: bytes, pts: pts, dts: dts, duration: p.duration, isKeyframe: isKeyframe, blockAdditional: additional)
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
        if let extra = encoded.blockAdditional, let side = av_packet_new_side_data(pointer, AV_PKT_DATA_MATROSKA_BLOCKADDITIONAL, extra.count) {
            extra.withUnsafeBufferPointer { side.update(from: $0.baseAddress!, count: $0.count) }
        }
    }
}

/// A stream's codec parameters, owned: an `AVCodecParameters` with its extradata (FFmpeg's own copy of every field),
/// with the time base its packets come in and, for a copied stream, its display matrix. An encoder or a demuxer
/// makes one (`codecParameters`), a stage hands it to the writer, whose muxer copies it into the output's stream.
///
/// Sendable because it never changes once made: the `AVCodecParameters` is filled by the initializer and only
/// read after (by `avcodec_parameters_copy`), and nothing outside this file reaches the pointer. (`sending` does not
/// do here: the C call that fills it takes the encoder's context too, so the compiler counts the new object as
/// the encoder's.)
public final class CodecParameters: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<AVCodecParameters>
    /// The time base packets come in.
    public let timeBase: Rational
    /// A copied stream's display matrix (its rotation), carried over as it is.
    public let displayMatrix: [Int32]?
    /// Made by one of our encoders (its parameter sets all in the extradata), not copied from a file.
    let encoded: Bool

    /// A copy of `source`. The corresponding FFmpeg call is `avcodec_parameters_copy`.
    init(copying source: UnsafePointer<AVCodecParameters>, timeBase: Rational, displayMatrix: [Int32]? = nil,
         encoded: Bool = false) throws(FFmpegError) {
        guard let p = avcodec_parameters_alloc() else { throw FFmpegError(.noMemory, call: "avcodec_parameters_alloc") }
        pointer = p
        self.timeBase = timeBase
        self.displayMatrix = displayMatrix
        self.encoded = encoded
        try check(avcodec_parameters_copy(p, source), "avcodec_parameters_copy")
    }

    /// An encoder's. The corresponding FFmpeg call is `avcodec_parameters_from_context`.
    init(encoder context: UnsafePointer<AVCodecContext>) throws(FFmpegError) {
        guard let p = avcodec_parameters_alloc() else { throw FFmpegError(.noMemory, call: "avcodec_parameters_alloc") }
        pointer = p
        timeBase = Rational(context.pointee.time_base)
        displayMatrix = nil
        encoded = true
        try check(avcodec_parameters_from_context(p, context), "avcodec_parameters_from_context")
    }

    deinit {
        var p: UnsafeMutablePointer<AVCodecParameters>? = pointer
        avcodec_parameters_free(&p)
    }

    /// The codec's name, for messages.
    public var codecName: String { avcodec_get_name(pointer.pointee.codec_id).map { String(cString: $0) } ?? "unknown" }
    public var extradata: [UInt8] {
        pointer.pointee.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(pointer.pointee.extradata_size))) } ?? []
    }

    /// Pictures a decoder holds before it shows the first (B-frame reordering), as the stream says.
    public var videoDelay: Int { Int(pointer.pointee.video_delay) }

    /// A copy with `bytes` as its extradata (smart rendering's record of two encoders' parameter sets). The
    /// corresponding FFmpeg calls are `avcodec_parameters_copy` and `av_mallocz`.
    public func replacingExtradata(_ bytes: [UInt8]) throws(FFmpegError) -> CodecParameters {
        let copy = try CodecParameters(copying: pointer, timeBase: timeBase, displayMatrix: displayMatrix, encoded: encoded)
        guard let data = av_mallocz(bytes.count + Int(AV_INPUT_BUFFER_PADDING_SIZE))?.assumingMemoryBound(to: UInt8.self) else {
            throw FFmpegError(.noMemory, call: "av_mallocz")
        }
        bytes.withUnsafeBufferPointer { data.update(from: $0.baseAddress!, count: bytes.count) }
        av_free(copy.pointer.pointee.extradata)
        copy.pointer.pointee.extradata = data
        copy.pointer.pointee.extradata_size = Int32(bytes.count)
        return copy
    }

    /// A copy for a stream that carries its parameter sets in-band as well (a smart HEVC track: each GOP led by its
    /// own stream's sets), which MOV and MP4 then tag `hev1` (whose record need not hold every set), not `hvc1`.
    public func inBand() throws(FFmpegError) -> CodecParameters {
        try CodecParameters(copying: pointer, timeBase: timeBase, displayMatrix: displayMatrix, encoded: false)
    }

    /// Fills an output stream's `codecpar` with a copy, its codec tag left to the output's muxer (a tag means
    /// something only in the container it came from).
    func copy(into p: UnsafeMutablePointer<AVCodecParameters>) throws(FFmpegError) {
        try check(avcodec_parameters_copy(p, pointer), "avcodec_parameters_copy")
        p.pointee.codec_tag = 0
    }
}

extension Encoder {
    /// The encoded stream's parameters.
    public func codecParameters() throws(FFmpegError) -> CodecParameters {
        try CodecParameters(encoder: context)
    }
}

extension Demuxer {
    /// A stream's parameters, to copy the stream into an output untouched. `ours`: a stream one of our encoders
    /// wrote (a part of `mixwrite join`), which goes into the output tagged as an encoded one is.
    public func codecParameters(_ index: Int, ours: Bool = false) throws(FFmpegError) -> CodecParameters {
        let st = stream(index)
        let matrix = mw_stream_display_matrix(st).map { Array(UnsafeBufferPointer(start: $0, count: 9)) }
        return try CodecParameters(copying: st.pointee.codecpar, timeBase: Rational(st.pointee.time_base), displayMatrix: matrix,
                                   encoded: ours)
    }
}
