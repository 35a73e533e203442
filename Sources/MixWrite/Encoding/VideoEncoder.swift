import FFmpegSupport
import Foundation

/// The video stream of a job: the settings' codec (H.264 by default; `Encoder(video:)` says how each is set), or with
/// `hdr` HEVC Main 10 (libx265, `--hdr keep`, with the source's light metadata): pictures of the output's size in,
/// encoded packets out. A codec that takes another picture format than the job's (ProRes: 10-bit 4:2:2 or 4:4:4)
/// gets each picture converted by swscale first.
final class VideoEncoder {
    private let encoder: Encoder
    private let name: String
    /// ProRes's pictures: the converter and the converted picture.
    private var conversion: (scaler: Scaler, picture: Frame)?
    private let settings: Encoder.VideoSettings
    /// The pictures the encoder takes (HDR's 10 bits with `hdr`).
    private let format: PixelFormat
    /// The stream as the muxer sees it.
    let parameters: CodecParameters

    init(_ settings: Encoder.VideoSettings, hdr: HDRTransfer? = nil, light: LightMetadata? = nil) throws(MixWriteError) {
        self.settings = settings
        format = hdr != nil ? .yuv420p10 : Encoder.pixelFormat(for: settings)
        name = hdr != nil ? "HEVC" : ["h264": "H.264", "hevc": "HEVC", "prores": "ProRes", "av1": "AV1", "vp9": "VP9"][settings.codec.rawValue]!
        do {
            if let hdr {
                encoder = try Encoder(hevc10: VideoEncoder.memoryBounded(settings), transfer: hdr, light: light)
            } else {
                encoder = try Encoder(video: VideoEncoder.memoryBounded(settings))
            }
            parameters = try encoder.codecParameters()
        } catch {
            throw .processing(file: nil, "cannot open the \(name) encoder (\(error.message.lowercased()))")
        }
    }

    /// Where a 1080p blend's memory goes is mostly x264 (`Benchmarks/RESULTS.md`): each frame thread holds its
    /// pictures, and the lookahead holds frames to come. So, unless asked otherwise: one thread a core (x264's own
    /// choice is 1.5 a core), and with the default preset a lookahead of `lookahead` frames (veryfast's is 10).
    /// The 1080p blend went from 394 to 303 MB with the decoders' threads, as fast, at the same rate and quality.
    /// The same bound for x265 and SVT-AV1 (their lookahead; VP9's lag-in-frames) with any codec's default preset.
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
        do {
            let input = try converted(picture)
            input.pts = pts
            return try encoder.encode(input)
        } catch { throw .processing(file: nil, "\(name) encoding: \(error.description)") }
    }

    /// `picture` in the encoder's format (itself when it is already).
    private func converted(_ picture: Frame) throws(FFmpegError) -> Frame {
        guard picture.pixelFormat != format else { return picture }
        if conversion == nil {
            let from = Scaler.Key(width: picture.width, height: picture.height, format: picture.pixelFormat, color: settings.color)
            var to = from
            to.format = format
            conversion = (try Scaler(from: from, to: to), try Frame(width: picture.width, height: picture.height, pixelFormat: format))
        }
        try conversion!.picture.makeWritable()
        try conversion!.scaler.scale(picture, into: conversion!.picture)
        return conversion!.picture
    }

    /// Every packet still inside the encoder, at the end of the stream.
    func finish() throws(MixWriteError) -> [EncodedPacket] {
        do { return try encoder.drain() } catch { throw .processing(file: nil, "\(name) encoding: \(error.description)") }
    }
}
