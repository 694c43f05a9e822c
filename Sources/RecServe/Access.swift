import RecCore
import RecSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Where the server listens and who may ask it: on the loopback anyone on this
/// machine may (as with any local program); on any other address a request needs the token,
/// in `?token=`, a cookie set at the first visit with it, or an `Authorization: Bearer` header.
package struct Access: Sendable {
    /// The address and port to bind, as `--listen ADDR:PORT` gave them.
    package var host: String
    package var port: Int
    /// nil: no token asked (the loopback, without `--token-file`).
    package var token: String?
    /// What a write must carry in its `X-Recnotes-Token` header: the access token, or on the
    /// loopback one made at start. A page gets it from `/api/session`, which another site's page
    /// cannot read (no CORS), so a forged cross-site request cannot write (no CSRF).
    package var writeToken: String
    /// `--read-only`: every write is refused.
    package var readOnly: Bool
    /// `--host NAME`: names besides an address and `localhost` that a request's Host may give
    /// (a reverse proxy's, a name on the local network), lowercased, without a port.
    package var names: [String] = []
    /// `--tls`, `--cert`: HTTPS. The URL, the origin a write must come from and the cookie
    /// (`Secure`) follow it.
    package var secure = false

    package static let defaultHost = ServeDefaults.host
    package static let defaultPort = ServeDefaults.port
    /// The cookie that carries the token after the first visit with `?token=`.
    package static let cookieName = "recnotes_token"

    package init(host: String, port: Int, token: String?, readOnly: Bool = false) {
        self.host = host
        self.port = port
        self.token = token
        self.writeToken = token ?? Self.newToken()
        self.readOnly = readOnly
    }

    /// `ADDR:PORT`, `[IPv6]:PORT`, `ADDR` or `:PORT`; the missing half is the default.
    package static func parseListen(_ text: String) throws -> (host: String, port: Int) {
        var host = text
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                throw RecError.usage("--listen", "'\(text)' opens an IPv6 address with '[' but does not close it")
            }
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw RecError.usage("--listen", "'\(text)' is not ADDR:PORT") }
                portText = rest.dropFirst()
            }
        } else if let colon = text.lastIndex(of: ":") {
            guard text.firstIndex(of: ":") == colon else {
                throw RecError.usage("--listen", "'\(text)': write an IPv6 address in brackets, [::1]:\(defaultPort)")
            }
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
        }
        if host.isEmpty { host = defaultHost }
        var port = defaultPort
        if let portText {
            guard let number = Int(portText), (0...65535).contains(number) else {
                throw RecError.usage("--listen", "'\(portText)' is not a port (0 to 65535)")
            }
            port = number
        }
        return (host, port)
    }

    /// Whether `host` is a loopback address (127.0.0.0/8, ::1, localhost): only this machine
    /// reaches it.
    package static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" { return true }
        var address = in_addr()
        return inet_pton(AF_INET, host, &address) == 1 && (UInt32(bigEndian: address.s_addr) >> 24) == 127
    }

    /// The access for `--listen` and `--token-file`: a token read from the file (its first
    /// line), else one made now off the loopback, else none.
    package static func make(
        listen: String?, tokenFile: String?, readOnly: Bool = false, names: [String] = []
    ) throws -> Access {
        let (host, port) = try listen.map(parseListen) ?? (defaultHost, defaultPort)
        let token = try tokenFile.map(readToken) ?? (isLoopback(host) ? nil : newToken())
        var access = Access(host: host, port: port, token: token, readOnly: readOnly)
        access.names = try names.map(parseName)
        return access
    }

    /// A `--host` name as a Host header gives it: letters, digits, `-` and `.`, without a port.
    static func parseName(_ text: String) throws -> String {
        let name = text.lowercased()
        let allowed = "abcdefghijklmnopqrstuvwxyz0123456789-.".utf8
        guard !name.isEmpty, name.utf8.count <= 253, name.utf8.allSatisfy(allowed.contains) else {
            throw RecError.usage("--host", "'\(text)' is not a host name (letters, digits, '-' and '.', no port)")
        }
        return name
    }

    /// Whether a request's Host header names this server: an IP address, `localhost`, or a
    /// `--host` name, with or without a port. Anything else may be a name made to resolve
    /// here (DNS rebinding), whose page would be same-origin with the server and could read
    /// the whole library.
    package func answers(toHost hostHeader: String) -> Bool {
        if Self.isDirectHost(hostHeader) { return true }
        guard !names.isEmpty else { return false }
        var name = Substring(hostHeader)
        if let colon = name.lastIndex(of: ":") {
            guard UInt16(name[name.index(after: colon)...]) != nil else { return false }
            name = name[..<colon]
        }
        return names.contains(name.lowercased())
    }

    /// The header a write carries its token in.
    package static let writeTokenHeader = "X-Recnotes-Token"

    /// Whether a request's Host names this server by an address or `localhost`, not by some
    /// other name.
    package static func isDirectHost(_ hostHeader: String) -> Bool {
        var name = Substring(hostHeader)
        if name.hasPrefix("["), let close = name.firstIndex(of: "]") {
            name = name[name.index(after: name.startIndex)..<close]
            var address = in6_addr()
            return inet_pton(AF_INET6, String(name), &address) == 1
        }
        if let colon = name.lastIndex(of: ":") { name = name[..<colon] }
        var address = in_addr()
        return name == "localhost" || inet_pton(AF_INET, String(name), &address) == 1
    }

    /// 32 random bytes from the kernel (getrandom, through the system generator), as hex.
    package static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for _ in 0..<32 {
            let byte = UInt8.random(in: 0...255, using: &generator)
            out += [hex[Int(byte >> 4)], hex[Int(byte & 15)]]
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func readToken(_ file: String) throws -> String {
        try FileSystem.withOpened(
            file, O_RDONLY, failure: { RecError.failure(file, $0) },
            { descriptor -> String in
                var bytes: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 4096)
                while bytes.count < 1 << 16 {
                    let count = System.retrying { read(descriptor, &buffer, buffer.count) }
                    guard count > 0 else {
                        if count < 0 { throw RecError.failure(file, systemReason(errno)) }
                        break
                    }
                    bytes += buffer[..<count]
                }
                let line = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).first ?? []
                let token = String(decoding: line, as: UTF8.self).trimmingWhitespace()
                guard token.utf8.count >= 16 else {
                    throw RecError.failure(file, "the token must be at least 16 characters on the first line")
                }
                guard token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ";") }) else {
                    throw RecError.failure(file, "the token must be printable ASCII without spaces or ';'")
                }
                return token
            })
    }

    package var scheme: String { secure ? "https" : "http" }

    /// The URL to print: with the token inside it when one is asked, as Jupyter prints it.
    package var url: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(shown):\(port)/" + (token.map { "?token=" + $0 } ?? "")
    }

    /// Equal bytes, compared in a time that depends on the lengths alone, not on where the
    /// first difference lies: a guess cannot be refined by timing the answers.
    package static func sameToken(_ given: Substring, _ token: String) -> Bool {
        let a = Array(given.utf8)
        let b = Array(token.utf8)
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<b.count { difference |= (i < a.count ? a[i] : 0) ^ b[i] }
        return difference == 0
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        let bytes = Array(utf8)
        let space: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
        guard let first = bytes.firstIndex(where: { !space($0) }) else { return "" }
        let last = bytes.lastIndex(where: { !space($0) })!
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}
