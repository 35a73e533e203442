import Foundation
import FFmpegSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a job writes: a temporary file beside the destination, renamed onto it only when complete.
struct OutputFile: Sendable {
    enum Container: String, Sendable {
        case mov, mp4, matroska, webm
        /// A single picture (`--frame`).
        case png
        /// A part's record (`--parts`).
        case json
        /// An OpenTimelineIO timeline (`--otio`).
        case otio

        /// The container a movie named `path` is written in, by its extension; nil for another.
        static func named(_ path: String) -> Container? {
            switch (path as NSString).pathExtension.lowercased() {
            case "mov": .mov
            case "mp4", "m4v", "m4a": .mp4
            case "mkv", "mka": .matroska
            case "webm": .webm
            default: nil
            }
        }

        /// The muxer that writes it, by FFmpeg's name.
        var muxerName: String { rawValue }
        /// mp4 players want the index first.
        var fastStart: Bool { self == .mp4 }
    }

    let path: String
    let temporaryPath: String
    let container: Container
    /// Whether an existing OUT may be replaced (`-y`); without, not even one that appears while the job runs.
    let overwrite: Bool

    /// Checks the destination before any work starts: a known extension, no existing file unless
    /// `overwrite`, not one of the inputs, a folder that exists and can be written.
    /// What the output will hold, which decides the names it may have.
    enum Kind: Sendable { case movie, audioOnly, picture, record, timeline }

    /// What is wrong with a name's extension: none, which is what names the container, or one mixwrite does not write.
    private static func unknown(_ ext: String) -> String {
        ext.isEmpty ? "has no extension, which names the container" : "unknown output type '.\(ext)'"
    }

    init(path: String, overwrite: Bool, inputs: [String], kind: Kind = .movie) throws(MixWriteError) {
        // The last name's extension ("out.v2/movie" has none).
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let ext = name.lastIndex(of: ".").map { name[name.index(after: $0)...].lowercased() } ?? ""
        switch (ext, kind) {
        case ("mov", .movie), ("mov", .audioOnly): container = .mov
        case ("mp4", .movie), ("m4v", .movie), ("mp4", .audioOnly), ("m4a", .audioOnly): container = .mp4
        case ("mkv", .movie), ("mkv", .audioOnly), ("mka", .audioOnly): container = .matroska
        case ("webm", .movie), ("webm", .audioOnly): container = .webm
        case ("png", .picture): container = .png
        case ("json", .record): container = .json
        case ("otio", .timeline): container = .otio
        case (_, .timeline): throw .usage("\(path): --otio writes an OpenTimelineIO timeline; name it .otio")
        case (_, .record): throw .usage("\(path): a record is written as JSON")
        case (_, .picture):
            throw .usage("\(path): a --frame is written as PNG; name the output .png")
        case (_, .audioOnly):
            throw .usage("\(path): \(Self.unknown(ext)) for sound only; use .m4a, .mka, .mov, .mkv or .webm")
        case ("m4a", .movie), ("mka", .movie):
            throw .usage("\(path): a .\(ext) holds sound only, and this job writes a picture; use .mov, .mp4, .m4v, .mkv or .webm"
                         + " (remix -o NAME.\(ext) writes a movie's sound alone)")
        default:
            throw .usage("\(path): \(Self.unknown(ext)); use .mov, .mp4, .m4v, .mkv or .webm")
        }
        (self.path, self.overwrite) = (path, overwrite)
        let folder = OutputFile.folder(of: path)
        var st = stat()
        if stat(folder, &st) != 0 || (st.st_mode & S_IFMT) != S_IFDIR {
            throw .output(file: path, "the folder \(folder) does not exist")
        }
        if access(folder, W_OK) != 0 {
            throw .output(file: path, "the folder \(folder) is not writable")
        }
        // lstat: a link at OUT, even one to nothing, is there (replacing it needs -y too).
        if lstat(path, &st) == 0 {
            for input in inputs where OutputFile.sameFile(path, input) {
                throw .output(file: path, "is also an input (\(input)); choose another output")
            }
            if (st.st_mode & S_IFMT) == S_IFDIR { throw .output(file: path, "is a folder") }
            if !overwrite { throw .output(file: path, "already exists; use -y to replace it") }
        }
        let prefix = OutputFile.temporaryPrefix(of: path)
        OutputFile.removeStale(folder: folder, prefix: prefix)
        OutputClaim.removeStale(of: path)   // a killed writer's lock file (its lock gone with it)
        temporaryPath = folder + "/" + prefix + "\(getpid())-\(UInt32.random(in: 0 ... .max)).tmp"
    }

    /// `.NAME.mixwrite-HOST-`: a temporary file's name up to the PID of the process writing it. The host tells
    /// whose PIDs they are when several machines write into one shared folder.
    static func temporaryPrefix(of path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return "." + name + ".mixwrite-" + hostName + "-"
    }

    /// This machine's name, as a file name may hold it.
    static var hostName: String {
        var host = [UInt8](repeating: 0, count: 256)
        return safe(gethostname(&host, host.count - 1) == 0 ? String(decoding: host.prefix { $0 != 0 }, as: UTF8.self) : "host")
    }

