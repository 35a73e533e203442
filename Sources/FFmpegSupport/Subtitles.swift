internal import CFFmpeg

/// One subtitle of a text track, as FFmpeg's decoders give it: one or more ASS events shown from `start` to `end`.
public struct SubtitleCue: Sendable, Equatable {
    public var start: MediaTime
    public var end: MediaTime
    /// Each event's fields after its timing, as ASS's `Dialogue` line has them:
    /// `ReadOrder,Layer,Style,Name,MarginL,MarginR,MarginV,Effect,Text`.
    public var events: [String]

    public init(start: MediaTime, end: MediaTime, events: [String]) {
        (self.start, self.end, self.events) = (start, end, events)
    }
}

/// A subtitle track's contents: its cues decoded to ASS events (a text track), or its packets as they are (a picture
/// track: PGS, DVB, DVD), which only a container that holds the codec can carry.
public struct SubtitleTrackContents: Sendable {
    /// The ASS script header the decoder gives the events' styles in (`[Script Info]`, `[V4+ Styles]`).
    public var header: String
    public var cues: [SubtitleCue]
    /// A picture track's packets (their times in `timeBase`), with the parameters to copy the stream.
    public var packets: [EncodedPacket]
    public var timeBase: Rational
    public var parameters: CodecParameters?
    public var isPictures: Bool { parameters != nil }
}

extension Demuxer {
    /// Every cue of subtitle stream `index`: a text track's decoded to ASS events, its times the packets' (a cue
    /// without a length ends where the next starts); a picture track's packets as they are. `characterEncoding`:
    /// the text's, when it is not UTF-8 (the decoder's `sub_charenc`). The corresponding FFmpeg calls are
    /// `avcodec_open2` and `avcodec_decode_subtitle2`.
    public func subtitles(of index: Int, characterEncoding: String? = nil) throws(FFmpegError) -> SubtitleTrackContents {
        let st = stream(index)
        let tb = Rational(st.pointee.time_base)
        keepOnly([index])
        let props = avcodec_descriptor_get(st.pointee.codecpar.pointee.codec_id)?.pointee.props ?? 0
        if props & AV_CODEC_PROP_BITMAP_SUB != 0 {
            var packets: [EncodedPacket] = []
            let packet = Packet()
            while try read(into: packet) { if packet.streamIndex == index { packets.append(packet.encoded) } }
            return SubtitleTrackContents(header: "", cues: [], packets: packets, timeBase: tb,
                                         parameters: try codecParameters(index))
        }
        guard let codec = avcodec_find_decoder(st.pointee.codecpar.pointee.codec_id) else {
            throw FFmpegError(.decoderNotFound, call: "avcodec_find_decoder")
        }
        guard var ctx = avcodec_alloc_context3(codec) else { throw FFmpegError(.noMemory, call: "avcodec_alloc_context3") }
        var optional: UnsafeMutablePointer<AVCodecContext>? = ctx
        defer { avcodec_free_context(&optional) }
        try check(avcodec_parameters_to_context(ctx, st.pointee.codecpar), "avcodec_parameters_to_context")
        ctx.pointee.pkt_timebase = st.pointee.time_base
        var options: OpaquePointer? = nil
        defer { av_dict_free(&options) }
        if let characterEncoding { av_dict_set(&options, "sub_charenc", characterEncoding, 0) }
        try check(avcodec_open2(ctx, codec, &options), "avcodec_open2(subtitles)")
        let header = ctx.pointee.subtitle_header.map {
            String(decoding: UnsafeBufferPointer(start: $0, count: Int(ctx.pointee.subtitle_header_size)), as: UTF8.self)
        } ?? ""
        var cues: [SubtitleCue] = []
        let packet = Packet()
        while try read(into: packet) {
            guard packet.streamIndex == index, let pts = packet.pts else { continue }
            if let cue = try Self.decodeSubtitle(&ctx, packet: packet, at: MediaTime(ticks: pts, timeBase: tb),
                                                  length: packet.duration > 0 ? MediaTime(ticks: packet.duration, timeBase: tb) : nil) {
                cues.append(cue)
            }
        }
        // A cue whose length the file does not give lasts until the next.
        for i in cues.indices where cues[i].end <= cues[i].start {
            cues[i].end = i + 1 < cues.count ? cues[i + 1].start : cues[i].start + MediaTime(value: 5, timescale: Int64(1))
        }
        return SubtitleTrackContents(header: header, cues: cues, packets: [], timeBase: tb, parameters: nil)
    }

