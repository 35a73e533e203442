import ArgumentParser
import Foundation
import MixWrite
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
        let entries = try selectShard(file)

        let style: ProgressStyle = quiet ? .none : (progress == .auto ? (isatty(STDERR_FILENO) != 0 ? .bar : .none) : progress)
        let board = Board(total: entries.count, style: style)
        let task = Task {
            await JobFile.run(entries, concurrency: concurrency, skipExisting: skipExisting,
                                 progress: style == .none ? nil : board.progress, finished: board.finished)
        }
        let signals = SignalWatcher { _ in task.cancel() }
        let results = await task.value
        signals.stop()
        board.end()
        if let signal = signals.caught { throw MixWriteError.interrupted(signal: signal) }

        if json {
            printJSON(results)
            // The summary is for the script; a failure also goes where a person (or a scheduler's log) looks.
            if !quiet {
                for r in results where r.status == .failed { writeError("mixwrite: error: job \(r.index): \(r.error ?? "failed")\n") }
            }
        } else if !quiet {
            for r in results {
                if verbose { for f in r.madeFolders { writeError("mixwrite: made the folder \(f) for job \(r.index)\n") } }
                let what = r.status == .failed ? (r.error ?? "") : r.output
                writeError(String(format: "job %3d  %-6@  %-7@  %6.1fs  %@\n", r.index, r.kind, r.status.rawValue, r.seconds, what))
            }
            let failed = results.filter { $0.status == .failed }.count, skipped = results.filter { $0.status == .skipped }.count
            writeError("mixwrite: \(results.count - failed - skipped) done, \(skipped) skipped, \(failed) failed\n")
        } else {
            // -q: nothing but errors, and a failed job's is one.
            for r in results where r.status == .failed { writeError("mixwrite: error: job \(r.index): \(r.error ?? "failed")\n") }
        }
        if let firstFailure = results.first(where: { $0.status == .failed }) {
            Mixwrite.exitQuietly(firstFailure.exitCode ?? 4)
        }
    }

    private func selectShard(_ file: JobFile) throws -> ArraySlice<any MixJob> {
        guard let shard else { return file.jobs[...] }
        var k: Int, n: Int
        if shard == "auto" {
            let env = ProcessInfo.processInfo.environment
            if let id = env["SLURM_ARRAY_TASK_ID"].flatMap(Int.init), let shards {
                // With the count given, a task keeps its share when it is resubmitted alone (`--array=2`),
                // where Slurm's own count and minimum describe the resubmission, not the first array.
                guard shards >= 1 else { throw MixWriteError.usage("--shards must be 1 or more") }
                (k, n) = (id % shards + 1, shards)
            } else if let id = env["SLURM_ARRAY_TASK_ID"].flatMap(Int.init), let count = env["SLURM_ARRAY_TASK_COUNT"].flatMap(Int.init) {
                let first = env["SLURM_ARRAY_TASK_MIN"].flatMap(Int.init) ?? 0
                (k, n) = (id - first + 1, count)
            } else if let index = env["JOB_COMPLETION_INDEX"].flatMap(Int.init) {
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
    private let state = Mutex(State())

    init(total: Int, style: ProgressStyle) {
        self.total = total
        self.style = style
    }

    var progress: @Sendable (Int, ProgressUpdate) -> Void {
        { [self] index, update in
            switch style {
            case .json:
                let line = String(format: "{\"job\": %d, \"progress\": %.4f, \"time\": %.3f, \"duration\": %.3f, \"fps\": %.1f, \"speed\": %.2f}\n",
                                  index, update.progress, update.time, update.duration, update.fps, update.speed)
                writeError(line)
            case .bar, .auto:
                let line: String = state.withLock { s in
                    s.running[index] = update.progress
                    s.drew = true
                    let jobs = s.running.sorted { $0.key < $1.key }.map { "job \($0.key) \(Int($0.value * 100))%" }
                    return "\r[\(s.done)/\(total) done] " + jobs.joined(separator: "  ")
                }
                writeError(line + "\u{1B}[K")
            case .none:
                break
            }
        }
    }

    var finished: @Sendable (BatchResult) -> Void {
        { [self] result in
            state.withLock { s in
                s.done += 1
                s.running[result.index] = nil
            }
        }
    }

    func end() {
        if state.withLock({ $0.drew }) { writeError("\n") }
    }
}
