import RecAudio
import RecStore
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

extension Library {
    /// Crash recovery. When the view state holds a recording in progress whose process is
    /// gone (SIGKILL, power loss, or a disk that filled before it could save), the audio
    /// written so far becomes a recording named `<name> (recovered)` and the entry is
    /// cleared. Returns a note for the user, or nil when there was nothing to recover.
    ///
    /// Throws `RecoveryWaits` when the store cannot be written now (a full disk, a quota, a
    /// file-size limit): the audio and the entry stay as they are for a later command, and
    /// nothing was changed. A full disk is seen before the audio is measured, so that every
    /// command meanwhile does not decode it again.
    ///
    /// Safe against two commands recovering at once: the item keeps the entry's UUID, so
    /// the second one finds it already in the document and only clears the entry.
    @discardableResult
    package func recoverInterruptedRecording() throws -> String? {
        guard let entry = viewState.state.recording, !processIsAlive(entry.pid) else { return nil }
        if entry.output != nil {
            // Its audio went to another program or a file outside the store: nothing to
            // recover, and nothing lost if the entry stays until a command can clear it.
            do {
                try viewState.transaction { vs in
                    if vs.state.recording?.id == entry.id { vs.recordingEnded() }
                }
            } catch {
                return nil
            }
            return
                "a recording to \(entry.destination) (pid \(entry.pid)) ended without clearing its entry; it was cleared"
        }
        // The room the dead recorder set aside to save in is this recovery's to use.
        try? FileSystem.remove(SaveReserve.path(location: location, id: entry.id, pid: entry.pid))
        if documents.document[entry.id] == nil, let free = FileSystem.availableBytes(location.directory),
            free < SaveReserve.leastToSave(location)
        {
            throw RecoveryWaits(name: entry.name, reason: systemReason(ENOSPC))
        }
        do {
            return try recover(entry)
        } catch let error as RecError {
            throw RecoveryWaits(name: entry.name, reason: "\(FileSystem.baseName(of: error.subject)): \(error.reason)")
        }
    }

    private func recover(_ entry: ViewState.RecordingInProgress) throws -> String? {
        let path = location.audioPath(entry.file)
        var note: String?
        // Repaired and measured before the store lock is taken: an hour of audio takes
        // seconds to decode, and every other change to the store would wait for it. Two
        // commands recovering at once both measure (each rewrites through a file of its own
        // and renames, so the file is always whole); the first to add the item wins.
        let recovered =
            documents.document[entry.id] == nil ? Self.recoverAudio(entry, path: path) : nil
        try documents.transaction { tx in
            guard tx.document[entry.id] == nil else { return }
            guard let info = recovered else {
                try? FileSystem.remove(path)
                note = "an interrupted recording (\"\(entry.name)\", pid \(entry.pid)) had no audio and was discarded"
                return
            }
            let parent = tx.document[entry.parent]?.isFolder == true ? entry.parent : .root
            let name = tx.document.freeName("\(entry.name) (recovered)", in: parent, except: nil)
            var item = Item.recording(id: entry.id, name: name, parent: parent, created: entry.started, info: info)
            // The markers made before the crash come back with the audio.
            item.annotations.markers = MarkerRules.saved(entry.markers, frames: info.frames)
            // And `record --enhance`'s choice.
            item.annotations.enhance = entry.enhance
            try tx.add(item)
            note =
                "recovered an interrupted recording as \(tx.document.path(of: entry.id)) (\(Format.duration(info.duration)))"
        }
        // Saved now; an entry that cannot be cleared yet is cleared by a later command,
        // which finds the recording in the store and only does that.
        _ = try? viewState.transaction { vs in
            if vs.state.recording?.id == entry.id { vs.recordingEnded() }
        }
        return note
    }

    /// What the dead writer left: the frames really in the file. A FLAC file cut short
    /// mid-frame (a full disk) is finished in place, needing no room (`FLACTail`); any
    /// other file whose header does not declare its frames (the writer never finished it)
    /// is rewritten whole, so that it plays and seeks like any other. nil when there is no
    /// readable audio. Its analysis is measured in the pass that counts the frames: a dead
    /// recorder's samples are gone, so this one decode is the least recovery can do, and the
    /// frames a rewrite copies are the ones it measured.
    static func recoverAudio(_ entry: ViewState.RecordingInProgress, path: String) -> RecordingInfo? {
        guard let (frames, complete, measured) = try? SoundFile.decodableAndAnalyzed(path: path), frames > 0 else {
            return nil
        }
        if !complete, (entry.format ?? AudioFormat(fileName: entry.file)) == .flac {
            FLACTail.finish(path: path, decodedFrames: frames)
        }
        guard let file = try? SoundFile.open(path: path) else { return nil }
        var finalFrames = frames
        var analysis = measured
        if file.frames != frames, let format = entry.format {
            let temporary = path + ".recovering-\(getpid())"
            // Measured again as rewritten, now that its length is known: bucketed exactly.
            let meter = AnalysisMeter(sampleRate: file.sampleRate, channels: file.channels, length: frames)
            if let copied = try? SoundFile.copy(file, to: temporary, format: format, meter: meter), copied > 0,
                (try? FileSystem.publish(temporary, as: path)) != nil
            {
                finalFrames = copied
                analysis = meter.finish()
            } else {
                try? FileSystem.remove(temporary)
            }
        }
        return RecordingInfo(
            duration: Double(finalFrames) / Double(file.sampleRate), frames: finalFrames,
            sampleRate: file.sampleRate, channels: file.channels,
            format: entry.format ?? AudioFormat(fileName: entry.file) ?? .wav, file: entry.file
        ).with(analysis)
    }
}

/// A dead recorder's audio that cannot be saved yet, because the store cannot be written
/// (`reason`: a full disk, a quota, a file-size limit). Its audio and in-progress entry stay
/// as they are, nothing was changed, and the first command that can write saves it; the
/// commands that only read go on meanwhile and say so, each once (`GlobalOptions.openLibrary`).
package struct RecoveryWaits: Error, Equatable, RecErrorConvertible, CustomStringConvertible {
    /// The recording's name, as it was to be saved.
    package var name: String
    package var reason: String

    package var recError: RecError {
        .failure(
            "interrupted recording \"\(name)\"",
            "not saved in the store yet: \(reason); its audio is kept, and the first command that can write the store saves it as \"\(name) (recovered)\""
        )
    }

    package var description: String { recError.description }
}
