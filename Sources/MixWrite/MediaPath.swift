import Synchronization

/// The names media are shown by where the URL FFmpeg reads is not the file's path (a bundle's medium: `subfile,…`).
enum MediaPath {
    private static let names = Mutex<[String: String]>([:])

    static func name(_ url: String, _ shown: String) { names.withLock { $0[url] = shown } }

    /// `path` as a message or a report shows it.
    static func shown(_ path: String) -> String {
        path.hasPrefix("subfile,") ? names.withLock { $0[path] } ?? path : path
    }

    /// The file to check for `path` (a bundle's medium: the bundle).
    static func file(_ path: String) -> String {
        guard path.hasPrefix("subfile,"), let r = path.range(of: ",,:") else { return path }
        return String(path[r.upperBound...])
    }
}
