import Crypto
import FoundationEssentials
import NIOSSL
import RecCore
import RecSystem
import SwiftASN1
import X509

#if canImport(Glibc)
    import Glibc
#endif

/// What `serve --tls` answers with: a certificate and its key, either the user's (`--cert`,
/// `--key`) or one made here once and kept in the user's configuration directory (never in
/// the store, which sync would carry to every machine). A phone trusts the made one by its
/// fingerprint: it is its own authority (CA:TRUE), as iOS and Android ask of a certificate
/// installed by hand.
package struct TLSIdentity {
    package let chain: [NIOSSLCertificate]
    package let key: NIOSSLPrivateKey
    /// The SHA-256 of the first certificate's DER, as browsers and `openssl x509 -fingerprint
    /// -sha256` show it: `AB:CD:…`.
    package let fingerprint: String
    /// The certificate's file, when this server made it.
    package let madeFile: String?
    /// Whether this start made it (a first `--tls`, or a new address it did not name).
    package let madeNow: Bool

    package var configuration: TLSConfiguration {
        TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
    }

    /// `--cert FILE --key FILE`: PEM files, a chain (the server's first) and its key.
    package static func load(certificate: String, key keyFile: String) throws -> TLSIdentity {
        let chain: [NIOSSLCertificate]
        do { chain = try NIOSSLCertificate.fromPEMFile(certificate) } catch {
            throw RecError.failure(certificate, "not a PEM certificate: \(error)")
        }
        guard let first = chain.first else { throw RecError.failure(certificate, "holds no certificate") }
        let key: NIOSSLPrivateKey
        do { key = try NIOSSLPrivateKey(file: keyFile, format: .pem) } catch {
            throw RecError.failure(keyFile, "not a PEM private key: \(error)")
        }
        return TLSIdentity(
            chain: chain, key: key, fingerprint: try colonHexDigest(of: try first.toDERBytes()), madeFile: nil,
            madeNow: false)
    }

    /// The made certificate in `directory` (`cert.pem`, `key.pem`), made now if there is none
    /// or if it does not name every one of `hosts` (it names them all, and localhost).
    package static func selfSigned(in directory: String, hosts: [String]) throws -> TLSIdentity {
        let certificateFile = directory + "/cert.pem"
        let keyFile = directory + "/key.pem"
        let names = Self.names(for: hosts)
        if let pem = try? FileSystem.read(certificateFile), let keyPEM = try? FileSystem.read(keyFile),
            let certificate = try? Certificate(pemEncoded: String(decoding: pem, as: UTF8.self)),
            let alternatives = try? certificate.extensions.subjectAlternativeNames,
            names.allSatisfy(alternatives.contains), certificate.notValidAfter > Date.now + 86400
        {
            return try identity(pem: pem, keyPEM: keyPEM, file: certificateFile, made: false)
        }
        let key = P256.Signing.PrivateKey()
        let subject = try DistinguishedName {
            OrganizationName("recnotes")
            CommonName("recnotes serve")
        }
        let now = Date.now
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 10 * 365 * 86400, issuer: subject, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(digitalSignature: true, keyCertSign: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(names)
            }, issuerPrivateKey: .init(key))
        let pem = Array(try certificate.serializeAsPEM().pemString.utf8) + [0x0A]
        let keyPEM = Array(key.pemRepresentation.utf8) + [0x0A]
        try FileSystem.makeDirectories(directory)
        _ = chmod(directory, 0o700)
        try FileSystem.writeAtomically(keyPEM, to: keyFile)
        _ = chmod(keyFile, 0o600)
        try FileSystem.writeAtomically(pem, to: certificateFile)
        return try identity(pem: pem, keyPEM: keyPEM, file: certificateFile, made: true)
    }

    private static func identity(pem: [UInt8], keyPEM: [UInt8], file: String, made: Bool) throws -> TLSIdentity {
        let chain = try NIOSSLCertificate.fromPEMBytes(pem)
        guard let first = chain.first else { throw RecError.failure(file, "holds no certificate") }
        return TLSIdentity(
            chain: chain, key: try NIOSSLPrivateKey(bytes: keyPEM, format: .pem),
            fingerprint: try colonHexDigest(of: try first.toDERBytes()), madeFile: file, madeNow: made)
    }

    /// What the certificate names: localhost and the loopback addresses, and each host asked
    /// for (an address as an address, a name as a name).
    static func names(for hosts: [String]) -> [GeneralName] {
        var names: [GeneralName] = [.dnsName("localhost")]
        for host in ["127.0.0.1", "::1"] + hosts {
            let name: GeneralName
            var v4 = in_addr()
            var v6 = in6_addr()
            if inet_pton(AF_INET, host, &v4) == 1 {
                name = .ipAddress(ASN1OctetString(contentBytes: withUnsafeBytes(of: &v4) { ArraySlice($0) }))
            } else if inet_pton(AF_INET6, host, &v6) == 1 {
                name = .ipAddress(ASN1OctetString(contentBytes: withUnsafeBytes(of: &v6) { ArraySlice($0) }))
            } else {
                name = .dnsName(host.lowercased())
            }
            if !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// The names a server listening on `host` is reached by: `host` itself, or for every
    /// address (0.0.0.0, ::) this machine's addresses and its host name (and NAME.local, as
    /// mDNS gives it).
    package static func hosts(listeningOn host: String) -> [String] {
        guard host == "0.0.0.0" || host == "::" else { return [host] }
        var hosts: [String] = []
        var list: UnsafeMutablePointer<ifaddrs>?
        if getifaddrs(&list) == 0 {
            defer { freeifaddrs(list) }
            var next = list
            while let entry = next {
                next = entry.pointee.ifa_next
                guard let address = entry.pointee.ifa_addr else { continue }
                let family = Int32(address.pointee.sa_family)
                var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
                if family == AF_INET {
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                        var a = v4.pointee.sin_addr
                        _ = inet_ntop(AF_INET, &a, &text, socklen_t(text.count))
                    }
                } else if family == AF_INET6 {
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                        var a = v6.pointee.sin6_addr
                        _ = inet_ntop(AF_INET6, &a, &text, socklen_t(text.count))
                    }
                } else {
                    continue
                }
                let shown = String(cString: text)
                if !shown.isEmpty && !hosts.contains(shown) { hosts.append(shown) }
            }
        }
        var name = [CChar](repeating: 0, count: 256)
        if gethostname(&name, name.count - 1) == 0 {
            let host = String(cString: name).lowercased()
            if !host.isEmpty { hosts += [host, host + ".local"] }
        }
        return hosts
    }

    static func colonHexDigest(of der: [UInt8]) throws -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        return SHA256.hash(data: der).map { byte in
            String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
        }.joined(separator: ":")
    }

    /// Where the made certificate is kept: `$XDG_CONFIG_HOME/recnotes/serve-tls`, else
    /// `~/.config/recnotes/serve-tls`.
    package static func defaultDirectory() throws -> String {
        if let config = Environment.value("XDG_CONFIG_HOME"), config.hasPrefix("/") {
            return config + "/recnotes/serve-tls"
        }
        guard let home = Environment.value("HOME"), !home.isEmpty else {
            throw RecError.usage(
                "--tls", "$HOME is not set, so there is nowhere to keep the certificate; give --cert and --key")
        }
        return home + "/.config/recnotes/serve-tls"
    }
}
