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

    /// The next packet of the stream, or nil at its end.
    func next() -> EncodedPacket? {
        while !ended {
            do {
                guard try demuxer.read(into: packet) else { ended = true; break }
            } catch {
                damaged += 1
                ended = true
                break
            }
            guard packet.streamIndex == stream.index else { continue }
            var encoded = packet.encoded
            // Some containers (MXF) give only decode times; without reordering, presentation time is the same,
            // and a packet with neither follows the one before it.
            if encoded.dts == nil { encoded.dts = encoded.pts ?? (nextDTS + origin) }
            if encoded.pts == nil { encoded.pts = encoded.dts }
            encoded.pts = encoded.pts.map { $0 - origin }
            encoded.dts = encoded.dts.map { $0 - origin }
            nextDTS = (encoded.dts ?? nextDTS) + max(encoded.duration, 1)
            return encoded
        }
        return nil
    }
}
