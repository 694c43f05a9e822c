/// A key pressed at a terminal, as `record`, `play`, their prompts and `browse` understand it.
package enum Key: Equatable, Sendable {
    case space, left, right, up, down, pageUp, pageDown, enter, escape, backspace, tab, interrupt
    /// Ctrl-Z, where the terminal sends it as a key (raw mode without signals: `browse`).
    case suspend
    /// For line editing: Home/End (also Ctrl-A/E), Delete, Ctrl-U, Ctrl-W.
    case home, end, delete, deleteToStart, deleteWord
    case character(String)

    package var isQuit: Bool { self == .character("q") || self == .character("Q") }

    /// How long a byte after Esc may take to count as part of one key's sequence: a
    /// terminal sends a sequence in one write, a person types slower (vim's ttimeoutlen and
    /// ncurses' ESCDELAY serve the same purpose).
    package static let escapeTimeoutMilliseconds: Int32 = 30

    /// Decodes the key that starts with `first`, reading the rest of its bytes with `next`,
    /// which waits up to the given milliseconds for a byte. A lone Esc is an Esc when nothing
    /// follows within the escape timeout; sequences the terminal may send for the same key
    /// (ESC [ H, ESC O H, ESC [ 1 ~ …) are one key. After Esc, a byte that starts no
    /// sequence (Esc then q, typed quickly or arriving in one read) is handed back through
    /// `unread`, to be the next key: there are no Alt keys here, so nothing typed is lost.
    /// nil: a sequence this does not know.
    package static func decode(
        first byte: UInt8, next: (Int32) -> UInt8?, unread: (UInt8) -> Void = { _ in }
    ) -> Key? {
        switch byte {
        case 0x20: return .space
        case 0x0A, 0x0D: return .enter
        case 0x7F, 0x08: return .backspace
        case 0x09: return .tab
        case 0x03: return .interrupt
        case 0x1A: return .suspend
        case 0x01: return .home
        case 0x05: return .end
        case 0x15: return .deleteToStart
        case 0x17: return .deleteWord
        case 0x1B:
            guard let introducer = next(escapeTimeoutMilliseconds) else { return .escape }
            guard introducer == UInt8(ascii: "[") || introducer == UInt8(ascii: "O") else {
                unread(introducer)
                return .escape
            }
            guard var final = next(escapeTimeoutMilliseconds) else {
                unread(introducer)
                return .escape
            }
            var number = 0
            while (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(final) || final == UInt8(ascii: ";") {
                if final != UInt8(ascii: ";") { number = number * 10 + Int(final - UInt8(ascii: "0")) }
                guard let more = next(escapeTimeoutMilliseconds) else { return nil }
                final = more
            }
            switch final {
            case UInt8(ascii: "A"): return .up
            case UInt8(ascii: "B"): return .down
            case UInt8(ascii: "C"): return .right
            case UInt8(ascii: "D"): return .left
            case UInt8(ascii: "H"): return .home
            case UInt8(ascii: "F"): return .end
            case UInt8(ascii: "~"):
                switch number {
                case 1, 7: return .home
                case 4, 8: return .end
                case 3: return .delete
                case 5: return .pageUp
                case 6: return .pageDown
                default: return nil
                }
            default: return nil
            }
        default:
            // The rest of a UTF-8 sequence, if any.
            var bytes = [byte]
            let extra = byte >= 0xF0 ? 3 : byte >= 0xE0 ? 2 : byte >= 0xC0 ? 1 : 0
            for _ in 0..<extra { if let b = next(escapeTimeoutMilliseconds) { bytes.append(b) } }
            return .character(String(decoding: bytes, as: UTF8.self))
        }
    }
}

extension LineEditor {
    /// The editing keys of a one-line prompt. Returns false for a key that is not editing
    /// (Enter, Esc, arrows up and down …), for the prompt to act on. `limit`: the most UTF-8
    /// bytes the text may have; what would not fit is not taken.
    package mutating func apply(_ key: Key, limit: Int = .max) -> Bool {
        switch key {
        case .backspace: backspace()
        case .delete: delete()
        case .space: insert(" ")
        case .character(let c):
            if text.utf8.count + c.utf8.count <= limit { insert(c) }
        case .left: left()
        case .right: right()
        case .home: home()
        case .end: end()
        case .deleteToStart: deleteToStart()
        case .deleteWord: deleteWordBackward()
        default: return false
        }
        return true
    }
}
