import RecAudio
import RecStore
import RecSync
import RecValues

/// Everything `info` knows of one item, gathered without writing anything: the item, its
/// audio's analysis, its transcript, where copies of its audio are, and what could not be
/// read (the rest is still worth showing). `rows` and `json` present it.
package struct ItemReport {
    package var item: Item
    /// Stored when the audio was saved; for an older store's recording measured now and not
    /// written back (reading never writes; `fsck --repair` stores it); for audio that is not
    /// here, what was stored. nil for a folder, audio that cannot be read, and a file not here
    /// that was never measured.
    package var analysis: AudioAnalysis?
    /// A recording's transcript, nil when it has none (or it cannot be read); never asked
    /// for a folder.
    package var transcript: Transcript?
    /// In a store that syncs, where the audio is: `here` and remote names, empty when no
    /// copy is known; nil when the store does not sync, or it was not asked.
    package var copies: [String]?
    /// One line each, in the order found, for the caller to print as warnings.
    package var warnings: [String] = []
}

extension Library {
    /// `item`'s report. `copies` asks git-annex where the audio is (one process, `git annex
    /// whereis`, in a store that syncs).
    package func report(on item: Item, copies: Bool) -> ItemReport {
        var report = ItemReport(item: item)
        guard let info = item.recording else { return report }
        // A missing file already shows as size "missing" (null in JSON); only a file that is
        // there but unreadable is worth a warning.
        if audioSize(of: item) != nil {
            let path = location.audioPath(info.file)
            do {
                if let stored = info.analysis {
                    // Opening reads only the header, so that damaged audio is still warned
                    // about rather than described.
                    _ = try SoundFile.open(path: path)
                    report.analysis = stored
                } else {
                    report.analysis = try info.measureAnalysis(path: path)
                }
            } catch {
                report.warnings.append("\(inUserTerms(error))")
            }
        } else {
            // Audio on another machine (or lost) was measured when it was here: store.json
            // still says what it held.
            report.analysis = info.analysis
        }
        do {
            report.transcript = try TranscriptFiles(location: location).read(item.id)
        } catch {
            // `fsck` reports and repairs the file.
            report.warnings.append("\(error)")
        }
        if copies, Annex.isSetUp(location) {
            report.copies = (try? Annex.copies(location, files: [info.file]))?[info.file]
        }
        return report
    }
}
