internal import CFFmpeg

/// One compressed packet. Owns its `AVPacket`; `deinit` frees it.
public final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    /// The corresponding FFmpeg call is `av_packet_alloc`.
    public init() {
        guard let p = av_packet_alloc() else { fatalError("av_packet_alloc: out of memory") }
        pointer = p
    }

    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&p)
    }

    public var streamIndex: Int {
        get { Int(pointer.pointee.stream_index) }
        set { pointer.pointee.stream_index = Int32(newValue) }
    }
    public var pts: Int64? {
        get { pointer.pointee.pts == mw_nopts_value() ? nil : pointer.pointee.pts }
        set { pointer.pointee.pts = newValue ?? mw_nopts_value() }
    }
    public var dts: Int64? {
        get { pointer.pointee.dts == mw_nopts_value() ? nil : pointer.pointee.dts }
        set { pointer.pointee.dts = newValue ?? mw_nopts_value() }
    }
    public var duration: Int64 {
        get { pointer.pointee.duration }
        set { pointer.pointee.duration = newValue }
    }
    public var size: Int { Int(pointer.pointee.size) }
    public var isKeyframe: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }

    /// The corresponding FFmpeg call is `av_packet_unref`.
    public func unref() { av_packet_unref(pointer) }

    /// Moves this packet's data into a new packet, leaving this one blank for reuse.
    /// The corresponding FFmpeg call is `av_packet_move_ref`.
    public func take() -> Packet {
        let moved = Packet()
        av_packet_move_ref(moved.pointer, pointer)
        return moved
    }

    /// The corresponding FFmpeg call is `av_packet_rescale_ts`.
    func rescaleTimestamps(from source: Rational, to destination: Rational) {
        av_packet_rescale_ts(pointer, source.av, destination.av)
    }
}

