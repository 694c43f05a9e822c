import Hummingbird
import NIOCore
import NIOHTTPTypes
import RecCore
import RecSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Every request's first check: its Host must name this server (an IP address, `localhost`,
/// or a `--host` name). A page served from a name made to resolve to this machine (DNS
/// rebinding) is same-origin with the server, so without this check it could read the whole
/// library; a browser always sends the Host it thinks it talks to, and a request without one is
/// refused too. Before the token check: a refused Host learns nothing about the token.
struct HostMiddleware: RouterMiddleware {
    typealias Context = ServeContext
    let access: Access
    let refused: RefusedHosts

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let host = request.head.authority, access.answers(toHost: host) else {
            refused.note(request.head.authority ?? "")
            return Server.error(
                .forbidden, "this server answers to its address, localhost or a --host name, not to another name")
        }
        return try await next(request, context)
    }
}

/// The Host names refused so far, each said once on stderr (a rebinding page asks again and
/// again): at most `kept` of them, then one line saying that further ones are not said.
final class RefusedHosts: Sendable {
    private let seen = Mutex(Set<String>())
    static let kept = 256

    func note(_ host: String) {
        // What a client sent, shown as printable ASCII and cut short.
        let shown = String(
            decoding: host.utf8.prefix(200).map { (0x20..<0x7F).contains($0) ? $0 : UInt8(ascii: "?") },
            as: UTF8.self)
        let line: String? = seen.withLock { seen in
            if seen.contains(shown) || seen.count > Self.kept { return nil }
            seen.insert(shown)
            if seen.count > Self.kept { return "serve: more refused Host names; no more are logged" }
            return "serve: refused requests for Host '\(shown)': not an address, localhost or a --host name"
        }
        if let line { try? System.writeAll(STDERR_FILENO, Array(("recnotes: " + line + "\n").utf8)) }
    }
}

