/// What a key asks `browse` to do in the list: the one home of its keys. `update` looks keys
/// up here, and the help screen (`?`) is drawn from the same table.
package enum BrowseCommand: Equatable, Sendable, CaseIterable {
    case down, up, pageDown, pageUp, first, last, open, parent
    case togglePause, back, forward, nextMark, previousMark, mark, stopPlayback, faster, slower, normalSpeed
    case record, stopRecording, newFolder, rename, trash, undo, tags, note, enhance, filter, help, quit
}

package enum BrowseKeymap {
    package struct Binding: Sendable {
        package var keys: [Key]
        /// How the help screen names the keys.
        package var label: String
        package var command: BrowseCommand
        package var help: String
    }

    package static let bindings: [Binding] = [
        Binding(keys: [.character("j"), .down], label: "j ↓", command: .down, help: "next row"),
        Binding(keys: [.character("k"), .up], label: "k ↑", command: .up, help: "previous row"),
        Binding(keys: [.pageDown, .character("J")], label: "PgDn J", command: .pageDown, help: "a page down"),
        Binding(keys: [.pageUp, .character("K")], label: "PgUp K", command: .pageUp, help: "a page up"),
        Binding(keys: [.character("g"), .home], label: "g Home", command: .first, help: "first row"),
        Binding(keys: [.character("G"), .end], label: "G End", command: .last, help: "last row"),
        Binding(keys: [.enter, .character("l")], label: "Enter l", command: .open, help: "open folder / play"),
        Binding(
            keys: [.backspace, .character("h")], label: "Bksp h", command: .parent, help: "up to the parent folder"),
        Binding(keys: [.space], label: "Space", command: .togglePause, help: "pause / resume"),
        Binding(keys: [.left], label: "←", command: .back, help: "5 s back"),
        Binding(keys: [.right], label: "→", command: .forward, help: "5 s forward"),
        Binding(keys: [.character("]")], label: "]", command: .nextMark, help: "next marker"),
        Binding(keys: [.character("[")], label: "[", command: .previousMark, help: "previous marker"),
        // `play`'s keys for the speed too (mpv's `[` `]` are the markers' here, Backspace the parent's).
        Binding(keys: [.character("}")], label: "}", command: .faster, help: "0.25× faster"),
        Binding(keys: [.character("{")], label: "{", command: .slower, help: "0.25× slower"),
        Binding(keys: [.character("=")], label: "=", command: .normalSpeed, help: "back to 1×"),
        Binding(keys: [.character("m")], label: "m", command: .mark, help: "mark the moment"),
        Binding(keys: [.character("x")], label: "x", command: .stopPlayback, help: "stop playing"),
        Binding(keys: [.character("r")], label: "r", command: .record, help: "record into this folder"),
        Binding(keys: [.character("s")], label: "s Enter", command: .stopRecording, help: "stop recording, name it"),
        Binding(keys: [.character("n")], label: "n", command: .newFolder, help: "new folder"),
        Binding(keys: [.character("R")], label: "R", command: .rename, help: "rename"),
        Binding(keys: [.character("d")], label: "d", command: .trash, help: "move to the trash (asks)"),
        Binding(keys: [.character("u")], label: "u", command: .undo, help: "undo the last change"),
        Binding(keys: [.character("t")], label: "t", command: .tags, help: "edit tags"),
        Binding(keys: [.character("e")], label: "e", command: .note, help: "edit the note in $EDITOR"),
        Binding(keys: [.character("E")], label: "E", command: .enhance, help: "enhance on / off"),
        Binding(keys: [.character("/")], label: "/", command: .filter, help: "filter (Esc clears)"),
        Binding(keys: [.character("?")], label: "?", command: .help, help: "this help"),
        Binding(keys: [.character("q"), .interrupt], label: "q", command: .quit, help: "quit"),
    ]

    private static let byKey: [(Key, BrowseCommand)] = bindings.flatMap { b in b.keys.map { ($0, b.command) } }

    package static func command(for key: Key) -> BrowseCommand? {
        byKey.first { $0.0 == key }?.1
    }

    /// Seconds that ← and → move the play position.
    package static let seekStep = 5.0
}
