import Foundation
import RecCore
import Testing

/// `serve --tls` and `--cert`/`--key`: HTTPS that curl reaches with the certificate alone, a
/// certificate made once in the configuration directory (never in the store) and kept, its
/// fingerprint printed as openssl computes it, and one line for each bad combination.
@Suite struct ServeTLSTests {
    static let curl = "/usr/bin/curl"
    static let openssl = "/usr/bin/openssl"

    /// openssl's SHA-256 fingerprint of a PEM certificate: `AB:CD:…`.
    static func fingerprint(_ file: String) throws -> String {
        let run = try Sandbox.execute(
            openssl, ["x509", "-noout", "-fingerprint", "-sha256", "-in", file], environment: ["PATH": "/usr/bin:/bin"])
        #expect(run.status == 0, "\(run.stderr)")
        return String(run.stdout.split(separator: "=").last ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func get(_ url: String, caFile: String?) throws -> Run {
        try Sandbox.execute(
            curl, ["-sS", "--max-time", "10"] + (caFile.map { ["--cacert", $0] } ?? []) + [url],
            environment: ["PATH": "/usr/bin:/bin"])
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: openssl), "openssl is missing"))
    func aMadeCertificateIsKeptAndCurlTrustsItAlone() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed("mkdir", "/Talks")
        let config = sandbox.home + "/config"
        let environment = ["HOME": sandbox.home, "XDG_CONFIG_HOME": config]
        let certificate = config + "/recnotes/serve-tls/cert.pem"
        var printed: String?
        for round in 0..<2 {
            let server = try ServeProcess(sandbox, arguments: ["--tls"], environment: environment)
            #expect(server.url.hasPrefix("https://127.0.0.1:"), "\(server.url)")
            let fingerprint = try server.nextLine()
            let made = try server.nextLine()
            #expect(made == "certificate \(round == 0 ? "made" : "kept") in \(certificate)", "\(made)")
            #expect(fingerprint == "certificate SHA-256 \(try Self.fingerprint(certificate))", "\(fingerprint)")
            // The same certificate the second time.
            if let printed { #expect(fingerprint == printed) }
            printed = fingerprint
            let listed = try Self.get(server.url + "api/ls?path=/", caFile: certificate)
            #expect(listed.status == 0 && listed.stdout.contains("\"Talks\""), "\(listed.stdout)\(listed.stderr)")
            let byName = try Self.get(
                "https://localhost:\(server.port)/api/ls?path=/", caFile: certificate)
            #expect(byName.status == 0, "\(byName.stderr)")
            // Without the certificate curl refuses; plain HTTP gets no page.
            #expect(try Self.get(server.url, caFile: nil).status != 0)
            let plain = try Self.get("http://127.0.0.1:\(server.port)/api/ls", caFile: nil)
            #expect(!plain.stdout.contains("Talks"), "\(plain.stdout)")
            #expect(server.stop() != nil)
        }
        // Kept outside the store, its key for the user alone.
        var info = stat()
        #expect(stat(config + "/recnotes/serve-tls/key.pem", &info) == 0 && info.st_mode & 0o077 == 0)
        #expect(!FileManager.default.fileExists(atPath: sandbox.store + "/serve-tls"))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: openssl), "openssl is missing"))
    func givenCertificateAndKeyAndTheirRefusals() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed("mkdir", "/Talks")
        let certificate = sandbox.root + "/given.pem"
        let key = sandbox.root + "/given.key"
        let made = try Sandbox.execute(
            Self.openssl,
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                "-keyout", key, "-out", certificate,
            ], environment: ["PATH": "/usr/bin:/bin"])
        #expect(made.status == 0, "\(made.stderr)")
        let server = try ServeProcess(
            sandbox, arguments: ["--cert", certificate, "--key", key], environment: ["HOME": sandbox.home])
        #expect(try server.nextLine() == "certificate SHA-256 \(try Self.fingerprint(certificate))")
        let listed = try Self.get(server.url + "api/ls?path=/", caFile: certificate)
        #expect(listed.status == 0 && listed.stdout.contains("\"Talks\""), "\(listed.stdout)\(listed.stderr)")
        #expect(server.stop() != nil)
        // Each wrong combination: one line, the usage status, and no certificate made.
        for (arguments, message) in [
            (["--cert", certificate], "recnotes: --cert: needs --key"),
            (["--key", key], "recnotes: --key: needs --cert"),
            (["--tls", "--cert", certificate, "--key", key], "recnotes: --tls: makes a certificate"),
            (["--cert", key, "--key", key], "recnotes: \(key): not a PEM certificate"),
        ] {
            let run = try sandbox.run(["serve", "--listen", "127.0.0.1:0"] + arguments)
            #expect(run.stderr.hasPrefix(message) && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
            #expect(run.status != 0)
        }
        #expect(!FileManager.default.fileExists(atPath: sandbox.home + "/.config/recnotes/serve-tls"))
    }
}
