import FFmpegSupport

/// The audio of every job: every source track mixed (AudioMixReader), AAC on both cores (SegmentedAAC),
/// to the writer. With the publishing options, measurement passes over the sound alone come first.
struct AudioMixStage: Sendable {
    let plan: AudioMixPlan
    /// A part's share of the whole movie's AAC stream (`--parts`); the plan's window is then the share's.
    var share: PartShare? = nil
    /// The publishing passes' results when they ran before (the mix with `--stems`, whose stems share its gains);
    /// nil: this stage runs them.
    var published: (report: LoudnessReport?, warnings: [String])? = nil

    /// Runs to the end, then marks the track finished.
    func run(into input: AssetWriterInput) async throws -> StageOutcome {
        guard plan.codec == .aac else { return try await runOneEncoder(into: input) }
        let aac: SegmentedAAC
        do { aac = try SegmentedAAC(sampleRate: plan.sampleRate, channels: plan.channels, bitRate: plan.bitRate) } catch {
            throw MixWriteError.processing(file: nil, "cannot open the AAC encoder (\(error.message.lowercased()))")
        }
        try await input.start(aac.parameters)
        let published = try publishedPlan()
        let reader = try AudioMix.reader(plan: published.plan, blockSize: SegmentedAAC.frameSize)
        if let share {
            try await aac.encode(reader.next, share: share) { try await input.append(share.local($0)) }
        } else {
            try await aac.encode(reader.next, deliver: input.append)
        }
        try await input.finish()
        return StageOutcome(damaged: reader.damagedPackets, loudness: published.report, warnings: published.warnings)
    }

    /// The plan after the publishing passes: run here, or before (`published`).
    private func publishedPlan() throws(MixWriteError) -> (plan: AudioMixPlan, report: LoudnessReport?, warnings: [String]) {
        if let published { return (plan, published.report, published.warnings) }
        return try AudioMixStage.publish(plan)
    }

    /// Opus, FLAC or PCM: one encoder over the whole mix (each is far cheaper than AAC's; Opus's own frames of 20 ms,
    /// FLAC's of 4608 samples, PCM's of 1024), the samples interleaved as it takes them.
    private func runOneEncoder(into input: AssetWriterInput) async throws -> StageOutcome {
        let encoder: Encoder
        do {
            encoder = try Encoder(audio: plan.codec, sampleRate: plan.sampleRate, channels: plan.channels, bitRate: plan.bitRate,
                                  globalHeader: true)
        } catch {
            throw MixWriteError.processing(file: nil, "cannot open the \(plan.codec.rawValue) encoder (\(error.message.lowercased()))")
        }
        try await input.start(try encoder.codecParameters())
        let published = try publishedPlan()
        let block = encoder.frameSize > 0 ? encoder.frameSize : 1024
        let reader = try AudioMix.reader(plan: published.plan, blockSize: block)
        let format = encoder.sampleFormatName
        var sample: Int64 = 0
        func failed(_ error: FFmpegError) -> MixWriteError {
            .processing(file: nil, "\(plan.codec.rawValue) encoding: \(error.description)")
        }
        while let samples = try reader.next() {
            try Task.checkCancellation()
            let count = samples.first?.count ?? 0
            guard count > 0 else { continue }
            do {
                let frame = try Frame(interleaving: samples, offset: 0, count: count, sampleRate: plan.sampleRate, format: format)
                frame.pts = sample
                sample += Int64(count)
                for packet in try encoder.encode(frame) { try await input.append(packet) }
            } catch let e as FFmpegError { throw failed(e) }
        }
        do { for packet in try encoder.drain() { try await input.append(packet) } } catch let e as FFmpegError { throw failed(e) }
        try await input.finish()
        return StageOutcome(damaged: reader.damagedPackets, loudness: published.report, warnings: published.warnings)
    }

