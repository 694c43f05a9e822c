import ArgumentParser
import RecCore
import RecSystem

#if canImport(Glibc)
    import Glibc
#endif

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the library over HTTP: a web page, a JSON API and the audio.",
        discussion: """
            Runs recnotes-serve (installed beside recnotes, or in ../libexec/recnotes from it) on the same store. Listens on \
            \(ServeDefaults.host):\(ServeDefaults.port) by default and prints its URL. On the loopback no \
            token is needed; on any other address every request needs the token printed inside the \
            URL (?token=; after that visit a cookie carries it) or read from --token-file. \
            The URL opens the page: the library, a recording's player with its waveform, markers \
            and transcript (/r/UUID), search, and live updates. \
            GET /api/ls (with sort= and reverse=1), /api/info, /api/tree, /api/marks and \
            /api/find?path=P (find's options as parameters: text, tag, name, iname, type, after, \
            before, longer, shorter) give what the command of that name gives with --json; \
            /api/transcript?path=P what transcript --format json gives; /api/events a \
            Server-Sent Events stream (store, transcript) of changes to the store; GET /audio/UUID \
            the recording's file, with HTTP Range. POST /api/mark?path=P&at=TIME&label=L, \
            /api/tag?path=P&add=T&remove=U, /api/note?path=P (the note as the body) and \
            /api/upload?path=FOLDER&filename=F (an audio file as the body; name= and format= too, \
            as import takes them) make the change the command of that name makes, in its history, and need the X-Recnotes-Token \
            header with the write token GET /api/session gives. Every request's Host must be an IP \
            address, localhost or a --host name (403 otherwise: DNS rebinding); after 10 different \
            wrong tokens in a minute an address gets 429 for a minute; a connection that has not \
            sent a whole request within 10 s, or idles 10 s after one, is closed. A port in use is \
            one line and exit status 1. SIGTERM or Ctrl-C stops it. \
            A folder's page records this device's microphone (Record): POST /api/recording-start, \
            recording-audio (16-bit samples at a byte offset), recording-mark, recording-stop and \
            recording-cancel, each keyed by the page's UUID; the page keeps every chunk until the \
            server has it. A browser allows the microphone only on HTTPS or the loopback: --tls \
            serves HTTPS with a certificate made once (its SHA-256 fingerprint printed under the \
            URL, to check on the phone), --cert and --key with one of your own.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Where to listen: ADDR:PORT, [IPv6]:PORT, ADDR or :PORT (default \(ServeDefaults.host):\(ServeDefaults.port)).",
            valueName: "addr:port"))
    var listen: String?

    @Option(
        name: .customLong("token-file"), parsing: .unconditional,
        help: ArgumentHelp(
            "Read the access token from this file's first line instead of making one (needed then on the loopback too).",
            valueName: "file"),
        completion: .file())
    var tokenFile: String?

    @Flag(
        name: .customLong("read-only"), help: "Refuse every write (POST /api/mark, /api/tag, /api/note, /api/upload).")
    var readOnly = false

    @Option(
        name: .customLong("host"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "A name besides an IP address and localhost that a request's Host may give (a reverse proxy's, a name on the local network); repeat it for several.",
            valueName: "name"))
    var hosts: [String] = []

    @Option(
        name: .customLong("max-upload"), parsing: .unconditional,
        help: ArgumentHelp(
            "The largest upload POST /api/upload takes: bytes, or with K, M, G or T (default 2G); a larger one is 413.",
            valueName: "size"))
    var maxUpload: String?

    @Flag(help: "Open the URL in a browser (xdg-open).")
    var open = false

    @Flag(
        help: ArgumentHelp(
            "HTTPS, with a self-signed certificate made once (naming the --listen address, or every address of this machine for 0.0.0.0) and kept in $XDG_CONFIG_HOME/recnotes/serve-tls; its SHA-256 fingerprint is printed under the URL, to check on the phone."
        ))
    var tls = false

    @Option(
        name: .customLong("cert"), parsing: .unconditional,
        help: ArgumentHelp("HTTPS with this PEM certificate (a chain, the server's first).", valueName: "file"),
        completion: .file())
    var certificate: String?

    @Option(
        name: .customLong("key"), parsing: .unconditional,
        help: ArgumentHelp("The PEM private key of --cert.", valueName: "file"), completion: .file())
    var key: String?

    /// Becomes recnotes-serve (execv: the same process id, so a caller's SIGTERM reaches the
    /// server), with the options as given; the CLI itself links no HTTP server.
    func run() throws {
        let candidates = ServeDefaults.executablePaths(besideDirectory: Self.ownDirectory())
        let path = candidates.first { access($0, X_OK) == 0 } ?? candidates[0]
        var arguments = [path]
        if let store = global.store { arguments += ["--store", store] }
        if global.quiet { arguments.append("--quiet") }
        if let listen { arguments += ["--listen", listen] }
        if let tokenFile { arguments += ["--token-file", tokenFile] }
        if readOnly { arguments.append("--read-only") }
        for host in hosts { arguments += ["--host", host] }
        if let maxUpload { arguments += ["--max-upload", maxUpload] }
        if open { arguments.append("--open") }
        if tls { arguments.append("--tls") }
        if let certificate { arguments += ["--cert", certificate] }
        if let key { arguments += ["--key", key] }
        guard access(path, X_OK) == 0 else {
            throw RecError.failure(
                "serve",
                "cannot run \(path): \(systemReason(errno)) (nor \(candidates[1]))")
        }
        Output.flush()
        // What this process set up for itself is not the server's: a signal it ignores (SIGXFSZ)
        // or blocks would stay so across exec.
        signal(SIGXFSZ, SIG_DFL)
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
        // The server runs long: a descriptor inherited from the shell or a test harness (a pipe
        // or socket it waits on) must not stay open in it.
        ProcessLaunch.closeInheritedOnExec()
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        execv(path, &argv)
        let reason = systemReason(errno)
        for pointer in argv { free(pointer) }
        throw RecError.failure("serve", "cannot run \(path): \(reason)")
    }

    /// The directory of the running executable (links followed).
    static func ownDirectory() -> String {
        let path = DetachedProcess.currentExecutable
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
