import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import RecCore
import RecStore
import RecSystem
import RecValues
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The HTTP side of `recnotes serve`: routes, access and the audio stream. What each API route
/// answers is RecCore's (`LibraryAPI`); here it becomes a response.
package enum Server {
    /// The router of a server on the store at `location`, with `access`'s rules. Also what
    /// the in-process tests drive.
    package static func router(
        location: StoreLocation, access: Access, limits: Limits = Limits()
    ) -> Router<ServeContext> {
        // HEAD answers as GET does, without the body.
        let router = Router(context: ServeContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: RefusalMiddleware())
        router.add(middleware: HostMiddleware(access: access, refused: RefusedHosts()))
        router.add(
            middleware: TokenMiddleware(
                token: access.token, secure: access.secure, failures: TokenFailures(window: limits.tokenFailureWindow))
        )
        // The page: one shell for every page's URL (the library, a folder, a search, a
        // recording); its script asks /api/ for what to show. Static, so its first byte never
        // waits on the library, whatever the folder's size.
        for shell in ["/", "/r/:uuid"] {
            router.get(RouterPath(shell)) { _, _ in Page.response(Page.index) }
        }
        router.get("/page/:asset") { _, context -> Response in
            guard let asset = Page.assets[context.parameters.get("asset") ?? ""] else {
                return error(.notFound, "no such page asset")
            }
            return Page.response(asset)
        }
        // The installed app: its manifest, and the service worker that keeps the page's shell.
        router.get("/sw.js") { _, _ in Page.response(Page.serviceWorker) }
        router.get("/manifest.webmanifest") { _, _ in Page.response(Page.manifest) }
        // A browser asks for it on every page; the page has none.
        router.get("/favicon.ico") { _, _ in Response(status: .noContent) }
        let hub = EventHub(location)
        router.get("/api/events") { _, _ in liveEvents(hub) }
        let files = AudioFileCache(location: location, hub: hub)
        router.get("/api/:route") { request, context -> Response in
            let route = context.parameters.get("route") ?? ""
            if route == "session" { return session(request, access: access) }
            let parameters = parameters(request)
            // Where a page's recording is: the one of its routes that writes nothing.
            if route == LibraryAPI.pageRecordingStatusRoute {
                return response(LibraryAPI.pageRecording(route, parameters: parameters, body: [], location: location))
            }
            return response(LibraryAPI.answer(route, parameters: parameters, location: location))
        }
        router.post("/api/:route") { request, context -> Response in
            if let refusal = writeRefusal(request, access: access) { return refusal }
            let route = context.parameters.get("route") ?? ""
            let parameters = parameters(request)
            if route == "upload" {
                // Streamed to a file in the store, never held whole; the file goes with `upload`
                // whatever happens (a failed import, a dropped connection, a shutdown). Over
                // --max-upload is 413, said from Content-Length before a byte is stored (or
                // once a chunked body passes it); a full disk is 507.
                let limit = limits.maxUpload
                if let refusal = tooLarge(request, limit: limit, what: "--max-upload (\(limit) bytes)") {
                    return refusal
                }
                do {
                    let upload = try Upload(location: location)
                    for try await buffer in request.body {
                        guard upload.size + Int64(buffer.readableBytes) <= limit else {
                            return error(
                                .contentTooLarge,
                                "POST /api/upload: the body is larger than --max-upload (\(limit) bytes)")
                        }
                        try buffer.withUnsafeReadableBytes { try upload.append($0) }
                    }
                    return response(LibraryAPI.upload(upload, parameters: parameters, location: location))
                } catch let error as RecError {
                    return response(
                        LibraryAPI.Answer.error(LibraryAPI.status(of: error, otherwise: 500), error.description))
                }
            }
            if LibraryAPI.isPageRecordingRoute(route) {
                let limit = PageRecordings.maxChunk
                if let refusal = tooLarge(
                    request, limit: Int64(limit), what: "a chunk of a recording may be (\(limit) bytes)")
                {
                    return refusal
                }
                let body = try await request.body.collect(upTo: limit)
                return response(
                    LibraryAPI.pageRecording(
                        route, parameters: parameters, body: Array(buffer: body), location: location))
            }
            // A note is at most 1 MB; a little more is read so that a longer one is refused by
            // the note's own rule, with its own message.
            let limit = NoteRules.maxBytes + 4096
            if let refusal = tooLarge(request, limit: Int64(limit), what: "a note may be (\(NoteRules.maxBytes) bytes)")
            {
                return refusal
            }
            let body = try await request.body.collect(upTo: limit)
            return response(
                LibraryAPI.write(route, parameters: parameters, body: Array(buffer: body), location: location))
        }
        router.get("/audio/:uuid") { request, context -> Response in
            let uuid = context.parameters.get("uuid") ?? ""
            return audio(uuid[...], range: request.headers[.range], files: files, location: location)
        }
        return router
    }

    /// 413 when the request's Content-Length says its body is over `limit`: said before any
    /// byte of it is read. (A chunked body over it is cut off as it comes: `RefusalMiddleware`.)
    static func tooLarge(_ request: Request, limit: Int64, what: String) -> Response? {
        guard let length = request.headers[.contentLength].flatMap({ Int64($0) }), length > limit else { return nil }
        return error(
            .contentTooLarge,
            "\(request.method) \(request.uri.path): the body (\(length) bytes) is larger than \(what)")
    }

    /// A request's query parameters for LibraryAPI: `token`, which the token check takes (a
    /// first visit's `?token=`), is not the route's.
    static func parameters(_ request: Request) -> [(String, String)] {
        query(request.uri.query ?? "").filter { $0.0 != "token" }
    }

    static func response(_ answer: LibraryAPI.Answer) -> Response {
        Response(
            status: HTTPResponse.Status(code: answer.status),
            headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
    }

    // HTTPFields.Element: Hummingbird exports HTTPFields, not HTTPField.
    package static let writeTokenField = HTTPFields.Element.Name(Access.writeTokenHeader)!

    /// `GET /api/session`: what the page needs before it writes, `{"writeToken", "readOnly"}`.
    /// Only a page of this server's own origin can read it; the Host check (`HostMiddleware`)
    /// keeps a rebound name out of that origin.
    static func session(_ request: Request, access: Access) -> Response {
        var w = JSONWriter()
        w.beginObject()
        w.field("writeToken", access.writeToken)
        w.field("readOnly", access.readOnly)
        w.endObject()
        w.raw("\n")
        return response(LibraryAPI.Answer(status: 200, body: w.bytes))
    }

    /// Why a write is refused, or nil: `--read-only`; an Origin other than this server's (a
    /// browser sends it on every POST); no token header, or a wrong one. Each is 403 with one
    /// JSON line. (A Host that does not name this server never gets here: `HostMiddleware`.)
    /// The Origin's scheme may be either: behind a reverse proxy that terminates TLS, a page
    /// of `https://NAME` reaches this server over plain HTTP with the same Host.
    static func writeRefusal(_ request: Request, access: Access) -> Response? {
        if access.readOnly { return error(.forbidden, "this server is read-only (--read-only): no writes") }
        let authority = request.head.authority ?? ""
        if let origin = request.headers[.origin], origin != "http://" + authority, origin != "https://" + authority {
            return error(.forbidden, "a write from another site (Origin \(origin)) is refused")
        }
        guard let given = request.headers[writeTokenField], Access.sameToken(given[...], access.writeToken) else {
            return error(.forbidden, "a write needs the \(Access.writeTokenHeader) header that /api/session gives")
        }
        return nil
    }

    /// What a server allows each client, against slow and greedy ones.
    package struct Limits: Sendable {
        /// How long a connection may go without a request's whole head: from its start, and
        /// from the end of each answer (an idle keep-alive).
        package var idleTimeout: Duration = .seconds(10)
        /// How many connections may be open before a new one closes the one that has waited
        /// longest (`ConnectionGuard`); nil: three quarters of the descriptors this process
        /// may open, less those its files and streams need.
        package var connections: Int?
        /// `--max-upload`: the largest body `POST /api/upload` takes.
        package var maxUpload: Int64 = Self.defaultMaxUpload
        package static let defaultMaxUpload: Int64 = 2 << 30
        /// How long an address's wrong tokens count against it (`TokenFailures`).
        package var tokenFailureWindow: Duration = .seconds(60)

        package init() {}

        /// A size as `--max-upload` takes it: bytes, or with K, M, G or T (powers of 1024;
        /// `2G`, `500MiB`, `1.5g`).
        package static func parseSize(_ text: String) throws -> Int64 {
            var digits = Substring(text.lowercased())
            for suffix in ["ib", "b"] where digits.hasSuffix(suffix) {
                digits = digits.dropLast(suffix.count)
                break
            }
            var scale: Double = 1
            if let last = digits.last, let power = ["k", "m", "g", "t"].firstIndex(of: String(last)) {
                scale = pow(1024, Double(power + 1))
                digits = digits.dropLast()
            }
            guard let number = Double(digits), number.isFinite, number >= 1, number * scale < 0x1p62 else {
                throw RecError.usage("--max-upload", "'\(text)' is not a size (bytes, or with K, M, G or T: 2G)")
            }
            return Int64(number * scale)
        }

        /// The defaults, with `RECNOTES_SERVE_IDLE_TIMEOUT` (seconds) and
        /// `RECNOTES_SERVE_CONNECTIONS` for tests at a small scale.
        package static func fromEnvironment() -> Limits {
            var limits = Limits()
            if let text = getenv("RECNOTES_SERVE_IDLE_TIMEOUT").map({ String(cString: $0) }),
                let seconds = Double(text), seconds > 0
            {
                limits.idleTimeout = .milliseconds(Int64(seconds * 1000))
            }
            if let text = getenv("RECNOTES_SERVE_CONNECTIONS").map({ String(cString: $0) }), let count = Int(text),
                count > 0
            {
                limits.connections = count
            }
            return limits
        }

        /// The descriptors this process may open, its soft limit raised to the hard one first
        /// (a server is what the hard limit is for).
        static func descriptors() -> Int {
            var limit = rlimit()
            guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
            let wanted = min(limit.rlim_max, 1 << 20)
            if limit.rlim_cur < wanted {
                var raised = limit
                raised.rlim_cur = wanted
                if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
            }
            return Int(limit.rlim_cur)
        }

        /// The connections to allow with `descriptors`: a quarter, and the audio cache's files
        /// and a margin for the library's reads and uploads, kept for everything else.
        static func connections(descriptors: Int) -> Int {
            max(8, (descriptors - AudioFileCache.kept - 64) * 3 / 4)
        }
    }

    /// Serves until SIGTERM or SIGINT, then stops cleanly (open connections finish).
    /// `started` is called once the socket listens, with the URL to print.
    package static func run(
        location: StoreLocation, access: Access, limits: Limits = Limits(), tls: TLSIdentity? = nil,
        started: @escaping @Sendable (String) async -> Void
    ) async throws {
        // HTTPS or not is the identity's to say: the URL, the cookie and the origin follow it.
        let access = {
            var access = access
            access.secure = tls != nil
            return access
        }()
        var logger = Logger(label: "recnotes-serve")
        // Hummingbird's own notices (the address it listens on) only: never a request line,
        // which could hold a token.
        logger.logLevel = .warning
        let connections = ConnectionGuard(
            limit: limits.connections ?? Limits.connections(descriptors: Limits.descriptors()))
        let idle = limits.idleTimeout.components
        let http: HTTPServerBuilder = .http1(
            configuration: .init(
                additionalChannelHandlers: [ConnectionGuard.Handler(connections)],
                idleTimeout: .nanoseconds(idle.seconds * 1_000_000_000 + idle.attoseconds / 1_000_000_000)))
        let app = Application(
            router: router(location: location, access: access, limits: limits),
            server: try tls.map { try .tls(http, tlsConfiguration: $0.configuration) } ?? http,
            configuration: .init(
                address: .hostname(access.host, port: access.port), serverName: nil, backlog: 1024),
            onServerRunning: { channel in
                var shown = access
                if let port = channel.localAddress?.port { shown.port = port }
                await started(shown.url)
            },
            logger: logger)
        // A recording whose page never came back is saved with what arrived (a read-only
        // server saves nothing).
        let sweeper = Task.detached(priority: .background) {
            if !access.readOnly { PageRecordings(location: location).resumeLiveWords() }
            let every = min(60, max(1, PageRecordings.abandonedAfter / 4))
            while !Task.isCancelled && !access.readOnly {
                for note in PageRecordings(location: location).saveAbandoned() {
                    try? System.writeAll(STDERR_FILENO, Array("recnotes: serve: \(note)\n".utf8))
                }
                try? await Task.sleep(for: .milliseconds(Int64(every * 1000)))
            }
        }
        defer { sweeper.cancel() }
        do {
            try await app.runService()
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            let shown = access.host.contains(":") ? "[\(access.host)]" : access.host
            throw RecError.failure("serve", "\(shown):\(access.port): address already in use")
        }
    }

    /// How often a live stream looks for news, and how many looks without any before it
    /// sends a comment (which finds a closed connection, and keeps proxies from timing it out).
    static let eventTick = Duration.milliseconds(200)
    static let heartbeatTicks = 25

    /// `/api/events`: Server-Sent Events, one for each change of store.json or of a
    /// transcript (`StoreEvents`), until the client goes or the server stops: graceful
    /// shutdown (SIGTERM, Ctrl-C) ends the stream within a tick, so it never holds up the exit.
    static func liveEvents(_ hub: EventHub) -> Response {
        guard let start = hub.subscribe() else {
            return error(.serviceUnavailable, "/api/events: cannot watch the store (no inotify instance left)")
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody { writer in
                // `retry`: how soon a browser reconnects after the server went away.
                try await writer.write(ByteBuffer(string: "retry: 2000\n: watching the store\n\n"))
                var cursor = start
                var quiet = 0
                while !Task.isShuttingDownGracefully && !Task.isCancelled {
                    try await Task.sleep(for: eventTick)
                    let happened = hub.events(after: &cursor)
                    quiet += 1
                    if !happened.isEmpty || quiet >= heartbeatTicks {
                        let text = happened.isEmpty ? ": still here\n\n" : happened.map(\.text).joined()
                        try await writer.write(ByteBuffer(string: text))
                        quiet = 0
                    }
                }
                try await writer.finish(nil)
            })
    }

    /// One watch of the store for all of a server's streams (one inotify instance, of the
    /// user's 128, however many pages are open): whichever stream looks first after a tick
    /// drains it; each stream reads the events since its own cursor. The audio route's
    /// `AudioFileCache` drains it on every request, to know whether store.json changed.
    final class EventHub: Sendable {
        private struct State {
            var events: StoreEvents?
            /// The recent events, numbered: `first` is the number of `log[0]`.
            var log: [StoreEvents.Event] = []
            var first = 0
            var polled = ContinuousClock.now
            /// How many times store.json was seen replaced (`.store` events) so far.
            var storeChanges = 0

            /// `transcripts`: also look at transcripts/ (the streams' tick does; the audio
            /// route, which needs only store.json's news, does not).
            mutating func poll(transcripts: Bool = true) {
                guard let watch = events else { return }
                // Only a whole look counts as the streams' tick: the audio route's many looks
                // at store.json must not keep the streams from ever seeing transcripts/.
                if transcripts { polled = ContinuousClock.now }
                let news = watch.poll(transcripts: transcripts)
                if news.contains(.store) { storeChanges += 1 }
                log += news
                if log.count > EventHub.kept {
                    first += log.count - EventHub.kept
                    log.removeFirst(log.count - EventHub.kept)
                }
            }
        }
        private let location: StoreLocation
        private let state = Mutex(State())
        /// How many events are kept for a stream that has not looked yet; one further behind
        /// gets a `.store` (look at everything again) instead.
        static let kept = 256

        init(_ location: StoreLocation) { self.location = location }

        /// The cursor of a new stream (now), nil when the store cannot be watched.
        func subscribe() -> Int? {
            state.withLock { state in
                if state.events == nil { state.events = StoreEvents(location) }
                return state.events == nil ? nil : state.first + state.log.count
            }
        }

        /// The events after `cursor`, which moves past them.
        func events(after cursor: inout Int) -> [StoreEvents.Event] {
            state.withLock { state in
                if ContinuousClock.now - state.polled >= Server.eventTick / 2 { state.poll() }
                let end = state.first + state.log.count
                defer { cursor = end }
                if cursor < state.first { return [.store] }
                return Array(state.log[(cursor - state.first)...])
            }
        }

        /// How many times store.json has been replaced since the watch began, as of now (the
        /// watch drained first: a write finished before this call is counted); nil when the
        /// store cannot be watched. Unchanged between two calls means the document is too.
        func storeChanges() -> Int? {
            state.withLock { state in
                if state.events == nil { state.events = StoreEvents(location) }
                guard state.events != nil else { return nil }
                state.poll(transcripts: false)
                return state.storeChanges
            }
        }
    }

    /// A recording's audio by UUID, whole or the byte range asked.
    static func audio(
        _ uuid: Substring, range header: String?, files: AudioFileCache, location: StoreLocation
    ) -> Response {
        guard let file = files.file(uuid) else {
            if let absence = LibraryAPI.audioAbsence(uuid, location: location) { return response(absence) }
            return error(.notFound, "/audio/\(uuid): no recording has this UUID")
        }
        let size = file.size
        var headers: HTTPFields = [
            .contentType: file.contentType, .acceptRanges: "bytes", .cacheControl: "no-cache",
        ]
        let range: ClosedRange<Int64>
        let status: HTTPResponse.Status
        switch ByteRange(header: header, size: size) {
        case .whole:
            // An empty file is a whole answer with no bytes (0...-1 is no range at all).
            guard size > 0 else { return Response(status: .ok, headers: headers, body: ResponseBody()) }
            range = 0...(size - 1)
            status = .ok
        case .part(let part):
            range = part
            status = .partialContent
            headers[.contentRange] = "bytes \(part.lowerBound)-\(part.upperBound)/\(size)"
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(size)"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        }
        let length = range.count
        let piece = 1 << 18
        if length <= piece {
            // What a player's seek asks: read here and sent with the head in one write (a
            // streamed body is a write for the head, each piece and the end, each a hop to the
            // connection's thread: three times the work for a 64 KB range; RESULTS.md).
            do {
                let bytes = try AudioFileCache.read(file, at: range.lowerBound, count: length)
                guard bytes.readableBytes == length else { throw AudioFileCache.Shrunk() }
                return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: bytes))
            } catch {
                return self.error(.internalServerError, "/audio/\(uuid): the file changed as it was read")
            }
        }
        return Response(
            status: status, headers: headers,
            body: ResponseBody(contentLength: length) { writer in
                var offset = range.lowerBound
                let end = offset + Int64(length)
                while offset < end {
                    let chunk = try AudioFileCache.read(file, at: offset, count: Int(min(end - offset, Int64(piece))))
                    guard chunk.readableBytes > 0 else { throw AudioFileCache.Shrunk() }
                    offset += Int64(chunk.readableBytes)
                    try await writer.write(chunk)
                }
                try await writer.finish(nil)
            })
    }

    static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
        let answer = LibraryAPI.Answer.error(status.code, message)
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
    }

    /// A query string's parameters in order, `+` as a space and percent escapes decoded (as
    /// a browser's form or `URLSearchParams` encodes them).
    package static func query(_ query: String) -> [(String, String)] {
        query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    static func decode(_ text: Substring) -> String {
        var out: [UInt8] = []
        var bytes = text.utf8.makeIterator()
        func hex(_ c: UInt8?) -> UInt8? {
            guard let c else { return nil }
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        while let byte = bytes.next() {
            switch byte {
            case UInt8(ascii: "+"): out.append(0x20)
            case UInt8(ascii: "%"):
                let a = bytes.next()
                let b = bytes.next()
                if let high = hex(a), let low = hex(b) {
                    out.append(high << 4 | low)
                } else {
                    out.append(byte)
                    if let a { out.append(a) }
                    if let b { out.append(b) }
                }
            default: out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Off the loopback, every request needs the token. A request with the right `?token=` gets
/// it back as an HttpOnly, SameSite=Strict cookie, so the page's own requests carry it; a
/// wrong or missing one waits a moment (a guesser gets few tries a second) and gets 401; an
/// address that keeps offering wrong ones gets 429 for a while (`TokenFailures`).
struct TokenMiddleware: RouterMiddleware {
    typealias Context = ServeContext
    let token: String?
    /// HTTPS: the cookie is `Secure`, never sent over plain HTTP.
    var secure = false
    let failures: TokenFailures
    /// How long a refused request waits before its 401.
    static var refusalDelay: Duration { .milliseconds(300) }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let token else { return try await next(request, context) }
        let bearer = request.headers[.authorization].flatMap {
            $0.hasPrefix("Bearer ") ? $0.dropFirst("Bearer ".count) : nil
        }
        let fromCookie = cookie(request.headers[values: .cookie])
        let given = Server.query(request.uri.query ?? "").last(where: { $0.0 == "token" })?.1
        let offered = [bearer, fromCookie, given.map { $0[...] }].compactMap { $0 }
        if !offered.isEmpty {
            // Every offered token is compared (which one was right shows in no timing); the
            // query's alone sets the cookie.
            guard let right = failures.judge(context.clientAddress ?? "", offered: offered, token: token) else {
                var response = Server.error(
                    .tooManyRequests, "too many wrong tokens from this address: try again in a minute")
                response.headers[.retryAfter] = "\(failures.window.components.seconds)"
                return response
            }
            if right.contains(true) {
                var response = try await next(request, context)
                if given != nil && right.last == true && !right.dropLast().contains(true) {
                    response.headers[.setCookie] =
                        "\(Access.cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
                }
                return response
            }
        }
        try await Task.sleep(for: Self.refusalDelay)
        var response = Server.error(.unauthorized, "this server needs its token: open the URL it printed")
        response.headers[.wwwAuthenticate] = "Bearer"
        return response
    }

    /// The token cookie's value among the request's Cookie headers.
    private func cookie(_ headers: [String]) -> Substring? {
        for header in headers {
            for pair in header.split(separator: ";") {
                let pair = pair.drop { $0 == " " }
                if pair.hasPrefix(Access.cookieName + "=") { return pair.dropFirst(Access.cookieName.count + 1) }
            }
        }
        return nil
    }
}
