import RecStore
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// Once recordings are saved, a detached `recnotes transcribe @UUID...` (its own session,
/// output to /dev/null) transcribes them, so the save never waits for it. If it dies, the
/// recordings are still there and `transcribe --all --missing` redoes what it did not finish.
package enum BackgroundTranscription {
    /// `executable`: the `recnotes` to run. Throws the spawn's error.
    package static func start(
        _ ids: [ItemID], location: StoreLocation, executable: String = DetachedProcess.currentExecutable
    ) throws {
        guard !ids.isEmpty else { return }
        let arguments =
            ["--store", location.directory, "--quiet", "transcribe", "--progress", "none"] + ids.map { "@\($0)" }
        _ = try FileSystem.withOpened("/dev/null", O_WRONLY) { output in
            try DetachedProcess.spawn(
                executable: executable, arguments: arguments, output: output, report: output, reportDescriptor: 3)
        }
    }
}