    /// `text` with every character but letters, digits, `.` and `_` made `_`.
    static func safe(_ text: String) -> String {
        String(text.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "_" ? $0 : "_" })
    }

    /// Removes the temporary files that an earlier mixwrite on this machine left beside this output when it was
    /// killed (SIGKILL, a crash, a power cut: nothing of it could clean up): those whose process is gone. A file
    /// of a process still running (another render of the same output) is left alone.
    static func removeStale(folder: String, prefix: String) {
        guard let dir = opendir(folder) else { return }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            // Read in place: a dirent is only as long as its name (d_reclen), so copying the struct's whole
            // 256-byte d_name reads past it (AddressSanitizer's heap-buffer-overflow).
            let name = String(cString: (UnsafeRawPointer(entry) + MemoryLayout<dirent>.offset(of: \dirent.d_name)!)
                .assumingMemoryBound(to: CChar.self))
            guard name.hasPrefix(prefix), name.hasSuffix(".tmp"),
                  let pid = Int32(name.dropFirst(prefix.count).prefix { $0 != "-" }), pid > 0, pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { unlink(folder + "/" + name) }
        }
    }

    /// Makes the folders `path`'s folder needs (as `mkdir -p`), for a job file that names a tree of outputs.
    /// Returns the folders it made, outermost first; refuses a path whose parent is a file.
    static func makeFolders(for path: String) throws(MixWriteError) -> [String] {
        var missing: [String] = []
        var folder = OutputFile.folder(of: path)
        var st = stat()
        while stat(folder, &st) != 0 {
            missing.insert(folder, at: 0)
            let parent = OutputFile.folder(of: folder)
            if parent == folder { break }
            folder = parent
        }
        // The nearest folder that exists must be a folder.
        if (st.st_mode & S_IFMT) != S_IFDIR { throw .output(file: path, "cannot make its folder: \(folder) is a file") }
        for f in missing where mkdir(f, 0o777) != 0 && errno != EEXIST {
            throw .output(file: path, "cannot make the folder \(f): \(String(cString: strerror(errno)).lowercased())")
        }
        return missing
    }

    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let f = String(path[..<slash])
        return f.isEmpty ? "/" : f
    }

    /// Same file by path or by device and inode (hard links, `./a` and `a`).
    static func sameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return a == b }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    /// Writes `bytes` to the temporary file, then commits it, the output claimed meanwhile.
    func write(_ bytes: [UInt8]) throws(MixWriteError) {
        let claim = try OutputClaim.take(path)
        defer { claim.release() }
        let fd = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw .output(file: path, String(cString: strerror(errno)).lowercased()) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n <= 0 {
                let e = errno
                close(fd)
                discard()
                throw .output(file: path, e == ENOSPC ? "no space left on device" : String(cString: strerror(e)).lowercased())
            }
            offset += n
        }
        close(fd)
        try commit()
    }

    /// Makes the finished temporary file durable and puts it in place.
    func commit() throws(MixWriteError) {
        let fd = open(temporaryPath, O_RDONLY)
        if fd >= 0 {
            let synced = fsync(fd)
            let e = errno
            close(fd)
            if synced != 0 {
                discard()
                throw .output(file: path, String(cString: strerror(e)).lowercased())
            }
        }
        if !overwrite {
            // Put in place only if nothing is there: a file that appeared while the job ran (another program wrote
            // it) is kept. A hard link fails if OUT exists; a file system without them is checked, then renamed.
            if link(temporaryPath, path) == 0 {
                unlink(temporaryPath)
                return
            }
            var st = stat()
            if errno == EEXIST || lstat(path, &st) == 0 {
                discard()
                throw .output(file: path, "appeared while this job was writing it (another program wrote it): it is kept and this job's "
                              + "output discarded; use -y to replace it")
            }
        }
        if rename(temporaryPath, path) != 0 {
            let e = errno
            discard()
            throw .output(file: path, "cannot be replaced: " + String(cString: strerror(e)).lowercased())
        }
    }

    /// Removes the temporary file after a failure.
    func discard() {
        unlink(temporaryPath)
    }
}

/// Which codecs each container holds (as Debian's FFmpeg 5.1 muxes them without experimental flags), and its
/// defaults: H.264 + AAC, a `.webm` VP9 + Opus.
extension OutputFile.Container {
    var videoCodecs: [VideoCodec] {
        switch self {
        case .mov: [.h264, .hevc, .prores]
        case .mp4: [.h264, .hevc, .av1, .vp9]
        case .matroska: VideoCodec.allCases
        case .webm: [.vp9, .av1]
        case .png, .json, .otio: []
        }
    }

    var audioCodecs: [AudioCodec] {
        switch self {
        case .mov: [.aac, .pcm]
        case .mp4: [.aac, .opus]
        case .matroska: AudioCodec.allCases
        case .webm: [.opus]
        case .png, .json, .otio: []
        }
    }

    var defaultVideo: VideoCodec { self == .webm ? .vp9 : .h264 }
    var defaultAudio: AudioCodec { self == .webm ? .opus : .aac }

    /// How a user names it.
    var extensionName: String {
        switch self {
        case .matroska: ".mkv"
        default: "." + rawValue
        }
    }

    static let movies: [OutputFile.Container] = [.mov, .mp4, .matroska, .webm]

    /// The codecs asked for (nil: this container's default), or why this container cannot hold them, naming the
    /// containers that can (`opus in .mov: use .mp4, .mkv or .webm`).
    func codecs(video: VideoCodec?, audio: AudioCodec?) throws(MixWriteError) -> (video: VideoCodec, audio: AudioCodec) {
        let (v, a) = (video ?? defaultVideo, audio ?? defaultAudio)
        func refuse(_ name: String, _ holders: [OutputFile.Container]) -> MixWriteError {
            let names = holders.map(\.extensionName)
            let list = names.count > 1 ? names.dropLast().joined(separator: ", ") + " or " + names.last! : names.joined()
            return .usage("\(name) in \(extensionName): use \(list)")
        }
        if !videoCodecs.contains(v) { throw refuse(v.rawValue, Self.movies.filter { $0.videoCodecs.contains(v) }) }
        if !audioCodecs.contains(a) { throw refuse(a.rawValue, Self.movies.filter { $0.audioCodecs.contains(a) }) }
        return (v, a)
    }
}