    private static func decodeSubtitle(_ ctx: inout UnsafeMutablePointer<AVCodecContext>, packet: Packet, at start: MediaTime,
                                       length: MediaTime?) throws(FFmpegError) -> SubtitleCue? {
        var sub = AVSubtitle()
        var got: Int32 = 0
        try check(avcodec_decode_subtitle2(ctx, &sub, &got, packet.pointer), "avcodec_decode_subtitle2")
        guard got != 0 else { return nil }
        defer { avsubtitle_free(&sub) }
        var events: [String] = []
        for i in 0..<Int(sub.num_rects) {
            guard let rect = sub.rects[i], let ass = rect.pointee.ass else { continue }
            events.append(String(cString: ass).trimmingSuffix("\r\n"))
        }
        guard !events.isEmpty else { return nil }
        let ms = Rational(1, 1000)
        let shown = start + MediaTime(ticks: Int64(sub.start_display_time), timeBase: ms)
        let end = length.map { start + $0 }
            ?? (sub.end_display_time > sub.start_display_time && sub.end_display_time != UInt32.max
                ? start + MediaTime(ticks: Int64(sub.end_display_time), timeBase: ms) : shown)
        return SubtitleCue(start: shown, end: end, events: events)
    }
}

extension String {
    fileprivate func trimmingSuffix(_ characters: String) -> String {
        var s = Substring(self)
        while let last = s.last, characters.contains(last) { s = s.dropLast() }
        return String(s)
    }
}

/// A text subtitle encoder (`mov_text`, `webvtt`, `subrip`, `ass`): ASS events in, a packet a cue out, its times in
/// milliseconds. Owns its `AVCodecContext`.
public final class SubtitleEncoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    public let codecName: String
    /// The time base of the packets it makes.
    public static let timeBase = Rational(1, 1000)

    /// Opens the encoder named `codec` with the tracks' ASS `header` (its styles). The corresponding FFmpeg calls are
    /// `avcodec_find_encoder_by_name` and `avcodec_open2`.
    public init(codec: String, header: String) throws(FFmpegError) {
        guard let encoder = avcodec_find_encoder_by_name(codec) else {
            throw FFmpegError(.encoderNotFound, call: "avcodec_find_encoder(\(codec))")
        }
        guard let ctx = avcodec_alloc_context3(encoder) else { throw FFmpegError(.noMemory, call: "avcodec_alloc_context3") }
        context = ctx
        codecName = codec
        ctx.pointee.time_base = Self.timeBase.av
        let bytes = Array(header.utf8)
        if !bytes.isEmpty, let h = av_mallocz(bytes.count + 1)?.assumingMemoryBound(to: UInt8.self) {
            bytes.withUnsafeBufferPointer { h.update(from: $0.baseAddress!, count: bytes.count) }
            ctx.pointee.subtitle_header = h
            ctx.pointee.subtitle_header_size = Int32(bytes.count)
        }
        try check(avcodec_open2(ctx, encoder, nil), "avcodec_open2(\(codec))")
    }

    deinit {
        var c: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&c)
    }

    /// The stream's parameters.
    public func codecParameters() throws(FFmpegError) -> CodecParameters { try CodecParameters(encoder: context) }

    /// `cue` as packets: one for every event in ASS (each its own block, as Matroska keeps them), one for the
    /// whole cue in the others. The corresponding FFmpeg call is `avcodec_encode_subtitle`.
    public func encode(_ cue: SubtitleCue) throws(FFmpegError) -> [EncodedPacket] {
        let groups = codecName == "ass" ? cue.events.map { [$0] } : [cue.events]
        let (pts, end) = (cue.start.ticks(in: Self.timeBase), cue.end.ticks(in: Self.timeBase))
        var out: [EncodedPacket] = []
        for events in groups {
            var sub = AVSubtitle()
            defer { avsubtitle_free(&sub) }
            guard let rects = av_mallocz(MemoryLayout<UnsafeMutablePointer<AVSubtitleRect>?>.stride * events.count)?
                .assumingMemoryBound(to: UnsafeMutablePointer<AVSubtitleRect>?.self) else { throw FFmpegError(.noMemory, call: "av_mallocz") }
            sub.rects = rects
            for event in events {
                guard let rect = av_mallocz(MemoryLayout<AVSubtitleRect>.size)?.assumingMemoryBound(to: AVSubtitleRect.self) else {
                    throw FFmpegError(.noMemory, call: "av_mallocz")
                }
                rect.pointee.type = SUBTITLE_ASS
                rect.pointee.ass = av_strdup(event)
                rects[Int(sub.num_rects)] = rect
                sub.num_rects += 1
            }
            sub.end_display_time = UInt32(clamping: end - pts)
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            let size = try check(avcodec_encode_subtitle(context, &buffer, Int32(buffer.count), &sub), "avcodec_encode_subtitle")
            out.append(EncodedPacket(data: Array(buffer.prefix(Int(size))), pts: pts, dts: pts, duration: end - pts, isKeyframe: true))
        }
        return out
    }
}