    /// Level matching and the loudness gain, from passes that decode and mix sound only: each track alone
    /// (its own loudness), then the mix (its loudness before the gain); a second pass through the true-peak
    /// limiter when it will take something off, so that the target holds after it.
    static func publish(_ plan: AudioMixPlan) throws(MixWriteError)
        -> (plan: AudioMixPlan, report: LoudnessReport?, warnings: [String]) {
        guard plan.publishing.isActive else { return (plan, nil, []) }
        // Measured on the whole mix, so that an excerpt or a part gets the gains the whole movie gets.
        var whole = plan
        (whole.window, whole.measurements) = (nil, nil)
        var published: MeasurementCache.Published
        if let cache = plan.measurements { published = try cache.published(whole, measured) } else { published = try measured(whole) }
        published.plan.window = plan.window
        return published
    }

    private static func measured(_ plan: AudioMixPlan) throws(MixWriteError)
        -> (plan: AudioMixPlan, report: LoudnessReport?, warnings: [String]) {
        var p = plan
        var warnings: [String] = []
        var figures: [String: Loudness] = [:]
        var levels: [Double?] = []
        for s in p.sources {
            let l = try LoudnessMeter.measure(source: s, of: p)
            if let l { figures[s.name] = l }
            levels.append(l.flatMap { $0.isSilent ? nil : $0.integrated })
        }
        if p.publishing.levelMatch, let loudest = levels.compactMap({ $0 }).max() {
            for i in p.sources.indices {
                guard let level = levels[i] else {
                    warnings.append("\(p.sources[i].name) is silent (or shorter than 0.4 s): not level-matched")
                    continue
                }
                p.sources[i].matchGainDB = min(loudest - level, AudioMixPlan.maxMatchGainDB)
                p.sources[i].route += String(format: "; level-matched %+.1f dB", p.sources[i].matchGainDB)
            }
        }
        for (i, depth) in p.publishing.duck {
            p.sources[i].route += "; ducked \(depth) dB while the others play"
        }
        var report = LoudnessReport(target: p.publishing.loudness, truePeakCeiling: p.publishing.loudness.map { _ in p.publishing.truePeak },
                                    gainDB: 0, sources: figures)
        guard let target = p.publishing.loudness else { return (p, report, warnings) }
        var unlimited = p
        unlimited.limit = false
        let mix = try LoudnessMeter.measure(unlimited)
        report.mix = mix
        guard let mix, !mix.isSilent else {
            warnings.append("the mix is silent (or shorter than 0.4 s): no loudness gain applied")
            return (p, report, warnings)
        }
        p.outputGainDB = min(target - mix.integrated, AudioMixPlan.maxLoudnessGainDB)
        if mix.truePeak + p.outputGainDB > p.publishing.truePeak - AudioMixPlan.truePeakMarginDB {
            // The limiter will take peaks off, and loudness with them, the more the louder: measure through it
            // and correct (secant steps on loudness against gain) until the target holds.
            var previous: (gain: Double, loudness: Double)? = nil
            for _ in 0..<AudioMixPlan.loudnessPasses {
                guard let limited = try LoudnessMeter.measure(p), !limited.isSilent else { break }
                let miss = target - limited.integrated
                if abs(miss) <= AudioMixPlan.loudnessTolerance { break }
                var slope = 1.0
                if let prev = previous, p.outputGainDB != prev.gain {
                    slope = min(max((limited.integrated - prev.loudness) / (p.outputGainDB - prev.gain), 0.1), 1)
                }
                previous = (p.outputGainDB, limited.integrated)
                p.outputGainDB = min(p.outputGainDB + miss / slope, AudioMixPlan.maxLoudnessGainDB)
            }
        }
        if target - mix.integrated > AudioMixPlan.maxLoudnessGainDB {
            warnings.append(String(format: "the mix is %.1f LUFS: raised by the most allowed, %.0f dB, short of %.1f LUFS",
                                   mix.integrated, AudioMixPlan.maxLoudnessGainDB, target))
        }
        report.gainDB = p.outputGainDB
        return (p, report, warnings)
    }
}