/// What a request the routes threw out of becomes: one JSON line, as every other refusal
/// (Hummingbird's own answers, an unknown route's 404 or a body over its limit's 413, have
/// an empty body). An unknown page is a small HTML page, since a person sees it.
struct RefusalMiddleware: RouterMiddleware {
    typealias Context = ServeContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            return Self.refusal(error.status, request)
        } catch {
            return Server.error(.internalServerError, "\(request.method) \(request.uri.path): \(error)")
        }
    }

    static func refusal(_ status: HTTPResponse.Status, _ request: Request) -> Response {
        let response = answer(status, request)
        // HEAD: the same head, no body.
        return request.method == .head ? Response(status: response.status, headers: response.headers) : response
    }

    private static func answer(_ status: HTTPResponse.Status, _ request: Request) -> Response {
        let path = request.uri.path
        let asked = "\(request.method) \(path)"
        switch status {
        case .notFound where !path.hasPrefix("/api/") && !path.hasPrefix("/audio/"):
            return Response(
                status: .notFound, headers: [.contentType: "text/html; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: notFoundPage)))
        case .notFound:
            return Server.error(status, "\(asked): no such route")
        case .contentTooLarge:
            return Server.error(status, "\(asked): the body is too large")
        default:
            return Server.error(status, "\(asked): \(status.reasonPhrase.lowercased())")
        }
    }

    static let notFoundPage = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>Not found: recnotes</title></head>
        <body><h1>Not found</h1><p>recnotes serve has no page here. <a href="/">The library</a>.</p></body></html>

        """
}

/// The connections a server has open, so that clients that hold one without asking anything
/// (a header sent a byte at a time, a keep-alive left open) cannot take every descriptor: past
/// `limit` open connections, each new one closes the one that has waited longest without a
/// request in progress. A client that sends its request at once is then always answered,
/// however many such connections are open. (Each of them is also closed after the idle
/// timeout: Hummingbird's, which counts from the connection's start until a request's head is
/// complete, and from the end of each answer.)
final class ConnectionGuard: Sendable {
    let limit: Int
    private struct Open {
        let channel: any Channel
        /// When it began to wait (a sequence number), nil while a request is in progress.
        var waiting: UInt64?
    }
    private struct State {
        var open: [ObjectIdentifier: Open] = [:]
        var sequence: UInt64 = 0
    }
    private let state = Mutex(State())

    init(limit: Int) { self.limit = limit }

    /// How many are open now (for tests).
    var count: Int { state.withLock { $0.open.count } }

    func opened(_ channel: any Channel) {
        let closing: [any Channel] = state.withLock { state in
            state.sequence += 1
            state.open[ObjectIdentifier(channel)] = Open(channel: channel, waiting: state.sequence)
            var closing: [any Channel] = []
            while state.open.count > limit {
                // The longest wait, never the connection just made: it has had no time to ask.
                var oldest: (ObjectIdentifier, UInt64)?
                for (key, open) in state.open where key != ObjectIdentifier(channel) {
                    if let since = open.waiting, since < (oldest?.1 ?? .max) { oldest = (key, since) }
                }
                guard let (key, _) = oldest, let victim = state.open.removeValue(forKey: key) else { break }
                closing.append(victim.channel)
            }
            return closing
        }
        for channel in closing { channel.close(promise: nil) }
    }

    func closed(_ channel: any Channel) {
        _ = state.withLock { $0.open.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// `busy`: a request is in progress (its head came); else the connection waits from now.
    func set(_ channel: any Channel, busy: Bool) {
        state.withLock { state in
            guard state.open[ObjectIdentifier(channel)] != nil else { return }
            state.sequence += 1
            state.open[ObjectIdentifier(channel)]?.waiting = busy ? nil : state.sequence
        }
    }

    /// The guard's handler for one connection, in its pipeline after the HTTP decoder: it sees
    /// each request's head (decoded only once the whole header is in) and each answer's end.
    final class Handler: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPRequestPart
        typealias InboundOut = HTTPRequestPart
        typealias OutboundIn = HTTPResponsePart
        typealias OutboundOut = HTTPResponsePart

        private let connections: ConnectionGuard
        private var counted = false
        private var inProgress = 0

        init(_ connections: ConnectionGuard) { self.connections = connections }

        func handlerAdded(context: ChannelHandlerContext) {
            if context.channel.isActive { count(context.channel) }
        }

        func channelActive(context: ChannelHandlerContext) {
            count(context.channel)
            context.fireChannelActive()
        }

        private func count(_ channel: any Channel) {
            guard !counted else { return }
            counted = true
            connections.opened(channel)
        }

        func channelInactive(context: ChannelHandlerContext) {
            connections.closed(context.channel)
            context.fireChannelInactive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if case .head = unwrapInboundIn(data) {
                inProgress += 1
                if inProgress == 1 { connections.set(context.channel, busy: true) }
            }
            context.fireChannelRead(data)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if case .end = unwrapOutboundIn(data) {
                inProgress -= 1
                if inProgress == 0 { connections.set(context.channel, busy: false) }
            }
            context.write(data, promise: promise)
        }
    }
}

/// Wrong tokens by client address: after `allowed` different ones within `window`, the
/// address gets 429 for every request that offers a token, right or not (else the answer would
/// still tell a right guess), until the window has passed over those failures. The delay after
/// each wrong token slows one connection; this bounds them all together, however many a
/// guesser opens in parallel. The same wrong token again (a page's stale cookie after the
/// server made a new token) guesses nothing new and is counted once; so is a request that
/// offers none.
final class TokenFailures: Sendable {
    let allowed: Int
    let window: Duration
    private struct Failure {
        var time: ContinuousClock.Instant
        var token: String
    }
    private let failures = Mutex([String: [Failure]]())
    /// At most this many addresses remembered; past it the oldest failures are forgotten.
    static let addresses = 4096

    init(allowed: Int = 10, window: Duration = .seconds(60)) {
        self.allowed = allowed
        self.window = window
    }

    /// Whether any of `offered` is `token` (each compared in constant time), for a request
    /// from `address`, unless the address is refused now; wrong ones counted. In one lock, so
    /// that parallel requests cannot all slip past the count before any of them is counted.
    func judge(_ address: String, offered: [Substring], token: String) -> [Bool]? {
        failures.withLock { failures in
            let now = ContinuousClock.now
            var recent = failures[address] ?? []
            recent.removeAll { now - $0.time >= window }
            defer { failures[address] = recent.isEmpty ? nil : recent }
            if recent.count >= allowed { return nil }
            let right = offered.map { Access.sameToken($0, token) }
            if right.contains(true) { return right }
            if failures.count >= Self.addresses {
                failures = failures.filter { $0.value.contains { now - $0.time < window } }
                if failures.count >= Self.addresses { failures.removeAll() }
            }
            for wrong in offered {
                let kept = String(wrong.prefix(256))
                if let known = recent.firstIndex(where: { $0.token == kept }) {
                    recent[known].time = now
                } else {
                    recent.append(Failure(time: now, token: kept))
                }
            }
            return right
        }
    }
}

/// The context of each request: Hummingbird's, with the client's address (for
/// `TokenFailures`), nil in the in-process tests, which have no socket.
package struct ServeContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    package let clientAddress: String?

    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        clientAddress = source.channel.remoteAddress?.ipAddress
    }
}
