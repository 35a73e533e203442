import FFmpegSupport
import Foundation

/// The video stream of a job: H.264 (libx264), or with `hdr` HEVC Main 10 (libx265, `--hdr keep`, with the source's
/// light metadata): pictures of the output's size in, encoded packets out.
final class H264Encoder {
    private let encoder: Encoder
    /// The stream as the muxer sees it.
    let parameters: CodecParameters

    init(_ settings: Encoder.VideoSettings, hdr: HDRTransfer? = nil, light: LightMetadata? = nil) throws(MixWriteError) {
        do {
            if let hdr {
                encoder = try Encoder(hevc10: H264Encoder.memoryBounded(settings), transfer: hdr, light: light)
            } else {
                encoder = try Encoder(video: H264Encoder.memoryBounded(settings))
            }
            parameters = try encoder.codecParameters()
        } catch {
            throw .processing(file: nil, "cannot open the \(hdr == nil ? "H.264" : "HEVC") encoder (\(error.message.lowercased()))")
        }
    }

    /// Where a 1080p blend's memory goes is mostly x264 (`Benchmarks/RESULTS.md`): each frame thread holds its
    /// pictures, and the lookahead holds frames to come. So, unless asked otherwise: one thread a core (x264's own
    /// choice is 1.5 a core), and with the default preset a lookahead of `lookahead` frames (veryfast's is 10).
    /// The 1080p blend went from 394 to 303 MB with the decoders' threads, as fast, at the same rate and quality.
    static func memoryBounded(_ settings: Encoder.VideoSettings) -> Encoder.VideoSettings {
        var s = settings
        if s.threads == 0 { s.threads = ProcessInfo.processInfo.activeProcessorCount }
        if s.preset == "veryfast" && s.lookahead == nil { s.lookahead = lookahead }
        return s
    }

    /// x264's lookahead with the default preset, in frames.
    static let lookahead = 5

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
