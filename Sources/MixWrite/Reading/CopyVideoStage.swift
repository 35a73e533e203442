import FFmpegSupport

/// `remix`'s video: the movie's video packets copied into the output as they are, never decoded.
struct CopyVideoStage: Sendable {
    struct Plan: Sendable {
        var file: MediaFile
        var stream: StreamInfo
    }

    let plan: Plan
    let slot: Int

    func run(writer: AssetWriter) async throws -> Int {
        let p = plan
        let demuxer: Demuxer
        do { demuxer = try Demuxer(url: p.file.path) } catch {
            throw MixWriteError.input(file: p.file.path, MediaFile.explain(error))
        }
        demuxer.keepOnly([p.stream.index])
        try await writer.addTrack(slot, parameters: demuxer.streamParameters(p.stream.index))
        // The output starts at 0: the file's own start is taken off every timestamp.
        let origin = p.file.origin.ticks(in: p.stream.timeBase)
        let packet = Packet()
        var damaged = 0
        var nextDTS: Int64 = 0
        var copied = 0
        while true {
            try Task.checkCancellation()
            let more: Bool
            do { more = try demuxer.read(into: packet) } catch { damaged += 1; break }
            if !more { break }
            guard packet.streamIndex == p.stream.index else { continue }
            var encoded = packet.encoded
            // Some containers (MXF) give only decode times; without reordering, presentation time is the same,
            // and a packet with neither follows the one before it.
            if encoded.dts == nil { encoded.dts = encoded.pts.map { $0 } ?? (nextDTS + origin) }
            if encoded.pts == nil { encoded.pts = encoded.dts }
            encoded.pts = encoded.pts.map { $0 - origin }
            encoded.dts = encoded.dts.map { $0 - origin }
            nextDTS = (encoded.dts ?? nextDTS) + max(encoded.duration, 1)
            try await writer.append(encoded, to: slot)
            copied += 1
        }
        guard copied > 0 else {
            throw MixWriteError.input(file: p.file.path, "video stream #\(p.stream.index) has no packets to copy (damaged index?)")
        }
        try await writer.finishTrack(slot)
        return damaged
    }
}
