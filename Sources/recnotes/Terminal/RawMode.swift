#if canImport(Glibc)
    import Glibc
#endif

/// The one place the terminal's modes are changed: the modes found at the start are kept, raw
/// mode is entered and left from them, and lost raw mode is noticed. Every key reader (the
/// recorder's and player's keys, the name prompt, `browse`) goes through it.
struct RawMode {
    enum Kind {
        /// Keys one at a time without echo; Ctrl-C and Ctrl-Z still send their signals.
        case keys
        /// Everything is a key (Ctrl-C, Ctrl-Z, Ctrl-S), no input translation, 8-bit: `browse`.
        case fullScreen
    }

    let kind: Kind
    /// The modes the terminal had: given back by `leave`.
    private var saved = termios()

    /// nil when stdin is not a terminal (or its modes cannot be read).
    init?(_ kind: Kind) {
        self.kind = kind
        guard Terminal.isTTY(STDIN_FILENO), tcgetattr(STDIN_FILENO, &saved) == 0 else { return nil }
    }

    /// Enters raw mode. TCSANOW, not TCSAFLUSH: keys typed before are kept, not dropped.
    func enter() {
        var raw = saved
        switch kind {
        case .keys:
            raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        case .fullScreen:
            raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
            raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
            raw.c_cflag |= tcflag_t(CS8)
        }
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
    }

    /// Gives the terminal its modes back. TCSANOW: what is typed after the last read goes to
    /// the shell, as after any other command.
    func leave() {
        var saved = saved
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
    }

    /// Whether line mode is back under us: after `fg`, the shell may restore its own modes
    /// after it has continued this process (bash does, racing with a resume).
    var isLost: Bool {
        var current = termios()
        let lineFlags = kind == .keys ? tcflag_t(ICANON | ECHO) : tcflag_t(ICANON | ECHO | ISIG)
        return tcgetattr(STDIN_FILENO, &current) == 0 && current.c_lflag & lineFlags != 0
    }

    /// Whether this process owns the terminal: after `bg` it does not, and changing the
    /// terminal's modes from the background would stop it (SIGTTOU).
    static var inForeground: Bool { tcgetpgrp(STDIN_FILENO) == getpgrp() }
}
