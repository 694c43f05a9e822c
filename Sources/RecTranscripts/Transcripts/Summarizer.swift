import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// A summarizer of the user's own: any program that reads a transcript on its standard input
/// and prints a summary on its standard output, such as a script around a local language
/// model. None ships: no model that writes summaries installs offline here, so this is the
/// contract one plugs into, as `ExternalEngine` is for speech.
///
/// The command is split into words (`CommandWords`) and run without a shell, in a process
/// group of its own (a timeout kills what it started too). Its input is the transcript a
/// segment a line, each after its start (`TranscriptFormat.timedLines`); its output, UTF-8,
/// blank lines around it dropped, is the summary. An exit status other than 0, a signal, no
/// output, or more than `EngineProcess.outputLimit` is an error that names the program.
package struct Summarizer: Sendable {
    /// The environment variable that names the default command.
    package static let environmentVariable = "RECNOTES_SUMMARIZER"

    package let command: String
    package let arguments: [String]
    /// Seconds it may take.
    package var timeout: Double

    package init(command: String, timeout: Double = Summarizer.defaultTimeout) throws(RecError) {
        let words = try CommandWords.split(command)
        guard !words.isEmpty else { throw .usage("--summarizer", "the command is empty") }
        self.command = command
        self.arguments = words
        self.timeout = timeout
    }

    /// A local model may read a long transcript slowly: ten minutes.
    package static let defaultTimeout = 600.0

    /// The summarizer `$RECNOTES_SUMMARIZER` names, or nil when it is unset or blank.
    package static func fromEnvironment() throws(RecError) -> Summarizer? {
        guard let command = Environment.value(environmentVariable), command.contains(where: { !$0.isWhitespace })
        else { return nil }
        return try Summarizer(command: command)
    }

    /// The program's file name, which its errors name.
    package var name: String { FileSystem.baseName(of: arguments[0]) }

    /// What it prints for `text` on its input.
    package func summarize(_ text: String) throws(RecError) -> String {
        let input = try Self.unlinkedFile(holding: Array(text.utf8), for: name)
        defer { close(input) }
        let outcome: CapturedRun
        do {
            outcome = try EngineProcess.run(arguments, timeout: timeout, input: .descriptor(input))
        } catch .cannotStart(let code) {
            throw .failure(name, "cannot run \(arguments[0]): \(code)")
        } catch .timedOut {
            throw .failure(name, "timed out after \(ExternalEngine.seconds(timeout)) s (killed)")
        } catch .cancelled {
            throw .failure(name, "stopped")
        } catch {
            throw .failure(name, "printed more than \(EngineProcess.outputLimit >> 20) MB (killed)")
        }
        if let fault = EngineProcess.fault(of: outcome) { throw .failure(name, fault) }
        guard let summary = String(validating: outcome.stdout, as: UTF8.self) else {
            throw .failure(name, "printed something that is not UTF-8 text")
        }
        let lines = summary.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasSuffix("\r") ? $0.dropLast() : $0
        }
        let kept = lines.drop { $0.allSatisfy(\.isWhitespace) }.reversed().drop { $0.allSatisfy(\.isWhitespace) }
        guard !kept.isEmpty else { throw .failure(name, "printed no summary") }
        return kept.reversed().joined(separator: "\n")
    }

    /// A file with `bytes` that has no name (made in `$TMPDIR` and unlinked at once), read
    /// from its start: the child's input, which nothing is left of after a crash, and which a
    /// pipe would need a writer thread for.
    private static func unlinkedFile(holding bytes: [UInt8], for name: String) throws(RecError) -> Int32 {
        let directory = Environment.temporaryDirectory
        var template = Array((directory + "/recnotes-summary-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw .failure(name, "cannot write its input in \(directory): \(systemReason(errno))")
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        do throws(Errno) {
            try System.writeAll(fd, bytes)
        } catch {
            close(fd)
            throw .failure(name, "cannot write its input in \(directory): \(error)")
        }
        _ = lseek(fd, 0, SEEK_SET)
        return fd
    }
}
