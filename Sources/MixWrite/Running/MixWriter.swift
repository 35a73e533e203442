import Foundation
import FFmpegSupport

#if canImport(Glibc)
import Glibc
#endif

/// Runs a job: a video stage and an audio stage, concurrently, into one `AssetWriter`; the file is
/// finalized only after both stages finish, and the first failure cancels the other stage.
public struct MixWriter: Sendable {
    public let job: any MixJob
    /// Loudness measurements to reuse and keep (see `MeasurementCache`); nil: measured for this job alone.
    let measurements: MeasurementCache?

    public init(_ job: any MixJob) {
        self.init(job, measurements: nil)
    }

    /// With measurements kept between jobs (a batch, the tuning page's auditions).
    @_spi(Tools) public init(_ job: any MixJob, measurements: MeasurementCache?) {
        self.job = job
        self.measurements = measurements
    }

    /// Removes the hidden temporary files a killed mixwrite left beside `output` (those whose process is gone on
    /// this machine), and its lock file if no one holds it. Every render does it for its own output; a long-lived
    /// caller (the tuning page) does it when it starts, so that a crash leaves nothing behind for long.
    public static func removeStaleTemporaryFiles(for output: String) {
        OutputFile.removeStale(folder: OutputFile.folder(of: output), prefix: OutputFile.temporaryPrefix(of: output))
        OutputClaim.removeStale(of: output)
    }

    /// Refuses a job whose output is one of its inputs (by path or by inode), as a render would, before a long-lived
    /// caller (the tuning page) accepts it: exit 3.
    @_spi(Tools) public static func refuseOutputAmongInputs(_ job: any MixJob) throws(MixWriteError) {
        if let input = job.inputPaths.first(where: { OutputFile.sameFile(job.output, $0) }) {
            throw .output(file: job.output, "is also an input (\(input)); choose another output")
        }
    }

    /// The FFmpeg libraries this process runs on: `FFmpeg 7.1.5-0+deb13u1 (libavformat 61.7.103, libavcodec …)`.
    public static var ffmpegLibraries: String { FFmpegLibraries.description }

    /// FFmpeg's own log lines: counted and summed up a line a file (the default), or each shown on stderr too (`-v`).
    public static func setLibraryLogging(_ on: Bool) {
        FFmpegLog.route(show: on)
    }

    /// `mixwrite join OUT`: writes OUT from the parts that `--parts N --part K` rendered into `OUT.parts/`, by
    /// copying their packets (nothing decoded), after checking that every part is there, complete, and of one job;
    /// then removes `OUT.parts/` unless `keepParts`. `overwrite` (or the job's own `-y`) replaces an existing OUT.
    public static func join(_ output: String, overwrite: Bool = false, keepParts: Bool = false) async throws(MixWriteError) -> Report {
        try await PartJoiner(output: output).join(overwrite: overwrite, keepParts: keepParts)
    }

