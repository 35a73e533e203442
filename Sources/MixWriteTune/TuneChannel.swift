import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import Synchronization

/// The page's limits on what a peer may send: anyone on the machine can connect, only the token holder is served.
struct HTTPLimits: Sendable {
    /// Request line and headers together (swift-nio's parser counts the target and every name and value).
    var headerBytes = 16 * 1024
    /// A body is refused on its Content-Length, before any byte of it is read.
    var bodyBytes = 64 * 1024
    /// From the moment a connection waits for a request (opened, or its last answer sent) to the request read
    /// whole: a slow (slowloris) or idle peer is closed then.
    var requestSeconds: Int64 = 10
    /// Hummingbird's own idle timeout, behind the one above.
    var idleSeconds: Int64 = 15
    /// Connections open at once; the next is answered 503 and closed. The page needs six (a browser's connections
    /// to one host); the rest is room for scripts and a second tab.
    var connections = 64
}

/// One connection of the page: swift-nio's HTTP/1 server pipeline with `limits`, then `RequestGuard` on the
/// parsed request heads, then Hummingbird's HTTP types and handling (`handleHTTP`, which answers a parse error
/// with 400 and closes).
struct TuneChannel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    let limits: HTTPLimits
    let open = ConnectionCount()

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            var decoder = NIOHTTPDecoderLimitConfiguration()
            decoder.maxHeaderFieldSize = limits.headerBytes
            decoder.maxHeaderListSize = limits.headerBytes
            decoder.maxHeaderFieldCount = 100
            let pipeline = channel.pipeline.syncOperations
            try pipeline.addHandler(ConnectionGate(count: open, limit: limits.connections))
            try pipeline.configureHTTPServerPipeline(
                withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false,
                withEncoderConfiguration: .init(), withDecoderLimitConfiguration: decoder)
            try pipeline.addHandler(RequestGuard(limits: limits))
            try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try pipeline.addHandler(HTTPConnectionStateHandler(idleTimeout: .seconds(limits.idleSeconds), logger: logger))
            return try NIOAsyncChannel(wrappingChannelSynchronously: channel,
                                       configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    func handle(value: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: value, logger: logger)
    }
}

/// The number of connections open now.
final class ConnectionCount: Sendable {
    let value = Atomic<Int>(0)
}

/// First in every connection's pipeline: counts it, and answers one over the limit with 503 and closes it.
final class ConnectionGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let count: ConnectionCount
    private let limit: Int
    private var counted = false
    private var refused = false

    init(count: ConnectionCount, limit: Int) {
        self.count = count
        self.limit = limit
    }

    func handlerAdded(context: ChannelHandlerContext) {
        counted = true
        guard count.value.add(1, ordering: .relaxed).newValue > limit else { return }
        refused = true
        let text = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: 34\r\n"
            + "Connection: close\r\n\r\n{\"error\": \"too many connections\"}\n"
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: text)), promise: nil)
        // Shut for writing, and closed a moment later: see `RequestGuard.refuse`.
        context.close(mode: .output, promise: nil)
        let channel = context.channel
        context.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !refused { context.fireChannelRead(data) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if counted { count.value.subtract(1, ordering: .relaxed) }
        counted = false
    }
}

