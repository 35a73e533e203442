import FFmpegSupport

/// The audio of every job: every source track mixed (AudioMixReader), AAC on both cores (SegmentedAAC),
/// to the writer.
struct AudioMixStage: Sendable {
    let plan: AudioMixPlan

    /// Runs to the end, then marks the track finished. Returns the count of damaged packets skipped.
    func run(into input: AssetWriterInput) async throws -> Int {
        let aac: SegmentedAAC
        do { aac = try SegmentedAAC(sampleRate: plan.sampleRate, channels: plan.channels, bitRate: plan.bitRate) } catch {
            throw MixWriteError.processing(file: nil, "cannot open the AAC encoder (\(error.message.lowercased()))")
        }
        try await input.start(aac.parameters)
        let reader = try AudioMixReader(plan: plan, blockSize: SegmentedAAC.frameSize)
        try await aac.encode(reader.next, deliver: input.append)
        try await input.finish()
        return reader.damagedPackets
    }
}
