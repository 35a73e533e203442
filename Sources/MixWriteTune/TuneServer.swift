import Foundation
import HTTPTypes
import HummingbirdCore
import Logging
@_spi(Tools) import MixWrite
import NIOCore
import NIOPosix
import Synchronization

/// `mixwrite tune`'s web server: the page and its API on one address, every request checked first.
///
/// Security, as for any server on a shared machine, where anyone may connect: swift-nio's HTTP/1 parser with the
/// limits of `HTTPLimits` (headers ≤ 16 KB, bodies ≤ 64 KB refused on their Content-Length, a whole request
/// within 10 s of waiting for it, 64 connections) and `RequestGuard`'s strict framing (one Host, Origin and
/// Content-Length; no Transfer-Encoding; no target naming another host); then a random token in every request;
/// the Host header must name the served address (a DNS-rebinding page has its own host name there), and a write
/// (POST) must come with an Origin of that address; the client never names a path (only the inputs and the
/// output of the command line are ever read or written); every parameter is checked, numbers for being finite
/// and in range before any conversion (400 with a message).
public final class TuneServer: Sendable {
    private let session: TuneSession
    private let token: String
    private let host: String
    private let requestedPort: Int
    /// The port bound, known once the server listens (the Host check needs it).
    private let port = Port()
    private let limits = HTTPLimits()

    /// The page of a job whose kind has one (a `TunableJob`). Opens the job's inputs (a bad one
    /// fails here, before anything listens); `run` binds `listen`:`port` (port 0: a free one).
    public convenience init(job: any MixJob, listen: String = "127.0.0.1", port: UInt16 = 0) async throws {
        guard let tunable = job as? any TunableJob else { throw MixWriteError.usage("a \(job.kind) job has no tuning page") }
        try await self.init(tunable, listen: listen, port: port)
    }

    /// The page of any job whose kind has one; nil for the others (a key layer).
    public static func page(for job: any MixJob, listen: String = "127.0.0.1", port: UInt16 = 0) async throws -> TuneServer? {
        guard let tunable = job as? any TunableJob else { return nil }
        return try await TuneServer(tunable, listen: listen, port: port)
    }

    /// Whether jobs of this kind have a page.
    public static func hasPage(_ kind: any MixJob.Type) -> Bool { kind is any TunableJob.Type }

