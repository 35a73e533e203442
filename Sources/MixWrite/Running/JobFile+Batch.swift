import Foundation

/// How one job of a job file ended (`JobFile.run`).
public struct BatchResult: Sendable, Codable {
    public enum Status: String, Sendable, Codable { case done, failed, skipped }
    public var index: Int
    /// A part of a job with `parts` (`part` of `parts`); nil for a whole job, or for a join (`joined`).
    public var part: Int?
    public var parts: Int?
    /// The job's parts were joined into its output (`batch --join`).
    public var joined = false
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

extension BatchResult {
    /// The task's report, or its failure, and its seconds since `started`.
    mutating func end(_ outcome: Result<Report, MixWriteError>, started: ContinuousClock.Instant) {
        switch outcome {
        case .success(let report): self.report = report
        case .failure(let error): (status, self.error, exitCode) = (.failed, error.description, error.exitCode)
        }
        seconds = (ContinuousClock.now - started).seconds
    }
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
                           finished: (@Sendable (Int, BatchResult) -> Void)? = nil) async -> [BatchResult] {
        await run(jobs.indices.map { BatchTask(index: $0, job: jobs[$0]) }, concurrency: concurrency, skipExisting: skipExisting,
                  progress: progress, finished: finished)
    }

    /// Runs `tasks` (`tasks`, or a shard of them), `concurrency` at a time; a failing task is reported and the others
    /// go on. `progress` and `finished` get each task's place in `tasks`. The results are in the tasks' order.
    @_spi(Tools) public static func run(_ tasks: [BatchTask], concurrency: Int, skipExisting: Bool,
                           progress: (@Sendable (Int, ProgressUpdate) -> Void)? = nil,
                           finished: (@Sendable (Int, BatchResult) -> Void)? = nil) async -> [BatchResult] {
        // Every task's options and inputs checked before the first renders: each bad one reported now, the good ones run.
        var results: [(Int, BatchResult)] = []
        var good: [Int] = []
        // A job may read what another writes (a concat of a blend's output): it waits for it (`JobFile+Order`).
        let makers = Self.makers(tasks)
        let written = Set(tasks.map { identity($0.job.output) })
        var ended: [Int: BatchResult.Status] = [:]
        for (n, task) in tasks.enumerated() {
            if let refused = precheck(task, skipExisting: skipExisting, written: written, order: orderProblem(n, tasks, makers: makers)) {
                results.append((n, refused))
                ended[n] = .failed
                finished?(n, refused)
            } else {
                good.append(n)
            }
        }
        return await withTaskGroup(of: (Int, BatchResult).self) { group in
            var running = 0
            // Starts the first waiting tasks whose makers have all ended; one whose maker failed fails unrun.
            func start() {
                while running < max(1, concurrency),
                      let i = good.firstIndex(where: { makers[$0].allSatisfy { ended[$0] != nil } }) {
                    let n = good.remove(at: i), task = tasks[n]
                    if let m = makers[n].first(where: { ended[$0] == .failed }) {
                        let result = unmade(task, maker: tasks[m])
                        (ended[n], results) = (.failed, results + [(n, result)])
                        finished?(n, result)
                        continue
                    }
                    var handler: (@Sendable (ProgressUpdate) -> Void)? = nil
                    if let progress { handler = { update in progress(n, update) } }
                    running += 1
                    group.addTask { (n, await runOne(task, skipExisting: skipExisting, progress: handler)) }
                }
            }
            start()
            for await result in group {
                (running, ended[result.0]) = (running - 1, result.1.status)
                results.append(result)
                finished?(result.0, result.1)
                if !Task.isCancelled { start() }
            }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// A task's result without running it, when its options are out of range or an input cannot be read (not for a
    /// task `skipExisting` skips anyway, nor an input another task `written` makes); `order`: why the file's order
    /// cannot run it.
    static func precheck(_ task: BatchTask, skipExisting: Bool, written: Set<String>, order: MixWriteError? = nil) -> BatchResult? {
        let job = task.job
        if skipExisting && FileManager.default.fileExists(atPath: job.output) { return nil }
        do throws(MixWriteError) {
            if let order { throw order }
            try (job as? any PlannedJob)?.validate()
            for path in job.inputPaths where !path.isEmpty && !written.contains(identity(path)) { try MediaFile.checkReadable(path) }
            return nil
        } catch {
            var result = BatchResult(index: task.index, part: task.part?.index, parts: task.part?.count, kind: job.kind,
                                     output: job.output, status: .done, error: nil, exitCode: nil, seconds: 0, report: nil)
            result.end(.failure(error), started: .now)
            return result
        }
    }

    static func runOne(_ task: BatchTask, skipExisting: Bool,
                       progress: (@Sendable (ProgressUpdate) -> Void)?) async -> BatchResult {
        let started = ContinuousClock.now
        let (job, index) = (task.job, task.index)
        var result = BatchResult(index: index, part: task.part?.index, parts: task.part?.count, kind: job.kind, output: job.output,
                                 status: .done, error: nil, exitCode: nil, seconds: 0, report: nil)
        // A part is done when its record is there, or the job's output (joined) is.
        let done = task.part.map { FileManager.default.fileExists(atPath: PartFolder.record($0, of: job.output)) } ?? false
        if skipExisting && (done || FileManager.default.fileExists(atPath: job.output)) {
            result.status = .skipped
            return result
        }
        let outcome: Result<Report, MixWriteError>
        do {
            result.madeFolders = try OutputFile.makeFolders(for: job.output)
            outcome = .success(try await MixWriter(job).run(progress: progress))
        } catch {
            outcome = .failure(error)
        }
        result.end(outcome, started: started)
        return result
    }

    /// Joins the parts of every job with `parts` among `indices` (all by default): `batch --join`, a scheduler's
    /// step after the parts' tasks. A job already joined (its output there, its parts gone) is skipped.
    public func join(_ indices: [Int]? = nil) async -> [BatchResult] {
        var results: [BatchResult] = []
        for i in indices ?? Array(jobs.indices) {
            guard let job = jobs[i] as? any PartedJob, let n = job.run.parts else { continue }
            let started = ContinuousClock.now
            var result = BatchResult(index: i, parts: n, joined: true, kind: job.kind, output: job.output, status: .done,
                                     error: nil, exitCode: nil, seconds: 0, report: nil)
            var st = stat()
            if stat(PartFolder.path(of: job.output), &st) != 0 && FileManager.default.fileExists(atPath: job.output) {
                result.status = .skipped
                results.append(result)
                continue
            }
            let joined: Result<Report, MixWriteError>
            do { joined = .success(try await PartJoiner(output: job.output, job: job.sharedEntry).join(overwrite: job.run.overwrite, keepParts: false)) } catch {
                joined = .failure(error)
            }
            result.end(joined, started: started)
            results.append(result)
        }
        return results
    }

    /// Every task of the file, in order: a job, or each part of a job with `parts` (1 … N; an entry that names its
    /// `part` is that part alone).
    @_spi(Tools) public var tasks: [BatchTask] {
        jobs.indices.flatMap { i -> [BatchTask] in
            // Parts out of their range make one task, which its check refuses (`validateParts`).
            guard let job = jobs[i] as? any PartedJob, let n = job.run.parts, PartSelection.counts.contains(n), job.run.part == nil else {
                return [BatchTask(index: i, job: jobs[i])]
            }
            return (1...n).map { k in
                var part = job
                part.run.part = k
                return BatchTask(index: i, job: part)
            }
        }
    }

    /// The tasks of share `k` of `n` (1-based), together all of them once: contiguous and equal to within one task,
    /// except that a job and the jobs that read its output (or whose output it reads) are one share's, in order (each
    /// group goes to the share its first task falls in).
    @_spi(Tools) public func shard(_ k: Int, of n: Int) -> [BatchTask] {
        let all = tasks
        // k · count / n exactly, whatever k and n (a full-width product: no overflow).
        func share(_ k: Int) -> Int { n.dividingFullWidth(k.multipliedFullWidth(by: all.count)).quotient }
        let range = share(k - 1) ..< share(k)
        return Self.groups(all).filter { range.contains($0[0]) }.flatMap { $0 }.sorted().map { all[$0] }
    }
}

/// One task of a job file: a whole job, or one part of a job with `parts` (what `batch --shard` spreads over
/// machines: the command line's, not an embedder's, who runs a file's jobs with `run(_:concurrency:…)`).
@_spi(Tools) public struct BatchTask: Sendable {
    /// The job's place in the file.
    public var index: Int
    public var job: any MixJob

    /// Which part it is (nil: the whole job).
    var part: PartSelection? { (job as? any PartedJob)?.selection }
    /// Its part's number, 1 … N (nil: the whole job).
    public var partNumber: Int? { part?.index }
}
