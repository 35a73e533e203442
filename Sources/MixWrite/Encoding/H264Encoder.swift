import FFmpegSupport

/// The H.264 stream of a job (libx264): pictures of the output's size in, encoded packets out.
final class H264Encoder {
    private let encoder: Encoder
    /// The stream as the muxer sees it.
    let parameters: StreamParameters

    init(_ settings: Encoder.VideoSettings) throws(MixWriteError) {
        do {
            encoder = try Encoder(video: settings)
            parameters = try encoder.streamParameters()
        } catch {
            throw .processing(file: nil, "cannot open the H.264 encoder (\(error.message.lowercased()))")
        }
    }

    /// Encodes one yuv420p picture shown from `pts` (in the encoder's time base) and returns the packets
    /// that are ready; the picture may be reused as soon as this returns.
    func encode(_ picture: Frame, pts: Int64) throws(MixWriteError) -> [EncodedPacket] {
        picture.pts = pts
        do { return try encoder.encode(picture) } catch { throw .processing(file: nil, "H.264 encoding: \(error.description)") }
    }

    /// Every packet still inside the encoder, at the end of the stream.
    func finish() throws(MixWriteError) -> [EncodedPacket] {
        do { return try encoder.drain() } catch { throw .processing(file: nil, "H.264 encoding: \(error.description)") }
    }
}
