import Foundation

/// HTTP as a hostile or careless client speaks it: bytes on a TCP socket, any Host, any header, any size.
/// The tuning page's tests use it so that nothing (no URLSession) fixes a request up on the way.
public enum RawHTTP {
    public struct Response: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: Data
        public var text: String { String(decoding: body, as: UTF8.self) }
        /// The body as a JSON object (empty when it is not one).
        public var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    }

    /// Sends `request` (the whole text, CRLF line ends; `body` after it) to 127.0.0.1:`port` and reads the
    /// answer to the end (the request should say `Connection: close`). Gives up after `timeout` seconds.
    public static func send(port: Int, _ request: String, body: Data = Data(), timeout: Double = 30) throws -> Response {
        let connection = try RawConnection(port: port, timeout: timeout)
        var bytes = Data(request.utf8)
        bytes.append(body)
        // The server may answer (413) and close before it has read everything: that is an answer too.
        connection.send(bytes)
        return try parse(connection.readToEnd())
    }

    /// A GET with the usual headers; `host` nil sends the served address.
    public static func get(port: Int, _ target: String, host: String? = nil, extra: [String] = []) throws -> Response {
        let lines = ["GET \(target) HTTP/1.1", "Host: \(host ?? "127.0.0.1:\(port)")", "Connection: close"] + extra
        return try send(port: port, lines.joined(separator: "\r\n") + "\r\n\r\n")
    }

    /// A POST of `json`; `origin` nil sends none.
    public static func post(port: Int, _ target: String, json: String, origin: String?, host: String? = nil) throws -> Response {
        var lines = ["POST \(target) HTTP/1.1", "Host: \(host ?? "127.0.0.1:\(port)")", "Connection: close",
                     "Content-Type: application/json", "Content-Length: \(json.utf8.count)"]
        if let origin { lines.append("Origin: \(origin)") }
        return try send(port: port, lines.joined(separator: "\r\n") + "\r\n\r\n", body: Data(json.utf8))
    }

    /// A TCP port nothing listens on now: the one the kernel picks for a socket bound to port 0.
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw OracleError("socket: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = INADDR_ANY
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p -> Bool in
                bind(fd, p, length) == 0 && getsockname(fd, p, &length) == 0
            }
        }
        guard bound else { throw OracleError("bind: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    public static func parse(_ data: Data) throws -> Response {
        guard let end = data.range(of: Data("\r\n\r\n".utf8)) else {
            throw OracleError("no HTTP answer (\(data.count) bytes)")
        }
        let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusLine = head.first?.split(separator: " ") ?? []
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw OracleError("bad status line: \(head.first ?? "")") }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Data(data[end.upperBound...])
        if let length = headers["content-length"].flatMap(Int.init), body.count > length { body = body.prefix(length) }
        return Response(status: status, headers: headers, body: body)
    }
}

/// One TCP connection to 127.0.0.1, spoken to byte by byte: for peers that send part of a request, or nothing.
public final class RawConnection: Sendable {
    public let fd: Int32

    /// Connects; every send and receive gives up after `timeout` seconds.
    public init(port: Int, timeout: Double = 30) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw OracleError("socket: errno \(errno)") }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int(timeout.truncatingRemainder(dividingBy: 1) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            throw OracleError("connect to port \(port): errno \(errno)")
        }
    }

    /// Sends what it can; false when the peer stopped taking bytes (closed, reset, or the timeout).
    @discardableResult
    public func send(_ bytes: Data) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }

    @discardableResult
    public func send(_ text: String) -> Bool { send(Data(text.utf8)) }

    /// What arrives until the peer closes (or resets, or the timeout passes).
    public func readToEnd() -> Data {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            received.append(contentsOf: buffer[0..<n])
        }
        return received
    }

    /// Whether the peer has closed: a read that ends the stream (0, or a reset), not a timeout.
    public func waitForClose() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n == 0 { return true }
            if n < 0 { return errno == ECONNRESET }
        }
    }

    deinit { Glibc.close(fd) }
}

