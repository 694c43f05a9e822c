#if canImport(Glibc)
    import Glibc
#endif

extension Library {
    /// Crash recovery. When the view state holds a recording in progress whose process is
    /// gone (SIGKILL, power loss), the audio written so far becomes a recording named
    /// `<name> (recovered)` and the entry is cleared. Returns a note for the user, or nil
    /// when there was nothing to recover.
    ///
    /// Safe against two commands recovering at once: the item keeps the entry's UUID, so
    /// the second one finds it already in the document and only clears the entry.
    @discardableResult
    public func recoverInterruptedRecording() throws -> String? {
        guard let entry = viewState.state.recording, !processIsAlive(entry.pid) else { return nil }
        if entry.output != nil {
            // Its audio went to another program or a file outside the store: nothing to recover.
            try viewState.transaction { vs in
                if vs.state.recording?.id == entry.id { vs.recordingEnded() }
            }
            return
                "a recording to \(entry.destination) (pid \(entry.pid)) ended without clearing its entry; it was cleared"
        }
        let path = location.audioPath(entry.file)
        var note: String?
        // Repaired and measured before the store lock is taken: an hour of audio takes
        // seconds to decode, and every other change to the store would wait for it. Two
        // commands recovering at once both measure (each rewrites through a file of its own
        // and renames, so the file is always whole); the first to add the item wins.
        let recovered =
            documents.document[entry.id] == nil ? Self.recoverAudio(entry, path: path)?.analyzed(path: path) : nil
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
            try tx.add(item)
            note =
                "recovered an interrupted recording as \(tx.document.path(of: entry.id)) (\(Format.duration(info.duration)))"
        }
        try viewState.transaction { vs in
            if vs.state.recording?.id == entry.id { vs.recordingEnded() }
        }
        return note
    }

    /// What the dead writer left: the frames really in the file. A file whose header does
    /// not declare them (the writer never finished it) is rewritten whole, so that it plays
    /// and seeks like any other. nil when there is no readable audio.
    static func recoverAudio(_ entry: ViewState.RecordingInProgress, path: String) -> RecordingInfo? {
        guard let frames = try? SoundFile.countFrames(path: path), frames > 0,
            let file = try? SoundFile.open(path: path)
        else { return nil }
        var finalFrames = frames
        if file.frames != frames, let format = entry.format {
            let temporary = path + ".recovering-\(getpid())"
            if let copied = try? SoundFile.copy(file, to: temporary, format: format), copied > 0,
                (try? FileSystem.syncFile(temporary)) != nil, rename(temporary, path) == 0
            {
                finalFrames = copied
            } else {
                try? FileSystem.remove(temporary)
            }
        }
        return RecordingInfo(
            duration: Double(finalFrames) / Double(file.sampleRate), frames: finalFrames,
            sampleRate: file.sampleRate, channels: file.channels,
            format: entry.format ?? AudioFormat(fileName: entry.file) ?? .wav, file: entry.file)
    }
}