    /// Runs the job to the end and reports what was written. Throws `MixWriteError`; on any failure or
    /// cancellation no output file and no temporary file are left.
    public func run(progress: (@Sendable (ProgressUpdate) -> Void)? = nil) async throws(MixWriteError) -> Report {
        let started = ContinuousClock.now
        let logged = FFmpegLog.count
        _ = ProbeLog.take()
        _ = ProbeLog.notes.takeAll()
        guard let job = job as? any PlannedJob else {
            throw .usage("\(type(of: job)) is not one of mixwrite's jobs (\(JobFile.kinds.map { $0.kind }.joined(separator: ", ")))")
        }
        var plan = try job.prepare()
        // A part's movie carries no tags (a timecode would add a track the join does not expect): its record does.
        if plan.part != nil { (plan.part!.record.metadata, plan.metadata) = (plan.metadata, [:]) }
        let logs = InputLogs(job: job, plan: plan)
        plan.audio?.measurements = measurements
        let reporter = progress.map { ProgressReporter(total: plan.duration, frameRate: plan.frameRate, handler: $0) }
        var kinds: [AssetWriter.TrackKind] = []
        if plan.video != nil { kinds.append(.video) }
        if let audio = plan.audio { kinds += Array(repeating: .audio, count: audio.stems ? 1 + audio.sources.count : 1) }
        kinds += Array(repeating: .subtitle, count: plan.subtitles.tracks.count)
        // MIXWRITE_WRITER_QUEUE shrinks the hand-over, so that tests make the stages wait on each other often.
        let queue = ProcessInfo.processInfo.environment["MIXWRITE_WRITER_QUEUE"].flatMap(Int.init).map { max(1, $0) }
            ?? AssetWriter.defaultQueueLimit
        let writer = try AssetWriter(output: plan.output, tracks: kinds, chapters: plan.chapters, queueLimit: queue,
                                     progress: reporter, stems: plan.audio.map { $0.stems ? $0.sources.map { ($0.stemTitle, $0.language) } : [] } ?? [],
                                     subtitles: plan.subtitles.tracks.map { ($0.language, $0.title) }, metadata: plan.metadata,
                                     frameRate: plan.frameRate ?? plan.video.flatMap { Rational(parsing: $0.written.frameRate) })

        let finished: FinishedOutput
        let totals: StageTotals
        do {
            totals = try await Self.runStages(plan, writer: writer)
            finished = try await writer.finish()
        } catch {
            await writer.abandon(error)
            if error is CancellationError || Task.isCancelled { throw .interrupted(signal: MixWriteError.sigint) }
            throw .processing(error, file: plan.output.path)
        }
        var loudness = totals.loudness, warnings = totals.warnings
        // The published loudness, read back from the encoded file, as a meter downstream would read it.
        if var l = loudness, let audio = plan.audio {
            l.output = try? LoudnessMeter.measure(file: plan.output.path, sampleRate: audio.sampleRate, channels: audio.channels)
            // An excerpt has its own loudness: the target is the whole movie's.
            if let target = l.target, let got = l.output?.integrated, !(l.mix?.isSilent ?? true), abs(got - target) > 0.5,
               audio.window == nil {
                warnings.append(String(format: "the output is %.1f LUFS, not %.1f: the true-peak ceiling or the gain limit held it", got, target))
            }
            loudness = l
        }
        reporter?.complete()
        var report = Report(plan, finished: finished, damaged: totals.damaged, seconds: (ContinuousClock.now - started).seconds,
                            stageSeconds: totals.stageSeconds)
        report.warnings += logs.warnings(damaged: totals.damaged) + warnings
        report.carried = Report.carried(subtitles: report.subtitles, chapters: plan.chapters.count, metadata: plan.metadata)
        report.audio?.loudness = loudness
        if plan.key != nil { report.kernelLevel = Int(KeyKernel.level) }
        report.compositing = plan.video?.compositing
        report.libraryWarnings = FFmpegLog.count - logged
        if let part = plan.part { try part.commit(report: report, finished: finished) }
        return report
    }

    /// What the logs keep of a job's inputs: FFmpeg's lines while they were probed, what planning read of a file that its
    /// header says otherwise, and, once it has run, each file's damaged packets and its tracks' timing corrections.
    private struct InputLogs {
        let paths: [String]
        /// The audio tracks' own files (a timeline's media, not the timeline).
        let audioPaths: [String]
        let probed: [(path: String, lines: Int)]
        let notes: [String]

        /// Taken once the job is planned: what planning read of the inputs (a layer's first picture, the key colour's
        /// frames) is not the render's.
        init(job: any PlannedJob, plan: PreparedJob) {
            paths = job.inputPaths + plan.media
            audioPaths = Array(Set(plan.audio?.sources.map(\.path) ?? [])).sorted()
            DamageLog.forget(paths)
            TimingLog.lines.forget(audioPaths)
            (probed, notes) = (ProbeLog.take(), ProbeLog.notes.takeAll())
        }

        /// The warnings once the job has run: each file's damaged packets with its name and where the first was (the
        /// report's count is the total), the notes, the timing corrections, FFmpeg's lines.
        func warnings(damaged: Int) -> [String] {
            let damage = DamageLog.take(paths)
            return (!damage.isEmpty ? damage : damaged > 0 ? ["\(damaged) damaged \(damaged == 1 ? "packet was" : "packets were") skipped"] : [])
                + notes + TimingLog.lines.take(audioPaths) + probed.map {
                    "\($0.path): \($0.lines) FFmpeg warning\($0.lines == 1 ? "" : "s") while probing; -v shows \($0.lines == 1 ? "it" : "them")"
                }
        }
    }

    /// What the stages did together.
    private struct StageTotals {
        var damaged = 0
        var stageSeconds: [String: Double] = [:]
        var loudness: LoudnessReport?
        var warnings: [String] = []
    }

