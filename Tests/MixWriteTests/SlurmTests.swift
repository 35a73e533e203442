import Foundation
import Testing
import TestSupport

/// Scale-out on a real scheduler: a one-node Slurm cluster on this machine runs a job file as an array.
@Suite("Slurm: a job file as a job array, on a real one-node cluster")
struct SlurmTests {
    @Test("sbatch --array=0-3 runs every shard with the installed binary; a failed job is reported; resubmitting its task alone completes the set",
          .enabled(if: SlurmCluster.available, "needs Debian's slurm-wlm (slurmctld, slurmd, sbatch) and root"),
          .hangGuard)
    func jobArray() throws {
        // Eight remixes, two to a shard; job 5 (the third shard's second) names a movie not there yet.
        let jobs = (0..<8).map { #"{"kind": "remix", "movie": "\#($0 == 5 ? "late.mov" : "fx.mov")", "output": "out/r\#($0).mkv"}"# }
        let dir = try ScriptingTests.jobFolder(#"{"jobs": ["# + jobs.joined(separator: ",") + "]}")

        // The binary the array runs is the one `make install` put under a prefix.
        let prefix = dir + "/prefix"
        let install = try Oracle.run("/usr/bin/make", ["-C", Oracle.root.path, "--no-print-directory", "install", "PREFIX=\(prefix)",
                                                       "BIN=\(Oracle.mixwrite)"], timeout: 120)
        try #require(install.status == 0, "\(install.stderr)")
        let installed = prefix + "/bin/mixwrite"
        #expect(FileManager.default.isExecutableFile(atPath: installed))
        #expect(FileManager.default.fileExists(atPath: prefix + "/share/bash-completion/completions/mixwrite"))

        let cluster = try SlurmCluster(folder: dir + "/slurm")
        defer { cluster.stop() }
        let logs = dir + "/logs"
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
        func submit(_ array: String) throws -> Oracle.Result {
            try cluster.run("/usr/bin/sbatch", ["--wait", "--array=\(array)", "--chdir=\(dir)", "--output=\(logs)/shard-%a.json",
                                                "--error=\(logs)/shard-%a.err",
                                                "--wrap", "exec '\(installed)' batch jobs.json --shard auto --shards 4 --skip-existing --json"],
                            timeout: 180)
        }
        func report(_ task: Int) throws -> [Int: [String: Any]] {
            let data = try Data(contentsOf: URL(fileURLWithPath: "\(logs)/shard-\(task).json"))
            let results = try ScriptingTests.json(data) as? [[String: Any]] ?? []
            return Dictionary(uniqueKeysWithValues: results.map { ($0["index"] as? Int ?? -1, $0) })
        }
        func status(_ r: [Int: [String: Any]], _ job: Int) -> String? { r[job]?["status"] as? String }

        let first = try submit("0-3")
        #expect(first.signal == nil, "sbatch did not finish: \(first.stderr)")
        #expect(first.status != 0, "a task failed, so the array did")
        for task in 0..<4 {
            let r = try report(task)
            #expect(Set(r.keys) == [2 * task, 2 * task + 1], "shard \(task) ran its own share: \(r.keys.sorted())")
            for job in [2 * task, 2 * task + 1] where job != 5 {
                #expect(status(r, job) == "done", "job \(job): \(r[job] ?? [:])")
            }
        }
        let failed = try report(2)[5]
        #expect(failed?["status"] as? String == "failed")
        #expect((failed?["error"] as? String)?.contains("late.mov") == true, "\(failed ?? [:])")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/r5.mkv"), "no output for the failed job")
        let err2 = (try? String(contentsOfFile: logs + "/shard-2.err", encoding: .utf8)) ?? ""
        #expect(err2.contains("job 5") && err2.contains("late.mov"), "the shard's log names the job: \(err2)")

        // The missing movie arrives; only the failed task is submitted again.
        try FileManager.default.copyItem(atPath: dir + "/fx.mov", toPath: dir + "/late.mov")
        let again = try submit("2")
        #expect(again.status == 0 && again.signal == nil, "\(again.stderr)")
        let r = try report(2)
        #expect(status(r, 4) == "skipped" && status(r, 5) == "done", "\(r)")
        for job in 0..<8 {
            let probe = try Oracle.probe(dir + "/out/r\(job).mkv")
            #expect(probe.video.count == 1 && probe.audio.count == 1, "job \(job)")
            #expect(abs((probe.duration ?? 0) - 2) < 0.1, "job \(job): \(probe.duration ?? 0) s")
        }
    }
}

extension SlurmTests {
    @Test("one job in parts: an array of 4 parts, then a join that waits on it (--dependency=afterok): one machine's render",
          .enabled(if: SlurmCluster.available, "needs Debian's slurm-wlm (slurmctld, slurmd, sbatch) and root"),
          .hangGuard)
    func partsThenJoin() throws {
        let dir = try ScriptingTests.jobFolder(#"{"jobs": []}"#)
        let one = dir + "/out/one.mov", joined = dir + "/out/joined.mov"
        let segments = ["MIXWRITE_AAC_SEGMENT_FRAMES": "8"]
        let r = try Oracle.run(Oracle.mixwrite, [dir + "/fx.mov", dir + "/base.mov", "-o", one, "--progress", "none"],
                               environment: segments, timeout: 120)
        try #require(r.status == 0, "\(r.stderr)")

        let cluster = try SlurmCluster(folder: dir + "/slurm")
        defer { cluster.stop() }
        let bin = Oracle.mixwrite
        // The array's tasks 0-3 each take part (index mod 4) + 1; the join starts only once all four ended well.
        let array = try cluster.run("/usr/bin/sbatch", [
            "--parsable", "--array=0-3", "--chdir=\(dir)", "--export=ALL,MIXWRITE_AAC_SEGMENT_FRAMES=8",
            "--output=\(dir)/part-%a.log", "--wrap", "exec '\(bin)' fx.mov base.mov -o out/joined.mov --parts 4 --part auto --progress none",
        ], timeout: 60)
        try #require(array.status == 0, "\(array.stderr)")
        let id = array.stdoutText.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
        let join = try cluster.run("/usr/bin/sbatch", [
            "--wait", "--dependency=afterok:\(id)", "--chdir=\(dir)", "--output=\(dir)/join.log", "--wrap", "exec '\(bin)' join out/joined.mov",
        ], timeout: 240)
        let log = (try? String(contentsOfFile: dir + "/join.log", encoding: .utf8)) ?? ""
        try #require(join.status == 0 && join.signal == nil, "the join: \(join.stderr) \(log)")
        for task in 0..<4 {
            let part = (try? String(contentsOfFile: "\(dir)/part-\(task).log", encoding: .utf8)) ?? ""
            #expect(part.contains("part-\(task % 4 + 1)-of-4.mov"), "task \(task): \(part)")
        }
        #expect(try Oracle.probe(joined).video.first?.frames == Oracle.probe(one).video.first?.frames)
        #expect(try PartsTests.audioPackets(joined) == PartsTests.audioPackets(one), "the joined sound is one render's, packet for packet")
        #expect(!FileManager.default.fileExists(atPath: joined + ".parts"))
    }
}

/// A one-node Slurm cluster in a folder of its own: configuration, state, spool, logs and pid files there,
/// free ports, no authentication daemon (`auth/none`), daemons in the foreground, stopped by the test.
final class SlurmCluster {
    static let available: Bool = getuid() == 0
        && ["/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/bin/sbatch", "/usr/bin/sinfo", "/usr/bin/make"]
            .allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }

    let folder: String
    let conf: String
    private var daemons: [pid_t] = []

    init(folder: String) throws {
        self.folder = folder
        conf = folder + "/slurm.conf"
        for sub in ["state", "spool"] {
            try FileManager.default.createDirectory(atPath: folder + "/" + sub, withIntermediateDirectories: true)
        }
        // The node as slurmd sees this machine (its first line; the second, UpTime, is no configuration).
        let node = try Oracle.run("/usr/sbin/slurmd", ["-C"], timeout: 20).stdoutText
            .split(separator: "\n").first { $0.hasPrefix("NodeName=") }
        guard let node, let host = node.split(separator: " ").first?.dropFirst("NodeName=".count) else {
            throw OracleError("slurmd -C names no node")
        }
        try """
        ClusterName=mixwrite\(getpid())
        SlurmctldHost=\(host)
        SlurmctldPort=\(try RawHTTP.freePort())
        SlurmdPort=\(try RawHTTP.freePort())
        SlurmUser=root
        SlurmdUser=root
        AuthType=auth/none
        CredType=cred/none
        ProctrackType=proctrack/linuxproc
        TaskPlugin=task/none
        SelectType=select/cons_tres
        SelectTypeParameters=CR_Core
        AccountingStorageType=accounting_storage/none
        JobCompType=jobcomp/none
        JobAcctGatherType=jobacct_gather/none
        MailProg=/bin/true
        ReturnToService=2
        StateSaveLocation=\(folder)/state
        SlurmdSpoolDir=\(folder)/spool
        SlurmctldPidFile=\(folder)/slurmctld.pid
        SlurmdPidFile=\(folder)/slurmd.pid
        SlurmctldLogFile=\(folder)/slurmctld.log
        SlurmdLogFile=\(folder)/slurmd.log
        \(node) State=UNKNOWN
        PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP

        """.write(toFile: conf, atomically: true, encoding: .utf8)
        // Daemons write to their log files; their standard output goes nowhere (a pipe nobody reads would
        // stop them, and one a reader waits on would never close).
        try start("/usr/sbin/slurmctld", ["-D", "-i", "-f", conf])
        try start("/usr/sbin/slurmd", ["-D", "-f", conf])
        for _ in 0..<60 {
            let state = try run("/usr/bin/sinfo", ["-h", "-o", "%T"], timeout: 10).stdoutText
                .trimmingCharacters(in: .whitespacesAndNewlines)
            if state == "idle" { return }
            usleep(500_000)
        }
        stop()
        let log = (try? String(contentsOfFile: folder + "/slurmctld.log", encoding: .utf8)) ?? ""
        throw OracleError("the Slurm node did not become idle within 30 s; slurmctld.log ends: \(log.suffix(600))")
    }

    /// Starts a daemon with posix_spawn, its standard streams on /dev/null and no other descriptor of this
    /// process. Not through Foundation's `Process`: a daemon closes every descriptor it inherits, Foundation
    /// takes the closing of its watch descriptor for the child's exit and waits for it with a blocking
    /// `waitpid`, and from then on no other child's exit is noticed (the hang this test once had).
    private func start(_ program: String, _ arguments: [String]) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // Nor any pipe another test has open now: a daemon holding one would keep that test waiting.
        // (glibc 2.34's posix_spawn_file_actions_addclosefrom_np, which Swift's Glibc module does not show.)
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np") else {
            throw OracleError("this C library has no posix_spawn_file_actions_addclosefrom_np")
        }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        let environment = ProcessInfo.processInfo.environment.merging(["SLURM_CONF": conf]) { $1 }.map { "\($0)=\($1)" }
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, program, &actions, nil, argv, envp)
        guard status == 0 else { throw OracleError("posix_spawn \(program): error \(status)") }
        daemons.append(pid)
    }

    /// A Slurm client command against this cluster.
    func run(_ program: String, _ arguments: [String], timeout: Double) throws -> Oracle.Result {
        try Oracle.run(program, arguments, environment: ["SLURM_CONF": conf], timeout: timeout)
    }

    /// Waits for the job steps to end (slurmstepd outlives a job by a moment), then stops the daemons,
    /// slurmd first; SIGKILL for one still there after 10 s.
    func stop() {
        for _ in 0..<50 {
            guard let steps = try? Oracle.run("/usr/bin/pgrep", ["-x", "slurmstepd"], timeout: 5), steps.status == 0 else { break }
            usleep(100_000)
        }
        for pid in daemons.reversed() {
            kill(pid, SIGTERM)
            var status: Int32 = 0
            var reaped = false
            for _ in 0..<100 {
                if waitpid(pid, &status, WNOHANG) == pid { reaped = true; break }
                usleep(100_000)
            }
            if !reaped {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
            }
        }
        daemons.removeAll()
    }
}
