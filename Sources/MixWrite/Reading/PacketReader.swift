import FFmpegSupport

/// One stream's packets as they are, never decoded (`remix` copies its video so), on the output's timeline: the
/// file's own start taken off every timestamp, and a packet without one given its neighbour's. A read error is
/// where a damaged file ends, counted.
final class PacketReader {
    let file: MediaFile
    let stream: StreamInfo
    /// The stream's parameters, for the output's track.
    let parameters: CodecParameters
    private(set) var damaged = 0
    private let demuxer: Demuxer
    private let packet = Packet()
    private let origin: Int64
    private var nextDTS: Int64 = 0
    private var ended = false

    init(file: MediaFile, stream: StreamInfo) throws(MixWriteError) {
        do { demuxer = try Demuxer(url: file.path) } catch {
            throw .input(file: file.path, MediaFile.explain(error))
        }
        demuxer.keepOnly([stream.index])
        (self.file, self.stream) = (file, stream)
        do { parameters = try demuxer.codecParameters(stream.index) } catch { throw .input(file: file.path, MediaFile.explain(error)) }
        origin = file.origin.ticks(in: stream.timeBase)
    }

    /// Packets read ahead: a Matroska file stores no decode times, and FFmpeg's demuxer can give one only from the
    /// `has_b_frames`-th packet of a stream with B-frames on; the ones before wait here for it.
    private var pending: [EncodedPacket] = []
    private var ready: [EncodedPacket] = []
    /// Packets without a decode time read ahead at most: past this the stream gives none at all, and presentation
    /// times stand for decode times (no reordering to follow).
    private static let lookahead = 16

    /// The next packet of the stream, or nil at its end.
    func next() -> EncodedPacket? {
        while ready.isEmpty && !ended {
            do {
                guard try demuxer.read(into: packet) else { ended = true; break }
            } catch {
                damaged += 1
                DamageLog.record(file.path, 1, at: MediaTime(ticks: nextDTS, timeBase: stream.timeBase))
                ended = true
                break
            }
            guard packet.streamIndex == stream.index else { continue }
            let encoded = packet.encoded
            if encoded.dts == nil && encoded.pts != nil && pending.count < Self.lookahead {
                pending.append(encoded)
                continue
            }
            // The packets that waited decode one after another, each a packet's length, up to this one (as the
            // ffmpeg CLI counts them back from the first decode time, a B-frame stream's first picture -2 frames).
            if let dts = encoded.dts {
                var t = dts
                for i in pending.indices.reversed() {
                    t -= max(pending[i].duration, 1)
                    pending[i].dts = t
                }
            }
            ready += pending.map(place) + [place(encoded)]
            pending.removeAll()
        }
        if ended && !pending.isEmpty {
            ready += pending.map(place)
            pending.removeAll()
        }
        return ready.isEmpty ? nil : ready.removeFirst()
    }

    /// A packet on the output's timeline, given what it lacks. Some containers (MXF) give only decode times; without
    /// reordering, presentation time is the same, and a packet with neither follows the one before it.
    private func place(_ p: EncodedPacket) -> EncodedPacket {
        var encoded = p
        if encoded.dts == nil { encoded.dts = encoded.pts ?? (nextDTS + origin) }
        if encoded.pts == nil { encoded.pts = encoded.dts }
        encoded.pts = encoded.pts.map { $0 - origin }
        encoded.dts = encoded.dts.map { $0 - origin }
        nextDTS = (encoded.dts ?? nextDTS) + max(encoded.duration, 1)
        return encoded
    }
}
