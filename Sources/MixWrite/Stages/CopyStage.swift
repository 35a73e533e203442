import FFmpegSupport

/// `remix`'s video: the movie's video packets copied into the output as they are, never decoded.
struct CopyStage: Sendable {
    struct Plan: Sendable {
        var file: MediaFile
        var stream: StreamInfo
    }

    let plan: Plan

    func run(into input: AssetWriterInput) async throws -> Int {
        let p = plan
        let demuxer: Demuxer
        do { demuxer = try Demuxer(url: p.file.path) } catch {
            throw MixWriteError.input(file: p.file.path, MediaFile.explain(error))
        }
        demuxer.keepOnly([p.stream.index])
        try await input.start(demuxer.streamParameters(p.stream.index))
        // The output starts at 0: the file's own start is taken off every timestamp.
        let origin = p.file.origin.ticks(in: p.stream.timeBase)
        let packet = Packet()
        var damaged = 0
        var nextDTS: Int64 = 0
        var copied = 0
        while true {
            try Task.checkCancellation()
            do {
                guard try demuxer.read(into: packet) else { break }
            } catch {
                damaged += 1   // A read error is where a damaged file ends.
                break
            }
            guard packet.streamIndex == p.stream.index else { continue }
            var encoded = packet.encoded
            // Some containers (MXF) give only decode times; without reordering, presentation time is the same,
            // and a packet with neither follows the one before it.
            if encoded.dts == nil { encoded.dts = encoded.pts ?? (nextDTS + origin) }
            if encoded.pts == nil { encoded.pts = encoded.dts }
            encoded.pts = encoded.pts.map { $0 - origin }
            encoded.dts = encoded.dts.map { $0 - origin }
            nextDTS = (encoded.dts ?? nextDTS) + max(encoded.duration, 1)
            try await input.append(encoded)
            copied += 1
        }
        guard copied > 0 else {
            throw MixWriteError.input(file: p.file.path, "video stream #\(p.stream.index) has no packets to copy (damaged index?)")
        }
        try await input.finish()
        return damaged
    }
}
