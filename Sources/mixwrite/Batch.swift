import ArgumentParser
import Foundation
@_spi(Tools) import MixWrite
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

struct Batch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",
        abstract: "Run many jobs from one JSON file, N at a time, with one summary.",
        discussion: """
        Example: mixwrite batch jobs.json --jobs 2 --json
        Across machines: --shard 3/10 (the 3rd of 10 equal shares), or --shard auto in a Slurm job array \
        (SLURM_ARRAY_TASK_ID) or a Kubernetes Indexed Job (JOB_COMPLETION_INDEX with --shards N).
        A job with "parts": N is N tasks, one a part (--tasks counts them); batch --join then joins each such job \
        (without --shard, batch renders the parts and joins them itself).
        """
    )

    @Argument(help: "The job file: {\"jobs\": [{\"kind\": \"blend\", \"fx\": …, \"base\": …, \"output\": …}, …]}.")
    var jobFile: String

    @Option(help: "Jobs at once (default: half the cores; each job's encoder gets its share of them).")
    var jobs: Int?

    @Option(help: "Run only share K of N (1-based), e.g. 2/8; 'auto' reads Slurm's or Kubernetes' index.")
    var shard: String?

    @Option(help: "With --shard auto: how many shares (a Kubernetes Indexed Job's completions; under Slurm, the array's size, so that a task resubmitted alone keeps its share).")
    var shards: Int?

    @Flag(name: .customLong("skip-existing"), help: "Skip jobs whose output already exists (a retried shard redoes only what is missing).")
    var skipExisting = false

    @Flag(help: "Join the parts of every job with \"parts\" (a scheduler's step after the parts' tasks); render nothing.")
    var join = false

    @Flag(help: "Print how many tasks the file makes (a job, or each part of one) and exit: the size of a job array.")
    var tasks = false

    @Flag(help: "Print the summary as JSON: one object a job with its output, status, error, duration and report.")
    var json = false

    @Option(help: "Progress on stderr: auto, bar, json or none.")
    var progress: ProgressStyle = .auto

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    @Flag(name: .shortAndLong, help: "Also say which folders were made for the outputs, and show FFmpeg's own log lines.")
    var verbose = false

    func run() async throws {
        MixWriter.setLibraryLogging(verbose)
        let concurrency = jobs ?? JobFile.defaultConcurrency
        guard concurrency >= 1 else { throw MixWriteError.usage("--jobs must be 1 or more") }
        let file = try JobFile(path: jobFile, threads: JobFile.encoderThreads(concurrency: concurrency))
        if tasks {
            print(file.tasks.count)
            return
        }
        if join {
            if shard != nil { throw MixWriteError.usage("--join joins every job of the file: --shard does not go with it") }
            summarize(await file.join())
            return
        }
        let entries = try selectShard(file)

        let style: ProgressStyle = quiet ? .none : (progress == .auto ? (isatty(STDERR_FILENO) != 0 ? .bar : .none) : progress)
        let board = Board(total: entries.count, style: style, tasks: entries)
        let task = Task {
            await JobFile.run(entries, concurrency: concurrency, skipExisting: skipExisting,
                                 progress: style == .none ? nil : board.progress, finished: board.finished)
        }
        let signals = SignalWatcher { _ in task.cancel() }
        var results = await task.value
        signals.stop()
        board.end()
        if let signal = signals.caught { throw MixWriteError.interrupted(signal: signal) }
        if shard == nil {
            // One machine ran every part: it joins the jobs whose parts all finished.
            let complete = Set(results.filter { $0.part != nil }.map(\.index)).filter { i in
                let parts = results.filter { $0.index == i }
                return parts.count == parts.first?.parts && parts.allSatisfy { $0.status != .failed }
            }
            results += await file.join(complete.sorted())
        }
        summarize(results)
    }

    /// Prints the results (a line each, or JSON) and exits with the first failure's code.
    private func summarize(_ results: [BatchResult]) {
        if json {
            printJSON(results)
            // The summary is for the script; a failure also goes where a person (or a scheduler's log) looks.
            if !quiet {
                for r in results where r.status == .failed { writeLine("mixwrite: error: job \(r.index): \(r.error ?? "failed")") }
            }
        } else if !quiet {
            for r in results {
                if verbose { for f in r.madeFolders { writeError("mixwrite: made the folder \(f) for job \(r.index)\n") } }
                let what = r.status == .failed ? (r.error ?? "") : r.output
                let step = r.joined ? "  join" : r.part.map { "  part \($0)/\(r.parts ?? 0)" } ?? ""
                writeError(String(format: "job %3d  %-6@  %-7@  %6.1fs  %@%@\n", r.index, r.kind, r.status.rawValue, r.seconds, what, step))
            }
            let failed = results.filter { $0.status == .failed }.count, skipped = results.filter { $0.status == .skipped }.count
            writeError("mixwrite: \(results.count - failed - skipped) done, \(skipped) skipped, \(failed) failed\n")
        } else {
            // -q: nothing but errors, and a failed job's is one.
            for r in results where r.status == .failed { writeLine("mixwrite: error: job \(r.index): \(r.error ?? "failed")") }
        }
        if let firstFailure = results.first(where: { $0.status == .failed }) {
            Mixwrite.exitQuietly(firstFailure.exitCode ?? 4)
        }
    }

    private func selectShard(_ file: JobFile) throws -> [BatchTask] {
        guard let shard else { return file.tasks }
        var k: Int, n: Int
        if shard == "auto" {
            let environment = ProcessInfo.processInfo.environment
            // A scheduler's numbers as indices: a value no array or Job has (past ten million, or below 0) is refused.
            func index(_ name: String) throws -> Int? {
                guard let text = environment[name] else { return nil }
                guard let n = Int(text), (0...10_000_000).contains(n) else {
                    throw MixWriteError.usage("--shard auto: \(name)=\(text.prefix(40)) is not a task index (0 to 10000000)")
                }
                return n
            }
            if let shards, !(1...10_000_000).contains(shards) { throw MixWriteError.usage("--shards must be between 1 and 10000000") }
            if let id = try index("SLURM_ARRAY_TASK_ID"), let shards {
                // With the count given, a task keeps its share when it is resubmitted alone (`--array=2`),
                // where Slurm's own count and minimum describe the resubmission, not the first array.
                (k, n) = (id % shards + 1, shards)
            } else if let id = try index("SLURM_ARRAY_TASK_ID"), let count = try index("SLURM_ARRAY_TASK_COUNT") {
                let first = try index("SLURM_ARRAY_TASK_MIN") ?? 0
                (k, n) = (id - first + 1, count)
            } else if let index = try index("JOB_COMPLETION_INDEX") {
                guard let shards else { throw MixWriteError.usage("--shard auto under Kubernetes needs --shards N (the Job's completions)") }
                (k, n) = (index + 1, shards)
            } else {
                throw MixWriteError.usage("--shard auto found neither SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT nor JOB_COMPLETION_INDEX")
            }
        } else {
            let parts = shard.split(separator: "/")
            guard parts.count == 2, let a = Int(parts[0]), let b = Int(parts[1]) else {
                throw MixWriteError.usage("--shard '\(shard)' is not K/N (e.g. 2/8) or auto")
            }
            (k, n) = (a, b)
        }
        guard n >= 1, (1...n).contains(k) else { throw MixWriteError.usage("--shard \(k)/\(n): K must be between 1 and N") }
        return file.shard(k, of: n)
    }
}