    private init(_ job: any TunableJob, listen: String, port: UInt16) async throws {
        session = try TuneSession(job: job)
        var bytes = [UInt8](repeating: 0, count: 24)
        for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255) }
        token = bytes.map { String(format: "%02x", $0) }.joined()
        host = listen
        requestedPort = Int(port)
    }

    /// Serves until the task is cancelled; `ready` gets the page's address (with its token) once it listens.
    /// Cancelling also stops a render or an audition in progress.
    public func run(ready: @escaping @Sendable (String) -> Void) async throws {
        let (session, token, host, port) = (self.session, self.token, self.host, self.port)
        let channel = TuneChannel(responder: { request, writer, _ in
            let reply = await TuneServer.respond(to: request, session: session, token: token,
                                                 authority: "\(host):\(port.value.load(ordering: .acquiring))")
            // HEAD: the GET's status and headers (its Content-Length too), no body.
            let body = request.method == .head ? [] : reply.body
            try await writer.write(response: reply.head, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        }, limits: limits)
        let server = Server(
            childChannelSetup: channel, configuration: ServerConfiguration(address: .hostname(host, port: requestedPort)),
            onServerRunning: { listening in
                let bound = UInt16(listening.localAddress?.port ?? 0)
                port.value.store(bound, ordering: .releasing)
                ready("http://\(host):\(bound)/?token=\(token)")
            },
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: Logger(label: "mixwrite.tune", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await withTaskCancellationHandler {
            try await server.run()
        } onCancel: {
            Task { await session.stop() }
        }
        try Task.checkCancellation()
    }

    /// Stops any render or audition in progress and waits for it.
    public func stop() async {
        await session.stop()
    }

    /// An answer: status, content type, body; `Cache-Control: no-store` on all.
    struct Reply: Sendable {
        var status: HTTPResponse.Status
        var contentType: String
        var body: [UInt8]

        var head: HTTPResponse {
            HTTPResponse(status: status, headerFields: [.contentType: contentType, .contentLength: String(body.count),
                                                        .cacheControl: "no-store"])
        }
    }

    /// Checks a request, then routes it.
    static func respond(to request: Request, session: TuneSession, token: String, authority: String) async -> Reply {
        do {
            let query = try parameters(request.uri.query ?? "")
            try admit(request, query: query, token: token, authority: authority)
            return try await route(request, method: request.method == .head ? .get : request.method, query: query, session: session)
        } catch let e as RequestError {
            return error(e)
        } catch {
            return Self.error(.failed("\(error)"))
        }
    }

    /// Token, Host and Origin (for writes), before anything else is read. The page's style and modules need no
    /// token (the same bytes for everyone; a module's `import` carries no query), the Host check still.
    static func admit(_ request: Request, query: [String: String], token: String, authority: String) throws(RequestError) {
        let asset = Page.isAsset(request.uri.path) && (request.method == .get || request.method == .head)
        guard asset || (query["token"] ?? request.headers[HTTPField.Name("X-Mixwrite-Token")!]).map({ constantTimeEqual($0, token) }) == true else {
            throw .forbidden("a valid token is needed (the address mixwrite tune printed)")
        }
        guard let h = request.head.authority, h == authority || h == authority.replacingOccurrences(of: "127.0.0.1", with: "localhost") else {
            throw .forbidden("Host must be \(authority)")
        }
        if request.method != .get && request.method != .head {
            guard let origin = request.headers[HTTPField.Name("Origin")!], origin == "http://\(h)" else {
                throw .forbidden("a write needs Origin http://\(h)")
            }
        }
    }

    /// The query's parameters, percent-decoded; a name given twice is refused (which one would count?).
    static func parameters(_ query: String) throws(RequestError) -> [String: String] {
        var result: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = parts[0].replacingOccurrences(of: "+", with: " ").removingPercentEncoding,
                  let value = (parts.count > 1 ? String(parts[1]) : "").replacingOccurrences(of: "+", with: " ").removingPercentEncoding else {
                throw .bad("the query is not percent-encoded text")
            }
            guard result[name] == nil else { throw .bad("the parameter \(name) is given twice") }
            result[name] = value
        }
        return result
    }

    /// Routes `request` as `method` (a HEAD as its GET).
    static func route(_ request: Request, method: HTTPRequest.Method, query: [String: String], session: TuneSession) async throws -> Reply {
        switch (method, request.uri.path) {
        case (.get, let path) where Page.file(path) != nil:
            let file = Page.file(path)!
            return Reply(status: .ok, contentType: file.type, body: file.bytes)
        case (.get, "/api/info"):
            return try json(await session.info(try await settings(from: query, session: session)))
        case (.get, "/api/options"):
            // The options the page draws controls for, as the job file's schema describes them (type, range, default, help).
            // `job`: every option of the job's kind (the frame's and the mix's controls are made from it).
            let body = #"{"key": \#(KeySettings.optionSchema), "layer": \#(LayerPlacement.optionSchema), "job": \#(session.optionSchema)}"#
            return Reply(status: .ok, contentType: "application/json", body: Array(body.utf8))
        case (.get, "/api/picture"):
            let settings = try await settings(from: query, session: session)
            let jpeg = try await session.picture(at: try number(query, "t"), settings: settings, query: query)
            return Reply(status: .ok, contentType: "image/jpeg", body: jpeg)
        case (.get, "/api/pick"):
            let hex = try await session.pick(at: try number(query, "t"), x: try number(query, "x"), y: try number(query, "y"))
            return try json(["key-color": hex])
        case (.get, "/api/screen"):
            let layer = try number(query, "layer")
            guard layer >= 0, layer == layer.rounded() else { throw RequestError.bad("layer must be a whole number from 0") }
            let settings = try await settings(from: query, session: session)
            return try json(["key-color": try await session.screenColor(layer: Int(layer), settings: settings)])
        case (.post, "/api/plate"):
            return try json(["clean-plate": try await session.plate(at: try number(query, "t"))])
        case (.get, "/api/loudness"):
            return try json(await session.trackLoudness())
        case (.post, "/api/command"):
            let (command, job) = try await session.command(try await body(request, session: session))
            return try json(["command": command, "job": job])
        case (.post, "/api/render"):
            let settings = try await body(request, session: session)
            let overwrite = query["overwrite"] == "1"
            return try json(await session.startRender(settings, overwrite: overwrite), status: .accepted)
        case (.get, "/api/render"):
            return try json(await session.renderState())
        case (.post, "/api/audition"):
            let settings = try await body(request, session: session)
            let (movie, type) = try await session.audition(at: try number(query, "t"), settings: settings)
            return Reply(status: .ok, contentType: type, body: movie)
        case (_, let path) where Page.file(path) != nil:
            return Reply(status: .methodNotAllowed, contentType: "application/json", body: Array(#"{"error": "method not allowed"}"#.utf8))
        case (_, "/api/info"), (_, "/api/options"), (_, "/api/picture"), (_, "/api/pick"), (_, "/api/screen"), (_, "/api/plate"), (_, "/api/loudness"), (_, "/api/command"),
             (_, "/api/render"), (_, "/api/audition"):
            return Reply(status: .methodNotAllowed, contentType: "application/json", body: Array(#"{"error": "method not allowed"}"#.utf8))
        default:
            throw RequestError.notFound
        }
    }

    /// The picture settings of a request (the key; a concat's clips and frame; a still's frame; the captions): the
    /// job's, with what the query changes. `clips` is a comma-separated list of the clips' places on the command line.
    static func settings(from query: [String: String], session: TuneSession) async throws(RequestError) -> TuneSettings {
        var s = await session.initial
        if let text = query["key"] {
            // The key as the settings write it: a job file's key options (`{"key-color": "00FF00", "threshold": 0.3}`).
            s.key = try key(text, "key must be a JSON object of the key's options, as a job file writes them")
        }
        if let c = query["clips"] {
            let places = c.isEmpty ? [] : c.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
            guard c.count <= 4096, places.allSatisfy({ $0 != nil }) else { throw .bad("clips must be numbers separated by commas") }
            s.clips = places.compactMap { $0 }
        }
        if let t = query["transitions"] {
            guard t.count <= 4096 else { throw .bad("transitions must be KIND[:SECONDS]s separated by commas") }
            s.transitions = t.isEmpty ? [] : t.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        if let text = query["retimes"] {
            // Each clip's own time, by its place on the command line: a JSON array of strings.
            guard text.count <= 65_536, let times = try? JSONDecoder().decode([String].self, from: Data(text.utf8)) else {
                throw .bad("retimes must be a JSON array of each clip's own time (\"speed=0.5\", \"reverse\", \"\")")
            }
            s.retimes = times
        }
        for (name, path) in [("fit", \TuneSettings.fit), ("size", \.size), ("fps", \.fps), ("background", \.background)] {
            if let v = query[name] { s[keyPath: path] = v }
        }
        if let text = query["layerKeys"] {
            // The other layers' keys, each as the FX's.
            s.layerKeys = try key(text, "layerKeys must be a JSON array of keys, each a job file's key options")
        }
        if let text = query["captions"] {
            // The command line's caption files kept, as the settings write them: a JSON array of {index, lang, title}.
            do { s.captions = try JSONDecoder().decode([TuneSettings.CaptionChoice].self, from: Data(text.utf8)) } catch {
                throw .bad("captions must be a JSON array of {\"index\", \"lang\", \"title\"}")
            }
        }
        if let burn = query["burn-captions"] {
            guard burn == "0" || burn == "1" else { throw .bad("burn-captions must be 0 or 1") }
            s.burnCaptions = burn == "1"
        }
        if let text = query["layers"] {
            // A blend's layers as the settings write them: a JSON array of {at, in, out, place, opacity}.
            do { s.layers = try JSONDecoder().decode([LayerPlacement].self, from: Data(text.utf8)) } catch {
                throw .bad("layers must be a JSON array of {\"at\", \"in\", \"out\", \"place\", \"opacity\"}")
            }
        }
        return try await session.validated(s)
    }

    /// A key (or keys) read by the key's options, the job file's reader: what it refuses is said with the option's
    /// name (`'threshold' must be a number`); JSON that is no object, with `what`.
    static func key<T: Decodable>(_ text: String, _ what: String) throws(RequestError) -> T {
        do { return try JSONDecoder().decode(T.self, from: Data(text.utf8)) } catch is DecodingError { throw .bad(what) } catch {
            throw .bad("\(error)")
        }
    }

    static func body(_ request: Request, session: TuneSession) async throws -> TuneSettings {
        // RequestGuard refused a larger Content-Length and any other framing before the body was read.
        var request = request
        let data = try await request.collectBody(upTo: HTTPLimits().bodyBytes)
        let settings: TuneSettings
        let decoder = JSONDecoder()
        do { settings = try decoder.decode(TuneSettings.self, from: Data(data.readableBytesView)) } catch is DecodingError {
            throw RequestError.bad("the body must be the page's settings as JSON")
        } catch {
            throw RequestError.bad("\(error)")   // a key's option refused by its reader, named
        }
        return try await session.validated(settings)
    }

    /// A number parameter: finite, and within ±1e9 (every parameter's own range is checked where it is used,
    /// on the Double, before any conversion to an integer).
    static func number(_ query: [String: String], _ name: String) throws(RequestError) -> Double {
        guard let text = query[name], let x = Double(text), x.isFinite, abs(x) <= 1e9 else { throw .bad("\(name) must be a number") }
        return x
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Reply {
        Reply(status: status, contentType: "application/json", body: Array(try JSONEncoder().encode(value)))
    }

    static func json(_ object: [String: Any]) throws -> Reply {
        Reply(status: .ok, contentType: "application/json",
              body: Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])))
    }

    static func error(_ e: RequestError) -> Reply {
        let (status, message): (HTTPResponse.Status, String)
        switch e {
        case .bad(let m): (status, message) = (.badRequest, m)
        case .forbidden(let m): (status, message) = (.forbidden, m)
        case .notFound: (status, message) = (.notFound, "no such page")
        case .conflict(let m): (status, message) = (.conflict, m)
        case .failed(let m): (status, message) = (.internalServerError, m)
        }
        let body = (try? JSONSerialization.data(withJSONObject: ["error": message])) ?? Data()
        return Reply(status: status, contentType: "application/json", body: Array(body))
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
