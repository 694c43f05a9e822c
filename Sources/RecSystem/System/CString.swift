extension String {
    /// The text of a C buffer filled by a system call (`getcwd`, `readlink`, a library's
    /// log), up to its first NUL; invalid UTF-8 is repaired rather than trusted.
    package init(cBuffer buffer: [CChar]) {
        let end = buffer.firstIndex(of: 0) ?? buffer.count
        self = String(decoding: buffer[..<end].lazy.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