/// `mixwrite tune` running in the background: its page's address, port and token, and a way to stop it.
public final class TuneProcess {
    public let process = Process()
    public let url: String
    public let port: Int
    public let token: String
    /// Its stderr goes to a file, not a pipe: a pipe's end can outlive the process (a sanitizer's symbolizer
    /// inherits it), and reading it to its end would then wait for ever.
    private let errorsPath = NSTemporaryDirectory() + "mixwrite-tune-stderr-\(UUID().uuidString).txt"
    private var errorsText: String { Self.text(of: errorsPath) }
    private static func text(of path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    /// `mixwrite tune` on the fixtures (fx.mov over base.mov) into `output` (by default `tuned.mov` in a scratch
    /// folder named `scratch`), with `extra` options.
    public static func fixtures(_ extra: [String] = [], output: String? = nil, scratch: String = "tune") throws -> TuneProcess {
        let out = try output ?? (Oracle.scratch(scratch) + "/tuned.mov")
        return try TuneProcess([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", out] + extra)
    }

    /// Starts `mixwrite tune arguments…` and waits (at most 60 s) for the address it prints.
    public convenience init(_ arguments: [String]) throws { try self.init(command: ["tune"] + arguments) }

    /// Starts `mixwrite arguments…` (a command with `--tune`) and waits (at most 60 s) for the address it prints.
    public init(command arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: Oracle.mixwrite)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        _ = FileManager.default.createFile(atPath: errorsPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: errorsPath)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var line = Data()
        let deadline = Date().addingTimeInterval(60)
        while !line.contains(UInt8(ascii: "\n")) {
            guard process.isRunning, Date() < deadline else {
                process.terminate()
                throw OracleError("mixwrite tune printed no address: \(Self.text(of: errorsPath))")
            }
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { usleep(20_000) } else { line.append(chunk) }
        }
        url = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let components = URLComponents(string: url), let p = components.port,
              let t = components.queryItems?.first(where: { $0.name == "token" })?.value else {
            throw OracleError("not an address with a token: \(url)")
        }
        (port, token) = (p, t)
    }

    /// The exit status once `stop` has seen the process end.
    private var exitStatus: Int32?

    /// Sends `signal` and waits (at most 30 s, then SIGKILL) for the exit: its status (the signal's number when a
    /// signal ended it, as Foundation gives it) and what it wrote on stderr. The child is reaped here with
    /// `waitpid`: Foundation's own notice of its exit was seen lost under AddressSanitizer (a zombie, and
    /// `waitUntilExit` waiting for ever).
    @discardableResult
    public func stop(_ signal: Int32 = SIGINT) -> (status: Int32, stderr: String) {
        if exitStatus == nil {
            kill(process.processIdentifier, signal)
            exitStatus = reap(within: 30) ?? {
                kill(process.processIdentifier, SIGKILL)
                return reap(within: 10) ?? -1
            }()
        }
        let text = errorsText
        // A sanitizer's report is the server's: shown in the test's log (the test's own checks see the exit).
        if text.contains("Sanitizer") { print("mixwrite tune's stderr:\n\(text)") }
        return (exitStatus ?? -1, text)
    }

    /// Waits for the child to end, reaping it, and gives its status; nil if it has not ended in time.
    private func reap(within seconds: Double) -> Int32? {
        let pid = process.processIdentifier
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            var status: Int32 = 0
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid { return status & 0x7F == 0 ? (status >> 8) & 0xFF : status & 0x7F }
            // Foundation reaped it first: its status is there once it has noticed.
            if r < 0 && errno == ECHILD && !process.isRunning { return process.terminationStatus }
            usleep(20_000)
        }
        return nil
    }

    deinit {
        // Not once reaped here: its number may be another process's by now.
        if exitStatus == nil && process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(atPath: errorsPath)
    }
}