/// The batch's progress: one redrawn line (running jobs and the total), or JSON lines with the job's index.
final class Board: Sendable {
    private struct State {
        var done = 0
        var running: [Int: Double] = [:]
        var drew = false
    }
    let total: Int
    let style: ProgressStyle
    /// Each task's job index and part number (nil: the whole job).
    private let tasks: [(job: Int, part: Int?)]
    private let state = Mutex(State())

    init(total: Int, style: ProgressStyle, tasks: [BatchTask]) {
        self.total = total
        self.style = style
        self.tasks = tasks.map { ($0.index, $0.partNumber) }
    }

    private func name(_ task: Int) -> String { "job \(tasks[task].job)" + (tasks[task].part.map { " part \($0)" } ?? "") }

    var progress: @Sendable (Int, ProgressUpdate) -> Void {
        { [self] task, update in
            switch style {
            case .json:
                let part = tasks[task].part.map { ", \"part\": \($0)" } ?? ""
                let line = String(format: "{\"job\": %d%@, \"progress\": %.4f, \"time\": %.3f, \"duration\": %.3f, \"fps\": %.1f, \"speed\": %.2f}\n",
                                  tasks[task].job, part, update.progress, update.time, update.duration, update.fps, update.speed)
                writeError(line)
            case .bar, .auto:
                let line: String = state.withLock { s in
                    s.running[task] = update.progress
                    s.drew = true
                    let jobs = s.running.sorted { $0.key < $1.key }.map { "\(name($0.key)) \(Int($0.value * 100))%" }
                    return "\r[\(s.done)/\(total) done] " + jobs.joined(separator: "  ")
                }
                writeError(line + "\u{1B}[K")
            case .none:
                break
            }
        }
    }

    var finished: @Sendable (Int, BatchResult) -> Void {
        { [self] task, _ in
            state.withLock { s in
                s.done += 1
                s.running[task] = nil
            }
        }
    }

    func end() {
        if state.withLock({ $0.drew }) { writeError("\n") }
    }
}
