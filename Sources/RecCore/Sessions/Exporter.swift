import RecAudio
import RecStore
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// `recnotes export`: a recording's audio, decoded (or copied as it is, when the format
/// asked for is the one it is stored in) to a file or to a stream such as stdout.
///
/// A file is written to a hidden temporary file beside it, synced and renamed over, so it
/// is either complete or not there. An existing file is never replaced without `replacing`
/// (`export --force`), as `mv` never replaces: refused before anything is written, and
/// again, atomically, as the file is put in place. WAV on a stream is written by hand, its header
/// declaring the recording's length, because libsndfile cannot write WAV without seeking
/// back; other formats on a stream are encoded into an unlinked temporary file first.
package final class Exporter {
    package enum Destination: Equatable, Sendable {
        /// An open file descriptor that cannot seek (stdout, a pipe).
        case stream(Int32)
        case file(String)
    }

    package let item: Item
    package let info: RecordingInfo
    package let sourcePath: String
    package let destination: Destination
    package let format: AudioFormat
    package let cancel = CancelFlag()
    /// With `trimmed`, the frames between the recording's trim points (nil: all of it).
    package let range: Range<Int64>?
    private let library: Library
    /// `--force`: a file at the destination (or where a transcript goes beside it) is replaced.
    package let replacing: Bool
    /// What is done to the audio written, the recording's stored enhancement applied
    /// (`EffectChoices.applied`). At 1× the stretcher is not in the path.
    package let effects: EffectChoices

    package init(
        library: Library, path: String, destination: Destination, format: AudioFormat?, trimmed: Bool = false,
        replacing: Bool = false, effects: EffectChoices = EffectChoices()
    ) throws {
        self.replacing = replacing
        let item = try library.resolver.resolve(path)
        guard let info = item.recording else { throw RecError.failure(path, "is a folder, not a recording") }
        self.effects = try effects.applied(to: item, path: path)
        self.library = library
        self.item = item
        self.info = info
        range = trimmed && item.annotations.trim != nil ? item.playedRange : nil
        try library.requireAudioHere(item)
        sourcePath = library.location.audioPath(info.file)
        self.destination = destination
        switch (format, destination) {
        case (let format?, _):
            self.format = format
        case (nil, .stream):
            self.format = .wav
        case (nil, .file(let file)):
            guard let guessed = AudioFormat(fileName: file) else {
                throw RecError.usage(
                    file, "cannot tell the format from the extension; add --format wav|flac|opus|vorbis|mp3")
            }
            self.format = guessed
        }
        if case .file(let file) = destination { try Self.refuseDestination(file, replacing: replacing) }
    }

    /// A file to export to that is a directory, or that exists and is not to be replaced, is
    /// refused before anything is written.
    private static func refuseDestination(_ file: String, replacing: Bool) throws {
        var st = stat()
        guard lstat(file, &st) == 0 else { return }
        if stat(file, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR { throw RecError.failure(file, "is a directory") }
        if !replacing { throw FileSystem.alreadyExists(file) }
    }

    private var destinationLabel: String {
        switch destination {
        case .stream: return "-"
        case .file(let path): return path
        }
    }

    /// Writes the audio. On failure a file destination is left as it was, and the error
    /// names the recording or the destination, never a file of the store or a temporary.
    package func run(onEvent: @escaping (AudioEvent) -> Void = { _ in }) throws {
        do { try export(onEvent: onEvent) } catch { throw inUserTerms(error) }
    }

    /// The error as the user should read it: about the recording (not `audio/<uuid>`), the
    /// destination (not the temporary file beside it), or `-`.
    private func inUserTerms(_ error: Error) -> Error {
        let error = library.inUserTerms(error)
        guard let (path, reason, kind) = Library.pathAndReason(of: error) else { return error }
        if case .file(let file) = destination, path == Self.temporary(for: file) { return RecError(kind, file, reason) }
        if path.hasPrefix(Self.streamTemporaryDirectory + "/.recnotes-export-") { return RecError(kind, "-", reason) }
        return error
    }

    /// The hidden file beside `file` that becomes it once complete.
    private static func temporary(for file: String) -> String {
        "\(FileSystem.parentDirectory(of: file))/.\(FileSystem.baseName(of: file)).tmp-\(getpid())"
    }

    /// Where a stream's encoding is made first.
    private static var streamTemporaryDirectory: String {
        Environment.temporaryDirectory
    }

    private func export(onEvent: @escaping (AudioEvent) -> Void) throws {
        let source = try SoundFile.open(path: sourcePath)
        var total = source.declaresLength ? source.frames : info.frames
        if let range {
            let clamped = range.clamped(to: 0..<total)
            try source.seek(to: clamped.lowerBound)
            total = clamped.upperBound - clamped.lowerBound
        }
        let progress = TranscodeProgress(
            source: sourcePath, destination: destinationLabel, rate: source.sampleRate,
            channels: source.channels, totalFrames: total, onEvent: onEvent)
        do {
            try write(source, frames: total, progress: progress)
        } catch {
            progress.fail("\(inUserTerms(error))")
            throw error
        }
        progress.finish()
    }

    /// `frames`: how many to write, from where `source` is positioned.
    private func write(_ source: SoundFile, frames: Int64, progress: TranscodeProgress) throws {
        // Trimmed or stretched audio is decoded: the stored bytes hold all of it, at 1×.
        let processed = effects.changesSamples
        let sameFormat = AudioFormat(exactly: source) == format && range == nil && !processed
        let limit = range == nil ? nil : frames
        switch destination {
        case .stream(let fd):
            if sameFormat {
                try copyStored(to: fd, progress: progress, total: frames)
            } else if format == .wav && !processed {
                // (A stretched length is known only once written: its WAV header cannot be
                // written first, so it goes through a temporary file like the other formats.)
                try WAVStream.write(source, to: fd, frames: frames, progress: progress, cancel: cancel)
            } else {
                try encodeThroughTemporary(source, to: fd, progress: progress, limit: limit)
            }
        case .file(let path):
            let temporary = Self.temporary(for: path)
            do {
                if sameFormat {
                    try FileSystem.withOpened(
                        temporary, O_WRONLY | O_CREAT | O_TRUNC,
                        failure: { RecError.failure(path, "cannot create: \($0)") },
                        { out in
                            try copyStored(to: out, progress: progress, total: frames)
                        })
                } else {
                    try encode(source, into: temporary, label: path, progress: progress, limit: limit)
                }
                try FileSystem.publish(temporary, as: path, replacing: replacing)
            } catch {
                unlink(temporary)
                throw error
            }
        }
    }

    /// The stored bytes as they are: the same format needs no decoding and loses nothing.
    private func copyStored(to fd: Int32, progress: TranscodeProgress, total: Int64) throws {
        _ = try FileSystem.withOpened(
            sourcePath, O_RDONLY, failure: { RecError.failure(sourcePath, "cannot read: \($0)") },
            { input in
                try copyBytes(from: input, to: fd, source: sourcePath, destination: destinationLabel, cancel: cancel)
            })
        progress.skip(to: total)
    }

    private func encode(
        _ source: SoundFile, into path: String, label: String, progress: TranscodeProgress, limit: Int64?
    ) throws {
        let rate = try format.storableRate(for: source.sampleRate, channels: source.channels, name: label)
        let target: SoundFile
        do {
            target = try SoundFile.create(
                path: path, sndfileFormat: format.sndfileFormat(highResolution: source.isHighResolution),
                rate: rate, channels: source.channels)
        } catch let error as AudioError {
            throw RecError.failure(label, "\(error.operation): \(error.reason)")
        }
        progress.bytes = { FileSystem.size(path) }
        let resampler =
            rate == source.sampleRate ? nil : Resampler(from: source.sampleRate, to: rate, channels: source.channels)
        _ = try Transcode.copy(
            source, into: target, resampler: resampler, progress: progress, cancel: cancel, limit: limit,
            effects: try chain(for: source, rate: rate, limit: limit))
        try target.close()
    }

    /// What the options do to the audio written at `rate` (`AudioChain` orders it).
    private func chain(for source: SoundFile, rate: Int, limit: Int64?) throws -> AudioEffects {
        effects.chain(
            denoiser: try denoiser(for: source, limit: limit), leveller: try leveller(for: source, rate: rate))
    }

    /// With `--denoise`, the suppressor at the source's rate, primed with the audio it is about
    /// to be fed (the file is left where it was).
    private func denoiser(for source: SoundFile, limit: Int64?) throws -> Denoiser? {
        guard effects.denoise else { return nil }
        let denoiser = try Denoiser(rate: source.sampleRate, channels: source.channels)
        // Where `export` positioned the source.
        let start = range?.clamped(to: 0..<max(source.frames, 1)).lowerBound ?? 0
        try denoiser.prime(from: source, at: start, end: limit.map { start + $0 } ?? .max)
        return denoiser
    }

    /// With `--level`, the leveller for what is written (`RecordingInfo.leveller`), at the
    /// target's rate: last in the chain.
    private func leveller(for source: SoundFile, rate: Int) throws -> Leveller? {
        guard let level = effects.level else { return nil }
        return try info.leveller(target: level, path: sourcePath, range: range, rate: rate)
    }

    /// Encodes into a temporary file that is unlinked at once (nothing is left behind, even
    /// if recnotes is killed), then copies it to the stream.
    private func encodeThroughTemporary(_ source: SoundFile, to fd: Int32, progress: TranscodeProgress, limit: Int64?)
        throws
    {
        let path =
            "\(Self.streamTemporaryDirectory)/.recnotes-export-\(getpid())-\(ItemID.random().hexDigits.prefix(12)).\(format.fileExtension)"
        let target: SoundFile
        do {
            target = try SoundFile.create(
                path: path, sndfileFormat: format.sndfileFormat(highResolution: source.isHighResolution),
                rate: try format.storableRate(for: source.sampleRate, channels: source.channels, name: "-"),
                channels: source.channels)
        } catch let error as AudioError {
            unlink(path)
            throw RecError.failure("-", "\(error.operation): \(error.reason)")
        }
        // The file goes at once, opened or not.
        let unlinked = { (reason: String) -> Error in
            unlink(path)
            return RecError.failure(path, "cannot read: \(reason)")
        }
        try FileSystem.withOpened(path, O_RDONLY, failure: unlinked) { reader in
            unlink(path)
            let resampler =
                target.sampleRate == source.sampleRate
                ? nil : Resampler(from: source.sampleRate, to: target.sampleRate, channels: source.channels)
            _ = try Transcode.copy(
                source, into: target, resampler: resampler, progress: progress, cancel: cancel, limit: limit,
                effects: try chain(for: source, rate: target.sampleRate, limit: limit))
            try target.close()
            _ = try copyBytes(from: reader, to: fd, source: path, destination: "-", cancel: cancel)
        }
    }
}

extension TranscodeProgress {
    /// For audio copied without decoding: straight to its end.
    func skip(to total: Int64) {
        advanceSilently(by: max(0, total - frames))
    }
}

extension Exporter {
    /// `export PATH --markers FORMAT`: a recording's markers as chapters in FORMAT's text.
    /// A cue sheet's FILE line names the audio as `export PATH NAME.EXT` would write it in
    /// the recording's own format, with no re-encoding.
    package static func markers(library: Library, path: String, format: MarkerExport) throws -> (
        item: Item, text: String
    ) {
        let item = try library.resolver.resolve(path)
        guard let info = item.recording else {
            throw RecError.failure(path, "is a folder; only recordings have markers")
        }
        let audioFile = "\(item.name).\(info.format.fileExtension)"
        return (
            item, format.render(name: item.name, info: info, markers: item.annotations.markers, audioFile: audioFile)
        )
    }

    /// `export FILE --transcript`: the recording's transcript in each of `formats`, with
    /// where it goes: beside the audio, FILE's name with the format's extension instead of
    /// an audio one (`talk.flac` → `talk.srt`). Timed like the exported audio, from the in
    /// point when trimmed. Throws, before any audio is written, when the recording has no
    /// transcript (`path` as typed, for the message).
    package func transcriptSidecars(_ formats: [TranscriptFormat], library: Library, path: String) throws -> [(
        file: String, text: String
    )] {
        guard case .file(let file) = destination else {
            throw RecError.usage("--transcript", "writes files beside the audio; name a FILE to export to")
        }
        var transcript = try TranscriptFiles(location: library.location).required(item.id, path: path)
        var duration = info.duration
        if let range {
            let rate = Double(max(info.sampleRate, 1))
            transcript = transcript.trimmed(from: Double(range.lowerBound) / rate, to: Double(range.upperBound) / rate)
            duration = Double(range.upperBound - range.lowerBound) / rate
        }
        // An audio extension gives way to the transcript's; any other name keeps what it has.
        let stem = AudioFormat(fileName: file) != nil ? String(file[..<file.lastIndex(of: ".")!]) : file
        var seen = Set<TranscriptFormat>()
        return try formats.filter { seen.insert($0).inserted }.map { format in
            let sidecar = stem + "." + format.rawValue
            try Self.refuseDestination(sidecar, replacing: replacing)
            return (file: sidecar, text: format.render(transcript, duration: duration))
        }
    }

    /// Writes exported text to `file`, complete or not at all; an existing file only when
    /// `replacing`.
    package static func write(text: String, to file: String, replacing: Bool) throws {
        try refuseDestination(file, replacing: replacing)
        try FileSystem.writeAtomically(Array(text.utf8), to: file, replacing: replacing)
    }
}
