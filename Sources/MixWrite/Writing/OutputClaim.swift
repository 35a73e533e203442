import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one writer of an output at a time: an exclusive `flock` on `.NAME.mixwrite-lock` beside it, taken when a job
/// starts writing and held until its file is in place or given up. The existence check at planning cannot see a writer
/// that starts after it (two job files naming one output, a requeued shard): the claim can. The kernel drops the lock
/// when its process ends however it ends (kill -9 too), so a lock file left behind never blocks; NFS carries `flock`
/// between hosts as a POSIX lock. The file says who holds it (`HOST PID`), for the other writer's message. One folder,
/// one lock: `o/x.mp4` and `o/../o/x.mp4` claim the same.
final class OutputClaim: Sendable {
    private let fd: Int32
    let lockPath: String
    private let released = Mutex(false)

    private init(fd: Int32, lockPath: String) { (self.fd, self.lockPath) = (fd, lockPath) }

    /// The lock file beside `output`.
    static func lockPath(of output: String) -> String {
        let name = output.split(separator: "/").last.map(String.init) ?? output
        return OutputFile.folder(of: output) + "/." + name + ".mixwrite-lock"
    }

    /// Claims `output`, or says who has it (exit 3).
    static func take(_ output: String) throws(MixWriteError) -> OutputClaim {
        let lock = lockPath(of: output)
        // A lock file its writer removed between this open and this lock is no longer the one others open: again.
        for _ in 0..<8 {
            let fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw .output(file: output, "cannot be claimed for writing (\(lock): \(String(cString: strerror(errno)).lowercased()))")
            }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                let holder = Self.holder(fd)
                close(fd)
                throw .output(file: output, "is being written by another mixwrite (\(holder)); wait for it to finish, or write another output")
            }
            if isCurrent(fd, lock) {
                let said = Array("\(OutputFile.hostName) \(getpid())\n".utf8)
                _ = ftruncate(fd, 0)
                _ = said.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
                return OutputClaim(fd: fd, lockPath: lock)
            }
            close(fd)
        }
        throw .output(file: output, "cannot be claimed for writing: its lock file \(lock) keeps changing")
    }

    /// Removes `output`'s lock file if no process holds it (its writer was killed: the kernel dropped the lock, the file
    /// stayed). One that a writer has just made and not yet locked may go too: that writer finds its file gone and makes
    /// another (`take`'s check).
    static func removeStale(of output: String) {
        let lock = lockPath(of: output)
        let fd = open(lock, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return }
        if isCurrent(fd, lock) { unlink(lock) }
    }

    /// Whether the file open as `fd` is still the one at `lock` (not removed or replaced since it was opened).
    private static func isCurrent(_ fd: Int32, _ lock: String) -> Bool {
        var mine = stat(), there = stat()
        return fstat(fd, &mine) == 0 && stat(lock, &there) == 0 && mine.st_dev == there.st_dev && mine.st_ino == there.st_ino
    }

    /// Who holds a lock, as its file says: "pid 812 on render-3".
    private static func holder(_ fd: Int32) -> String {
        var bytes = [UInt8](repeating: 0, count: 300)
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        let words = String(decoding: bytes.prefix(max(0, n)), as: UTF8.self).split(whereSeparator: \.isWhitespace)
        guard words.count == 2, let pid = Int32(words[1]) else { return "its lock file does not say which" }
        return "pid \(pid) on \(OutputFile.safe(String(words[0])))"
    }

    /// Gives the output up: the lock file removed, then the lock (once; later calls do nothing).
    func release() {
        guard released.withLock({ done in defer { done = true }; return !done }) else { return }
        unlink(lockPath)
        close(fd)
    }

    deinit { release() }
}
