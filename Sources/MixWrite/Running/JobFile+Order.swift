import Foundation

/// Jobs that read another job's output: the order `batch` runs them in, and the shards that keep them together.
///
/// A task waits until every task that writes one of its inputs has ended (`--jobs N` runs the others meanwhile); one
/// whose maker failed fails without running, naming it. A job that reads the output of a job with `parts` is refused
/// before any work (that output exists only once its parts are joined, which `batch` does after every task), as are
/// jobs that read each other's outputs (a cycle). `--shard` never splits a job from the jobs it reads or that read it.
extension JobFile {
    /// A path as its file, however it is written: absolute, `.` and `..` taken out, symbolic links resolved (where
    /// they exist), so that `o/x.mp4`, `./o/../o/x.mp4` and a link to `o` name one output.
    static func identity(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// For each task (by its place in `tasks`), the places of the other tasks that write one of its inputs.
    static func makers(_ tasks: [BatchTask]) -> [[Int]] {
        var writes: [String: [Int]] = [:]
        for (n, task) in tasks.enumerated() { writes[identity(task.job.output), default: []].append(n) }
        return tasks.enumerated().map { n, task in
            Set(task.job.inputPaths.filter { !$0.isEmpty }.flatMap { writes[identity($0)] ?? [] }).subtracting([n]).sorted()
        }
    }

    /// Why a task cannot run in this file's order, before any work: it reads a parted job's output, or it is in a
    /// cycle of jobs reading each other's outputs; nil when it can.
    static func orderProblem(_ n: Int, _ tasks: [BatchTask], makers: [[Int]]) -> MixWriteError? {
        let job = tasks[n].job
        if let m = makers[n].first(where: { tasks[$0].part != nil }) {
            return .usage("job \(tasks[n].index) reads job \(tasks[m].index)'s output (\(tasks[m].job.output)), which its parts make only "
                          + "when joined: give job \(tasks[m].index) no parts, or run job \(tasks[n].index) after batch --join")
        }
        // A cycle: following the makers from n comes back to n.
        var seen: Set<Int> = [], stack = makers[n]
        while let m = stack.popLast() {
            if m == n {
                return .usage("job \(tasks[n].index) (\(job.output)) reads its own output through other jobs' (a cycle): no order can run it")
            }
            if seen.insert(m).inserted { stack += makers[m] }
        }
        return nil
    }

    /// The tasks' groups, in the file's order: each task with every task it reads from or that reads from it (and
    /// theirs), as places in `tasks`; a group is never split between shards.
    static func groups(_ tasks: [BatchTask]) -> [[Int]] {
        var root = Array(tasks.indices)
        func find(_ x: Int) -> Int {
            var x = x
            while root[x] != x { (root[x], x) = (root[root[x]], root[x]) }
            return x
        }
        for (n, makers) in makers(tasks).enumerated() {
            for m in makers { root[find(m)] = find(n) }
        }
        var byRoot: [Int: [Int]] = [:], order: [Int] = []
        for n in tasks.indices {
            let r = find(n)
            if byRoot[r] == nil { order.append(r) }
            byRoot[r, default: []].append(n)
        }
        return order.map { byRoot[$0]! }
    }

    /// The failed result of a task whose maker `m` failed (or was refused): it is not run.
    static func unmade(_ task: BatchTask, maker: BatchTask) -> BatchResult {
        var result = BatchResult(index: task.index, part: task.part?.index, parts: task.part?.count, kind: task.job.kind,
                                 output: task.job.output, status: .done, error: nil, exitCode: nil, seconds: 0, report: nil)
        result.end(.failure(.input(file: maker.job.output, "is job \(task.index)'s input, but job \(maker.index), which writes it, failed; "
                                       + "job \(task.index) was not run")), started: .now)
        return result
    }
}
