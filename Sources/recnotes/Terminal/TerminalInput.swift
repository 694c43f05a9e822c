import RecCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Standard input at a terminal, a byte or a key at a time, for every reader of keys
/// (`record` and `play`'s `KeyReader`, the prompts, `browse`). Bytes read but not used are
/// handed back and come first to the next read, as a shell keeps what was typed ahead:
/// the byte after a lone Esc (Esc then q), and keys a `KeyReader` read as it was told to
/// stop, which then reach the name prompt in order.
enum TerminalInput {
    private static let unreadBytes = Mutex<[UInt8]>([])

    /// The next byte: one handed back, else one from stdin within `timeout` milliseconds
    /// (nil if none came, or stdin closed; a closed stdin is not read again before `timeout`).
    static func readByte(_ timeout: Int32) -> UInt8? {
        if let byte = unreadBytes.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return byte }
        var fds = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&fds, 1, timeout) > 0 else { return nil }
        var byte: UInt8 = 0
        guard read(STDIN_FILENO, &byte, 1) == 1 else {
            usleep(UInt32(max(timeout, 0)) * 1000)
            return nil
        }
        return byte
    }

    /// Puts `bytes` back in front of what is still to be read.
    static func unread(_ bytes: [UInt8]) {
        unreadBytes.withLock { $0.insert(contentsOf: bytes, at: 0) }
    }

    /// Whether bytes are waiting to be read again (a poll on stdin does not see them).
    static var hasUnread: Bool { unreadBytes.withLock { !$0.isEmpty } }

    /// One key and the bytes it was read from, or nil if no byte came within `timeout`.
    /// The key is nil for a sequence `Key.decode` does not know.
    static func readKey(timeout: Int32) -> (key: Key?, bytes: [UInt8])? {
        guard let first = readByte(timeout) else { return nil }
        var bytes = [first]
        let key = Key.decode(
            first: first,
            next: { wait in
                let byte = readByte(wait)
                if let byte { bytes.append(byte) }
                return byte
            },
            unread: { byte in
                bytes.removeLast()
                unread([byte])
            })
        return (key, bytes)
    }
}
