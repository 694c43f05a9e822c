/// The command line as the kernel handed it over. Swift's `CommandLine.arguments` decodes each
/// word with repair, so a byte that is not UTF-8 reaches a command as U+FFFD and would be
/// stored as if typed; the words are checked here, as bytes, before anything reads them.
package enum ArgumentBytes {
    /// The first word after the program's name that is not valid UTF-8 (overlong forms and
    /// surrogates included, as `String(validating:)` refuses them), as a usage error that
    /// shows the word with its bad bytes written `\xFF`; nil when every word is text.
    package static func invalidWord(
        _ argc: Int32 = CommandLine.argc,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = CommandLine.unsafeArgv
    ) -> RecError? {
        guard argc > 1 else { return nil }
        for index in 1..<Int(argc) {
            guard let word = argv[index] else { continue }
            let bytes = UnsafeBufferPointer(
                start: UnsafeRawPointer(word).assumingMemoryBound(to: UInt8.self), count: strlen(word))
            // Plain ASCII, nearly every word, needs no decoding.
            if !bytes.contains(where: { $0 >= 0x80 }) { continue }
            if String(validating: bytes, as: UTF8.self) != nil { continue }
            return RecError.usage(shown(bytes), "the argument is not valid UTF-8")
        }
        return nil
    }

    /// `bytes` with what decodes as UTF-8 kept and every byte that does not written `\xFF`.
    static func shown(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var out = ""
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                out.unicodeScalars.append(Unicode.UTF8.decode(encoded))
                offset += encoded.count
            case .error(let length):
                for byte in bytes[offset..<offset + length] {
                    out += "\\x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
                }
                offset += length
            case .emptyInput:
                return out
            }
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