/// Checks each request head as the parser gives it, before Hummingbird turns it into a `Request` (which keeps
/// the first Host and drops an absolute target's host): a request that is ambiguous or too large is answered
/// here and the connection closed, its body never read. Also closes a connection that has waited
/// `limits.requestSeconds` for a whole request, and one whose answer said `Connection: close`.
final class RequestGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let limits: HTTPLimits
    /// An answer was given here: what the peer sends after it is dropped.
    private var refused = false
    /// Inside a request: its head read, its end not yet.
    private var reading = false
    /// Requests read whole whose answer has not ended.
    private var unanswered = 0
    private var closeAfterAnswer = false
    private var deadline: Scheduled<Void>?

    init(limits: HTTPLimits) { self.limits = limits }

    func handlerAdded(context: ChannelHandlerContext) { if context.channel.isActive { arm(context) } }

    func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            if let (status, message) = Self.refusal(of: head, limits: limits) {
                refuse(context, status, message)
                return
            }
            reading = true
        case .body:
            break
        case .end:
            reading = false
            unanswered += 1
            deadline?.cancel()
            deadline = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            if head.headers[canonicalForm: "connection"].contains(where: { $0.lowercased() == "close" }) { closeAfterAnswer = true }
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            unanswered = max(0, unanswered - 1)
            if closeAfterAnswer {
                context.writeAndFlush(data, promise: promise)
                context.close(promise: nil)
                return
            }
            context.write(data, promise: promise)
            if unanswered == 0 && !reading { arm(context) }
        }
    }

    /// A parse error (headers over the limit, two different Content-Lengths, Content-Length with
    /// Transfer-Encoding, …): answered here, with 431 for headers too large, else 400.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // After a refusal the parser reports every byte that still arrives: dropped as the bytes are.
        if refused { return }
        guard let parse = error as? HTTPParserError else { return context.fireErrorCaught(error) }
        guard unanswered == 0 else {
            // An answer is on its way: no second one in the middle of it.
            refused = true
            context.close(promise: nil)
            return
        }
        if parse == .headerOverflow {
            refuse(context, .requestHeaderFieldsTooLarge, "the request line and headers are limited to \(limits.headerBytes / 1024) KB")
        } else {
            refuse(context, .badRequest, "malformed or ambiguous HTTP request")
        }
    }

    /// Why a request head is refused, or nil.
    static func refusal(of head: HTTPRequestHead, limits: HTTPLimits) -> (HTTPResponseStatus, String)? {
        let headers = head.headers
        let hosts = headers[canonicalForm: "host"]
        guard hosts.count == 1, let host = hosts.first else { return (.badRequest, "a request needs exactly one Host header") }
        for name in ["origin", "content-length"] where headers[name].count > 1 {
            return (.badRequest, "more than one \(name) header")
        }
        if !headers["transfer-encoding"].isEmpty {
            if !headers["content-length"].isEmpty { return (.badRequest, "Content-Length with Transfer-Encoding") }
            return (.lengthRequired, "a body needs a Content-Length (chunked bodies are not accepted)")
        }
        if let length = headers.first(name: "content-length") {
            guard let n = Int(length), n >= 0 else { return (.badRequest, "Content-Length is not a number") }
            if n > limits.bodyBytes { return (.payloadTooLarge, "the body is limited to \(limits.bodyBytes / 1024) KB") }
        }
        if !head.uri.hasPrefix("/") {
            // The absolute form (a proxy's): only naming this server, as the Host header does.
            guard head.uri.lowercased().hasPrefix("http://" + host.lowercased() + "/") else {
                return (.badRequest, "the request target must be a path on this server")
            }
        }
        return nil
    }

    private func refuse(_ context: ChannelHandlerContext, _ status: HTTPResponseStatus, _ message: String) {
        refused = true
        deadline?.cancel()
        deadline = nil
        let body = context.channel.allocator.buffer(string: #"{"error": "\#(message.replacingOccurrences(of: "\"", with: "'"))"}"#)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        headers.add(name: "Connection", value: "close")
        headers.add(name: "Cache-Control", value: "no-store")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        // A lingering close, as web servers do it: closing at once with the peer's bytes unread would send a
        // reset, which can destroy the answer before the peer reads it. So the output is shut, what still
        // arrives is read and dropped, and the connection closed a moment later (or when the peer closes).
        context.close(mode: .output, promise: nil)
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
    }

    /// Starts the wait for a whole request.
    private func arm(_ context: ChannelHandlerContext) {
        deadline?.cancel()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: .seconds(limits.requestSeconds)) { channel.close(promise: nil) }
    }
}
