import ArgumentParser
import RecCore
import RecServe
import RecStore
import RecSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `recnotes serve`'s server, which `recnotes serve` runs (execv) with the same options: a
/// front end beside the CLI over the same library layer (RecCore), in a binary of its own so
/// that the CLI links no HTTP server.
@main
struct RecnotesServe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recnotes serve",
        abstract: "Serve the library over HTTP: a JSON API for scripts and the audio.")

    @Option(name: .long, help: ArgumentHelp("The store directory.", valueName: "dir"))
    var store: String?

    @Flag(name: [.customShort("q"), .customLong("quiet")], help: "Print nothing but errors (not the URL).")
    var quiet = false

    @Option(help: ArgumentHelp("Where to listen.", valueName: "addr:port"))
    var listen: String?

    @Option(name: .customLong("token-file"), help: ArgumentHelp("Read the access token here.", valueName: "file"))
    var tokenFile: String?

    @Flag(name: .customLong("read-only"), help: "Allow no writes.")
    var readOnly = false

    @Option(name: .customLong("host"), help: ArgumentHelp("A name the Host header may give.", valueName: "name"))
    var hosts: [String] = []

    @Option(name: .customLong("max-upload"), help: ArgumentHelp("The largest upload.", valueName: "size"))
    var maxUpload: String?

    @Flag(help: "Open the URL in a browser (xdg-open).")
    var open = false

    @Flag(help: "HTTPS, with a certificate made once and kept in the configuration directory.")
    var tls = false

    @Option(
        name: .customLong("cert"), help: ArgumentHelp("HTTPS with this PEM certificate (chain).", valueName: "file"))
    var certificate: String?

    @Option(name: .customLong("key"), help: ArgumentHelp("The PEM private key of --cert.", valueName: "file"))
    var key: String?

    static func main() async {
        do {
            let command = try parseAsRoot() as! RecnotesServe
            try await command.serve()
        } catch let error as RecError {
            fail(error.description, error.exitCode)
        } catch {
            let code = exitCode(for: error)
            if code == .success { exit(withError: error) }
            let message = fullMessage(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
            fail(message, code == .validationFailure ? ExitStatus.usage : code.rawValue)
        }
    }

    private static func fail(_ message: String, _ code: Int32) -> Never {
        var line = Array(("recnotes: " + message + "\n").utf8)
        _ = line.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        Glibc.exit(code)
    }

    func serve() async throws {
        let access = try Access.make(listen: listen, tokenFile: tokenFile, readOnly: readOnly, names: hosts)
        let identity = try tlsIdentity(host: access.host)
        var limits = Server.Limits.fromEnvironment()
        if let maxUpload { limits.maxUpload = try Server.Limits.parseSize(maxUpload) }
        let location = try StoreLocation.resolve(explicit: store)
        let open = self.open
        let quiet = self.quiet
        do {
            try await Server.run(location: location, access: access, limits: limits, tls: identity) { url in
                // The URL (with the token off the loopback) on stdout, once, and nowhere else;
                // then what a phone checks the certificate by.
                if !quiet {
                    print(url)
                    if let identity {
                        print("certificate SHA-256 \(identity.fingerprint)")
                        if let file = identity.madeFile {
                            print("certificate \(identity.madeNow ? "made" : "kept") in \(file)")
                        }
                    }
                    // At a terminal, the URL for a phone's camera; never in a pipe or a file.
                    if isatty(STDOUT_FILENO) == 1, let code = QRCode(url) {
                        print(code.lines().joined(separator: "\n"))
                    }
                    fflush(nil)
                }
                if open { Self.openInBrowser(url) }
            }
        } catch let error as RecError {
            throw error
        } catch {
            throw RecError.failure("serve", "cannot listen on \(access.host):\(access.port): \(error)")
        }
    }

    /// The certificate `--tls` or `--cert` and `--key` ask for; nil for plain HTTP.
    private func tlsIdentity(host: String) throws -> TLSIdentity? {
        switch (certificate, key) {
        case (let certificate?, let key?):
            if tls {
                throw RecError.usage("--tls", "makes a certificate; --cert and --key give one: use one or the other")
            }
            return try TLSIdentity.load(certificate: certificate, key: key)
        case (_?, nil): throw RecError.usage("--cert", "needs --key, the certificate's private key")
        case (nil, _?): throw RecError.usage("--key", "needs --cert, the certificate it is the key of")
        case (nil, nil):
            guard tls else { return nil }
            return try TLSIdentity.selfSigned(
                in: try TLSIdentity.defaultDirectory(), hosts: TLSIdentity.hosts(listeningOn: host))
        }
    }

    /// `xdg-open URL`, not waited for: the browser is the user's, whatever it does.
    private static func openInBrowser(_ url: String) {
        var launch = ProcessLaunch(["xdg-open", url])
        launch.ownSession = true
        if (try? launch.start()) == nil {
            fail("--open: cannot run xdg-open", ExitStatus.failure)
        }
    }
}
