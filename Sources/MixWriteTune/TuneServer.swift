import FlyingFox
import Foundation
import MixWrite
import Synchronization

/// `mixwrite tune`'s web server: the page and its API on one address, every request checked first (`admit`).
///
/// Security, as for any server on a shared machine: a random token in every request; the Host header must
/// name the served address (a DNS-rebinding page has its own host name there), and a write (POST) must come
/// with an Origin of that address; the client never names a path (only the inputs and the output of the
/// command line are ever read or written); parameters are checked (400 with a message); a body over 64 KB
/// is refused unread (413).
public final class TuneServer: Sendable {
    private let session: TuneSession
    private let server: HTTPServer
    private let token: String
    private let host: String
    /// The port bound, known once the server listens (the Host check needs it).
    private let port: Port

    /// Opens the job's inputs (a bad one fails here, before anything listens) and binds `listen`:`port`
    /// (port 0: a free one).
    public init(job: BlendJob, listen: String = "127.0.0.1", port: UInt16 = 0) async throws {
        session = try TuneSession(job: job)
        var bytes = [UInt8](repeating: 0, count: 24)
        for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255) }
        token = bytes.map { String(format: "%02x", $0) }.joined()
        host = listen
        self.port = Port()
        let address = try sockaddr_in.inet(ip4: listen, port: port)
        server = HTTPServer(config: .init(address: address, timeout: 30, logger: .disabled))
        await server.appendRoute("*") { [session, token, host, port = self.port] request in
            await TuneServer.respond(to: request, session: session, token: token, authority: "\(host):\(port.value.load(ordering: .acquiring))")
        }
    }

    /// Serves until the task is cancelled; `ready` gets the page's address (with its token) once it listens.
    public func run(ready: @escaping @Sendable (String) -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.server.run() }
            try await server.waitUntilListening()
            guard case let .ip4(_, bound)? = await server.listeningAddress else { throw CancellationError() }
            port.value.store(bound, ordering: .releasing)
            ready("http://\(host):\(bound)/?token=\(token)")
            try await group.next()
        }
    }

    /// Stops the server and any render in progress.
    public func stop() async {
        await session.stop()
        await server.stop(timeout: 1)
    }

    static let bodyLimit = 64 * 1024

    /// Checks a request, then routes it.
    static func respond(to request: HTTPRequest, session: TuneSession, token: String, authority: String) async -> HTTPResponse {
        do {
            try admit(request, token: token, authority: authority)
            return try await route(request, session: session)
        } catch let e as RequestError {
            return error(e)
        } catch {
            return Self.error(.failed("\(error)"))
        }
    }

    /// Token, Host, Origin (for writes) and size, before anything else is read.
    static func admit(_ request: HTTPRequest, token: String, authority: String) throws(RequestError) {
        guard let given = request.query.first(where: { $0.name == "token" })?.value ?? request.headers[HTTPHeader("X-Mixwrite-Token")],
              constantTimeEqual(given, token) else {
            throw .forbidden("a valid token is needed (the address mixwrite tune printed)")
        }
        guard let h = request.headers[.host], h == authority || h == authority.replacingOccurrences(of: "127.0.0.1", with: "localhost") else {
            throw .forbidden("Host must be \(authority)")
        }
        if request.method != .GET && request.method != .HEAD {
            guard let origin = request.headers[HTTPHeader("Origin")], origin == "http://\(h)" else {
                throw .forbidden("a write needs Origin http://\(h)")
            }
        }
        if let length = request.headers[.contentLength].flatMap(Int.init), length > bodyLimit { throw .tooLarge }
        if request.headers[.transferEncoding] != nil { throw .tooLarge }
    }

    static func route(_ request: HTTPRequest, session: TuneSession) async throws -> HTTPResponse {
        let query = Dictionary(request.query.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        switch (request.method, request.path) {
        case (.GET, "/"):
            return HTTPResponse(statusCode: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                                body: Data(Page.html.utf8))
        case (.GET, "/api/info"):
            return try json(await session.info())
        case (.GET, "/api/picture"):
            let settings = try await settings(from: query, session: session)
            guard let view = BlendPreview.View(rawValue: query["view"] ?? "composite") else {
                throw RequestError.bad("view must be one of \(BlendPreview.View.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let jpeg = try await session.picture(at: try number(query, "t"), settings: settings, view: view)
            return HTTPResponse(statusCode: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "no-store"], body: Data(jpeg))
        case (.GET, "/api/pick"):
            let hex = try await session.pick(at: try number(query, "t"), x: Int(try number(query, "x")), y: Int(try number(query, "y")))
            return try json(["keyColor": hex])
        case (.GET, "/api/loudness"):
            return try json(await session.trackLoudness())
        case (.POST, "/api/command"):
            let settings = try await body(request, session: session)
            let job = settings.applied(to: session.job)
            return try json(["command": job.commandLine, "job": job.jobEntry])
        case (.POST, "/api/render"):
            let settings = try await body(request, session: session)
            let overwrite = query["overwrite"] == "1"
            return try json(await session.startRender(settings, overwrite: overwrite), status: .accepted)
        case (.GET, "/api/render"):
            return try json(await session.renderState())
        case (.POST, "/api/audition"):
            let settings = try await body(request, session: session)
            let movie = try await session.audition(at: try number(query, "t"), settings: settings)
            return HTTPResponse(statusCode: .ok, headers: [.contentType: "video/mp4", .cacheControl: "no-store"], body: Data(movie))
        case (_, "/"), (_, "/api/info"), (_, "/api/picture"), (_, "/api/pick"), (_, "/api/loudness"), (_, "/api/command"),
             (_, "/api/render"), (_, "/api/audition"):
            return HTTPResponse(statusCode: .methodNotAllowed, headers: [.contentType: "application/json"],
                                body: Data(#"{"error": "method not allowed"}"#.utf8))
        default:
            throw RequestError.notFound
        }
    }

    /// The key settings of a picture request: the job's, with what the query changes.
    static func settings(from query: [String: String], session: TuneSession) async throws(RequestError) -> TuneSettings {
        var s = session.initial
        if let k = query["key"] { s.keyColor = k }
        if query["threshold"] != nil { s.threshold = try number(query, "threshold") }
        if query["smoothing"] != nil { s.smoothing = try number(query, "smoothing") }
        if let d = query["despill"] { s.despill = d == "1" || d == "true" }
        return try s.validated(for: session.job, names: session.names)
    }

    static func body(_ request: HTTPRequest, session: TuneSession) async throws -> TuneSettings {
        let data = try await request.bodyData
        guard data.count <= bodyLimit else { throw RequestError.tooLarge }
        let settings: TuneSettings
        do { settings = try JSONDecoder().decode(TuneSettings.self, from: data) } catch {
            throw RequestError.bad("the body must be the page's settings as JSON")
        }
        return try settings.validated(for: session.job, names: session.names)
    }

    static func number(_ query: [String: String], _ name: String) throws(RequestError) -> Double {
        guard let text = query[name], let x = Double(text), x.isFinite else { throw .bad("\(name) must be a number") }
        return x
    }

    static func json(_ value: some Encodable, status: HTTPStatusCode = .ok) throws -> HTTPResponse {
        HTTPResponse(statusCode: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                     body: try JSONEncoder().encode(value))
    }

    static func json(_ object: [String: Any]) throws -> HTTPResponse {
        HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                     body: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }

    static func error(_ e: RequestError) -> HTTPResponse {
        let (status, message): (HTTPStatusCode, String)
        switch e {
        case .bad(let m): (status, message) = (.badRequest, m)
        case .forbidden(let m): (status, message) = (.forbidden, m)
        case .notFound: (status, message) = (.notFound, "no such page")
        case .tooLarge: (status, message) = (.payloadTooLarge, "the request is too large (at most 64 KB, no chunked bodies)")
        case .conflict(let m): (status, message) = (.conflict, m)
        case .failed(let m): (status, message) = (.internalServerError, m)
        }
        let body = (try? JSONSerialization.data(withJSONObject: ["error": message])) ?? Data()
        return HTTPResponse(statusCode: status, headers: [.contentType: "application/json", .connection: "close"], body: body)
    }

    /// Compares without stopping at the first difference, so timing tells nothing of the token.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// The port the server got, set once it listens (before the address is printed, so before any request).
final class Port: Sendable {
    let value = Atomic<UInt16>(0)
}
