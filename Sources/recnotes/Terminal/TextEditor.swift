import RecCore
import RecSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `note PATH` and `transcript PATH --edit` at a terminal: the text in $VISUAL or $EDITOR, as
/// git does it.
enum TextEditor {
    /// The edited text, or nil when it came back unchanged. Throws when the editor fails:
    /// then, too, nothing is saved. `what` ("note") is what errors name, `name` whose it is.
    static func edit(_ text: String, what: String = "note", name: String) throws -> String? {
        var template = Array(
            "\(Environment.temporaryDirectory)/recnotes-\(what)-XXXXXX.txt"
                .utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 4) }
        guard fd >= 0 else { throw RecError.failure(what, "cannot make a temporary file: \(systemReason(errno))") }
        let path = String(cBuffer: template)
        close(fd)
        defer { unlink(path) }
        try FileSystem.writeAtomically(Array(text.utf8), to: path, durable: false)
        let editor =
            [Environment.value("VISUAL"), Environment.value("EDITOR")].compactMap { $0 }.first { !$0.isEmpty } ?? "vi"
        // The editor setting is a shell command line by convention ("code --wait"); the file
        // name is passed as an argument, never spliced into it.
        let status = try ChildProcess.run(["/bin/sh", "-c", editor + " \"$1\"", "recnotes-\(what)", path])
        guard status == 0 else {
            throw RecError.failure(
                what, "the editor (\(editor)) exited with status \(status); the \(what) of \"\(name)\" is unchanged")
        }
        guard let bytes = try FileSystem.read(path) else {
            throw RecError.failure(what, "the editor removed the file; the \(what) is unchanged")
        }
        guard let edited = String(validating: bytes, as: UTF8.self) else {
            throw RecError.usage(what, "the edited \(what) is not valid UTF-8; nothing was saved")
        }
        return edited == text ? nil : edited
    }
}
