import Foundation

/// How one job of a job file ended (`JobFile.run`).
public struct BatchResult: Sendable, Codable {
    public enum Status: String, Sendable, Codable { case done, failed, skipped }
    public var index: Int
    public var kind: String
    public var output: String
    public var status: Status
    public var error: String?
    public var exitCode: Int32?
    public var seconds: Double
    public var report: Report?
    /// Folders made for this job's output (a job file may name a tree of outputs).
    public var madeFolders: [String] = []
}

/// Running a job file's jobs (`mixwrite batch`).
extension JobFile {
    /// Jobs at once by default: half the cores (at least 1), since each job's x264 already keeps two busy.
    public static var defaultConcurrency: Int { max(1, ProcessInfo.processInfo.activeProcessorCount / 2) }

    /// x264 threads for each of `concurrency` jobs sharing the machine.
    public static func encoderThreads(concurrency: Int) -> Int {
        max(1, ProcessInfo.processInfo.activeProcessorCount / max(1, concurrency))
    }

    /// Runs `jobs` (the file's, or a shard of them: their indices are the file's), `concurrency` at a time; a
    /// failing job is reported and the others go on. The results are in the jobs' order.
    public static func run(_ jobs: ArraySlice<any MixJob>, concurrency: Int, skipExisting: Bool,
                           progress: (@Sendable (Int, ProgressUpdate) -> Void)? = nil,
                           finished: (@Sendable (BatchResult) -> Void)? = nil) async -> [BatchResult] {
        await withTaskGroup(of: BatchResult.self) { group in
            var results: [BatchResult] = []
            var next = jobs.startIndex
            func start() {
                guard next < jobs.endIndex else { return }
                let (index, job) = (next, jobs[next])
                next += 1
                group.addTask { await runOne(job, index: index, skipExisting: skipExisting, progress: progress) }
            }
            for _ in 0..<max(1, concurrency) { start() }
            for await result in group {
                results.append(result)
                finished?(result)
                if !Task.isCancelled { start() }
            }
            return results.sorted { $0.index < $1.index }
        }
    }

    static func runOne(_ job: any MixJob, index: Int, skipExisting: Bool,
                       progress: (@Sendable (Int, ProgressUpdate) -> Void)?) async -> BatchResult {
        let started = ContinuousClock.now
        var result = BatchResult(index: index, kind: job.kind, output: job.output, status: .done,
                                 error: nil, exitCode: nil, seconds: 0, report: nil)
        if skipExisting && FileManager.default.fileExists(atPath: job.output) {
            result.status = .skipped
            return result
        }
        var handler: (@Sendable (ProgressUpdate) -> Void)? = nil
        if let progress { handler = { update in progress(index, update) } }
        do {
            result.madeFolders = try OutputFile.makeFolders(for: job.output)
            result.report = try await MixWriter(job).run(progress: handler)
        } catch {
            result.status = .failed
            result.error = error.description
            result.exitCode = error.exitCode
        }
        result.seconds = (ContinuousClock.now - started).seconds
        return result
    }
}
