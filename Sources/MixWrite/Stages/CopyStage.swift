import FFmpegSupport

/// `remix`'s video: the movie's video packets copied into the output as they are, never decoded.
struct CopyStage: VideoStage {
    struct Plan: Sendable {
        var file: MediaFile
        var stream: StreamInfo
    }

    let plan: Plan

    var written: WrittenVideo {
        WrittenVideo(width: plan.stream.width, height: plan.stream.height, frameRate: plan.stream.frameRate?.description ?? "",
                     frames: nil, matrix: nil, copied: true)
    }

    func run(into input: AssetWriterInput) async throws -> Int {
        let reader = try PacketReader(file: plan.file, stream: plan.stream)
        try await input.start(reader.parameters)
        var copied = 0
        while let packet = reader.next() {
            try Task.checkCancellation()
            try await input.append(packet)
            copied += 1
        }
        guard copied > 0 else {
            throw MixWriteError.input(file: plan.file.path, "video stream #\(plan.stream.index) has no packets to copy (damaged index?)")
        }
        try await input.finish()
        return reader.damaged
    }
}