    /// The video stage and the audio stage as two children of one task group: each hands back its own account;
    /// nothing is shared between them but the writer. The first failure cancels the other.
    private static func runStages(_ plan: PreparedJob, writer: AssetWriter) async throws -> StageTotals {
        try await withThrowingTaskGroup(of: StageResult.self) { group in
            if let video = plan.video, let input = writer.input(.video) {
                group.addTask {
                    try await MixWriter.stage(writer, name: "video") { .init(damaged: try await video.run(into: input)) }
                }
            }
            if let audio = plan.audio, audio.stems {
                // The mix and each stem, side by side (the writer interleaves them); the publishing passes once,
                // so that the stems carry the mix's level-matching.
                let published = try AudioMixStage.publish(audio)
                let inputs = writer.inputs.filter { $0.kind == .audio }
                let share = plan.part?.share
                let stages = [AudioMixStage(plan: published.plan, share: share, published: (published.report, published.warnings))]
                    + audio.sources.indices.map { AudioMixStage(plan: published.plan.stem($0), share: share, published: (nil, [])) }
                for (n, (stage, input)) in zip(stages, inputs).enumerated() {
                    group.addTask {
                        try await MixWriter.stage(writer, name: n == 0 ? "audio" : "stem \(audio.sources[n - 1].name)") {
                            try await stage.run(into: input)
                        }
                    }
                }
            } else if let audio = plan.audio, let input = writer.input(.audio) {
                group.addTask {
                    try await MixWriter.stage(writer, name: "audio") {
                        try await AudioMixStage(plan: audio, share: plan.part?.share).run(into: input)
                    }
                }
            }
            for (track, input) in zip(plan.subtitles.tracks, writer.inputs.filter { $0.kind == .subtitle }) {
                group.addTask {
                    try await MixWriter.stage(writer, name: "subtitles \(track.source)") { try await SubtitleStage(track: track).run(into: input) }
                }
            }
            var totals = StageTotals()
            for try await result in group {
                totals.damaged += result.outcome.damaged
                totals.stageSeconds[result.name] = result.seconds
                totals.loudness = totals.loudness ?? result.outcome.loudness
                totals.warnings += result.outcome.warnings
            }
            return totals
        }
    }

    /// What one stage did, and wall seconds from its start to its last packet.
    private struct StageResult: Sendable {
        let name: String
        let outcome: StageOutcome
        let seconds: Double
    }

    /// Runs one stage; its failure stops the writer at once, so the other stage never waits on it.
    private static func stage(_ writer: AssetWriter, name: String,
                              _ body: () async throws -> StageOutcome) async throws -> StageResult {
        let started = ContinuousClock.now
        do {
            let outcome = try await body()
            return StageResult(name: name, outcome: outcome, seconds: (ContinuousClock.now - started).seconds)
        } catch {
            await writer.abandon(error)
            throw error
        }
    }
}

/// The process's peak resident memory so far, in MB.
func peakMemoryMB() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

extension Report {
    /// What a finished job wrote, from its plan and the writer's account.
    init(_ plan: PreparedJob, finished: FinishedOutput, damaged: Int, seconds: Double, stageSeconds: [String: Double]) {
        self.init(
            output: plan.output.path, duration: plan.duration.seconds, bytes: finished.bytes,
            video: plan.video.map { stage in
                let w = stage.written
                return Report.Video(width: w.width, height: w.height, frameRate: w.frameRate, frames: w.frames, copied: w.copied,
                                    matrix: w.matrix, conversions: plan.conversions, copiedSpans: w.smart?.copied,
                                    encodedSpans: w.smart?.encoded, copiedFrames: w.smart?.copiedFrames, smartReason: w.smart?.reason)
            },
            audio: plan.audio.map {
                Report.Audio(sampleRate: $0.sampleRate, channels: $0.channels, mode: $0.mode, sources: $0.sources,
                             codec: $0.codec.rawValue,
                             stems: $0.stems ? $0.sources.map { Report.Stem(name: $0.name, route: $0.route) } : nil)
            },
            key: plan.key, keyPicked: plan.keyPicked, layers: plan.layers, timeline: plan.timeline,
            subtitles: plan.subtitles.tracks.isEmpty ? nil : plan.subtitles.tracks.map(Report.Subtitle.init),
            damagedPackets: damaged,
            warnings: plan.warnings + plan.subtitles.notes,
            seconds: seconds, stageSeconds: stageSeconds, peakMemoryMB: MixWrite.peakMemoryMB())
    }
}
