import RecAudio
import RecStore
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// The layout of headerless audio on stdin: `--rate --channels --encoding`.
package struct RawLayout: Equatable, Sendable {
    package var rate: Int
    package var channels: Int
    package var encoding: RawEncoding

    package init(rate: Int, channels: Int, encoding: RawEncoding) {
        self.rate = rate
        self.channels = channels
        self.encoding = encoding
    }
}

/// How imported audio is stored.
package enum ImportStorage: Equatable, Sendable {
    /// Decoded and encoded again in this format.
    case transcode(AudioFormat)
    /// The original bytes, when the file is in one of the formats recnotes stores.
    case keep
}

/// `recnotes import`: audio files (or stdin) become recordings, all of them or none.
///
/// Everything that can be refused is refused before any audio is written: the folder, the
/// names (taken, invalid, or the same twice), unreadable files. Then each file is written to
/// a hidden temporary file in `audio/`, synced and renamed to `<uuid>.<ext>`; once all are
/// there, one transaction adds every item. On any failure (or `cancel`) the files written so
/// far are removed and `store.json` is not touched.
package final class Importer {
    package struct Source {
        /// A path, or `-` for stdin.
        package var path: String
        package var name: String
        var label: String { path == "-" ? "stdin" : path }
    }

    package let library: Library
    package let folder: Item
    package let sources: [Source]
    package let storage: ImportStorage
    package let raw: RawLayout?
    /// `--salvage`: a file that ends early or stops decoding is imported as far as it decodes.
    package let salvage: Bool
    /// `--enhance`: the enhancement each recording is added with.
    package let enhance: Enhancement
    /// The files are the caller's own temporary files in `audio/` (an upload's body), which
    /// the import may rewrite and rename: a placeholder WAV length is filled in where the file
    /// is, and a file already in the format asked for becomes the recording itself, so that
    /// its audio is written once and needs no room for a second copy.
    package let consumesFiles: Bool
    /// What `--salvage` kept of each file that needed it, in the order imported.
    package private(set) var salvaged: [Salvaged] = []
    package let cancel = CancelFlag()
    /// Files in audio/ this import created, removed again unless it succeeds.
    private var created: [String] = []
    private let stdinFD: Int32

    /// Resolves the folder and names and checks them; reads nothing yet.
    /// `--to` with `-p`: the folder to make, with the items, in the transaction that adds them.
    private let folderToMake: (parent: ItemID, names: [String])?

    package init(
        library: Library, files: [String], folder: String?, name: String?, storage: ImportStorage,
        raw: RawLayout?, stdin: Int32 = 0, now: Timestamp = .now(), createParents: Bool = false,
        salvage: Bool = false, enhance: Enhancement = .off, consumesFiles: Bool = false
    ) throws {
        self.library = library
        self.consumesFiles = consumesFiles
        self.enhance = enhance
        self.storage = storage
        self.raw = raw
        self.salvage = salvage
        if salvage && storage == .keep {
            throw RecError.usage(
                "--salvage",
                "stores what decodes again, so it cannot go with --keep; choose a --format (wav or flac keep every sample)"
            )
        }
        stdinFD = stdin
        guard !files.isEmpty else { throw RecError.usage("import", "give at least one FILE, or - for stdin") }
        if name != nil && files.count > 1 { throw RecError.usage("--name", "can only name a single imported file") }
        if files.filter({ $0 == "-" }).count > 1 { throw RecError.usage("-", "stdin can be imported only once") }
        if raw != nil && !files.contains("-") {
            throw RecError.usage("--encoding", "raw audio can only be read from stdin (-)")
        }
        if let raw { try AudioFormat.validateLayout(rate: raw.rate, channels: raw.channels) }
        if raw != nil && storage == .keep {
            throw RecError.usage("--keep", "raw audio has no container to keep; choose a --format")
        }
        var destination = library.document[library.state.currentFolder] ?? library.document.root
        var toMake: (parent: ItemID, names: [String])?
        if let folder {
            let resolver = library.resolver
            switch try resolver.walk(folder) {
            case .existing(let item) where item.isFolder:
                destination = item
            case .existing:
                throw RecError.failure(folder, "not a folder")
            case .missing(let parent, let names, _):
                guard createParents else {
                    throw resolver.missing(folder, parent: parent, names: names, hint: "use -p to create it")
                }
                toMake = (parent.id, names)
                destination = parent  // a stand-in until the transaction makes it
            }
        }
        self.folder = destination
        folderToMake = toMake
        var seen: Set<String> = []
        var sources: [Source] = []
        for file in files {
            let chosen = name ?? (file == "-" ? Format.defaultRecordingName(now) : Self.defaultName(for: file))
            try NameRules.validate(chosen)
            if toMake == nil, let existing = library.document.child(named: chosen, in: self.folder.id) {
                throw RecError.failure(library.document.path(of: existing.id), "already exists")
            }
            guard seen.insert(chosen).inserted else {
                throw RecError.usage(
                    file,
                    "another FILE would also be imported as \(NameRules.quoted(chosen)); import them separately with --name"
                )
            }
            sources.append(Source(path: file, name: chosen))
        }
        self.sources = sources
        // Checked as every change to a read-only store is, once the arguments are: one line.
        if library.isReadOnly { throw library.documents.readOnlyError }
    }

    /// `Standup 2024.flac` → `Standup 2024`; a name that is only an extension is kept whole.
    package static func defaultName(for path: String) -> String {
        let base = FileSystem.baseName(of: path.hasSuffix("/") ? String(path.dropLast()) : path)
        guard let dot = base.lastIndex(of: "."), dot != base.startIndex else { return base }
        return String(base[..<dot])
    }

    deinit { removeCreated() }

    private func removeCreated() {
        for path in created { try? FileSystem.remove(path) }
        created = []
    }

    private var audioDirectory: String { library.location.audioDirectory }

    private func temporaryPath(_ tag: String) -> String {
        Self.temporaryPath(in: audioDirectory, tag: tag)
    }

    /// An import's temporary file in `audioDirectory`: `.import-PID-HEX.TAG`, the name `fsck`
    /// knows to sweep once the process is gone (`StoreCheck`).
    package static func temporaryPath(in audioDirectory: String, tag: String) -> String {
        "\(audioDirectory)/.import-\(getpid())-\(ItemID.random().hexDigits.prefix(12)).\(tag)"
    }

    /// Imports every source; returns the items, in the order given. `onEvent` receives each
    /// file's events (index into `sources`).
    @discardableResult
    package func run(onEvent: @escaping (Int, AudioEvent) -> Void = { _, _ in }) throws -> [Item] {
        try FileSystem.makeDirectories(audioDirectory)
        var items: [Item] = []
        do {
            for (index, source) in sources.enumerated() {
                do {
                    items.append(try importOne(source) { onEvent(index, $0) })
                } catch {
                    // About the input as given, never about the copy being made of it.
                    throw library.inUserTerms(error, temporaryOwner: source.label)
                }
            }
            try library.documents.transaction { tx in
                var parent: ItemID?
                if let folderToMake {
                    parent = try tx.makeFolders(folderToMake.names, in: folderToMake.parent).folder.id
                }
                for var item in items {
                    if let parent { item.parent = parent }
                    item.annotations.enhance = enhance
                    try tx.add(item)
                }
            }
        } catch {
            removeCreated()
            throw error
        }
        created = []
        FileSystem.syncDirectory(audioDirectory)
        return items.map { library.document[$0.id] ?? $0 }
    }

    /// stdin, copied to a hidden file in audio/ so that libsndfile can seek in it (FLAC and
    /// Ogg cannot be read from a pipe).
    private func spoolStdin() throws -> String {
        let path = temporaryPath("stdin")
        try FileSystem.withOpened(
            path, O_WRONLY | O_CREAT | O_EXCL, failure: { RecError.failure(path, "cannot create: \($0)") },
            { fd in
                created.append(path)
                _ = try copyBytes(from: stdinFD, to: fd, source: "stdin", destination: path, cancel: cancel)
            })
        let container = StreamedInput.container(at: path)
        if raw != nil, let container {
            throw RecError.usage(
                "--encoding",
                "stdin starts with a \(container.rawValue) header, which describes the audio; leave out --rate, --channels and --encoding"
            )
        }
        // A stream's length is known only now that it has ended: a WAV written to a pipe
        // states a placeholder, and the audio is what arrived.
        if container == .wav { try StreamedInput.fillInWAVLengths(at: path) }
        return path
    }

    private func openSource(_ source: Source, at path: String) throws -> SoundFile {
        do {
            if source.path == "-", let raw {
                return try SoundFile.openRaw(path: path, encoding: raw.encoding, rate: raw.rate, channels: raw.channels)
            }
            return try SoundFile.open(path: path)
        } catch let error as AudioError {
            if source.path != "-", !FileSystem.exists(path) {
                throw RecError.failure(source.label, systemReason(ENOENT))
            }
            throw RecError.failure(source.label, error.reason)
        }
    }

    private func importOne(_ source: Source, onEvent: @escaping (AudioEvent) -> Void) throws -> Item {
        if source.path != "-" {
            var info = stat()
            if stat(source.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
                throw RecError.failure(source.label, "is a directory")
            }
        }
        // A WAV written to a file by a writer that streams (espeak-ng --stdout > x.wav) holds
        // the placeholder it would on stdin, and is read as stdin's is: a copy of our own
        // whose header states what the file holds. The input itself is never written.
        let inputPath: String
        // Ours to rewrite and to rename into place.
        let ours = consumesFiles && source.path != "-"
        if source.path == "-" {
            inputPath = try spoolStdin()
        } else if ours {
            if StreamedInput.statesPlaceholderWAVLength(at: source.path) {
                try StreamedInput.fillInWAVLengths(at: source.path)
            }
            inputPath = source.path
        } else if StreamedInput.statesPlaceholderWAVLength(at: source.path) {
            inputPath = temporaryPath("stream")
            created.append(inputPath)
            try copyFile(source.path, to: inputPath, label: source.label)
            try StreamedInput.fillInWAVLengths(at: inputPath)
        } else {
            inputPath = source.path
        }
        let spooled = ours || inputPath != source.path
        let input = try openSource(source, at: inputPath)
        input.stopsAtDecodingError = salvage
        let id = ItemID.random()
        let item: Item
        var storage = storage
        // Encoding again what is already stored as asked would cost a second copy's room,
        // and a lossy format's quality, for nothing.
        if ours, !salvage, case .transcode(let format) = storage, AudioFormat(exactly: input) == format,
            (try? format.storableRate(for: input.sampleRate, channels: input.channels, name: source.label))
                == input.sampleRate
        {
            storage = .keep
        }
        switch storage {
        case .keep:
            guard let format = AudioFormat(exactly: input) else {
                throw RecError.failure(
                    source.label,
                    "--keep stores only wav, flac, opus, vorbis and mp3 files, not \(AudioFormat.describe(input)); leave out --keep to convert it"
                )
            }
            let progress = TranscodeProgress(
                source: source.path, destination: "\(id).\(format.fileExtension)", rate: input.sampleRate,
                channels: input.channels, totalFrames: input.declaresLength ? input.frames : nil, onEvent: onEvent)
            // The kept bytes are what this decode reads: it measures the analysis too.
            let analysis = try BackgroundAnalysis(
                sampleRate: input.sampleRate, channels: input.channels,
                length: input.declaresLength ? input.frames : nil)
            let frames: Int64
            do {
                frames = try Transcode.verify(input, name: source.label, progress: progress, analysis: analysis)
            } catch {
                progress.fail("\(library.inUserTerms(error, temporaryOwner: source.label))")
                throw error
            }
            let file = "\(id).\(format.fileExtension)"
            let temporary: String
            if spooled {
                temporary = inputPath  // already ours, in audio/
            } else {
                temporary = temporaryPath(format.fileExtension)
                created.append(temporary)
                try copyFile(inputPath, to: temporary, label: source.label)
            }
            try place(temporary, as: file)
            progress.finish()
            item = .recording(
                id: id, name: source.name, parent: folder.id, created: .now(),
                info: RecordingInfo(
                    duration: Double(frames) / Double(input.sampleRate), frames: frames,
                    sampleRate: input.sampleRate, channels: input.channels,
                    format: format, file: file
                ).with(analysis.finish()))
        case .transcode(let format):
            let rate = try format.storableRate(for: input.sampleRate, channels: input.channels, name: source.label)
            let file = "\(id).\(format.fileExtension)"
            let temporary = temporaryPath(format.fileExtension)
            created.append(temporary)
            let progress = TranscodeProgress(
                source: source.path, destination: file, rate: input.sampleRate, channels: input.channels,
                totalFrames: input.declaresLength ? input.frames : nil, onEvent: onEvent)
            progress.bytes = { FileSystem.size(temporary) }
            let result: Transcode.Result
            // Measured from the blocks as they are encoded, on the second core: no decode of
            // the file written.
            let analysis = try BackgroundAnalysis(
                sampleRate: rate, channels: input.channels,
                length: rate == input.sampleRate && input.declaresLength ? input.frames : nil)
            do {
                let target = try SoundFile.create(
                    path: temporary, sndfileFormat: format.sndfileFormat(highResolution: input.isHighResolution),
                    rate: rate, channels: input.channels)
                let resampler =
                    rate == input.sampleRate
                    ? nil : Resampler(from: input.sampleRate, to: rate, channels: input.channels)
                do {
                    result = try Transcode.copy(
                        input, into: target, resampler: resampler, progress: progress, cancel: cancel,
                        analysis: analysis)
                } catch let error as AudioError where error.subject == .file(inputPath) {
                    throw RecError.failure(
                        source.label, error.reason + (progress.frames > 0 ? Transcode.salvageOffer : ""))
                }
                try Transcode.checkComplete(input, decoded: result.framesRead, name: source.label, salvaging: salvage)
                try target.close()
                if input.decodingError != nil || Transcode.isShort(input, decoded: result.framesRead) {
                    salvaged.append(
                        Salvaged(
                            source: source.label, kept: result.framesRead,
                            declared: input.declaredFramesWhenTruncated ?? (input.declaresLength ? input.frames : nil),
                            sampleRate: input.sampleRate,
                            decodingError: input.decodingError?.reason))
                }
            } catch {
                progress.fail("\(library.inUserTerms(error, temporaryOwner: source.label))")
                throw error
            }
            try place(temporary, as: file)
            progress.finish()
            item = .recording(
                id: id, name: source.name, parent: folder.id, created: .now(),
                info: RecordingInfo(
                    duration: Double(result.framesWritten) / Double(rate), frames: result.framesWritten,
                    sampleRate: rate, channels: input.channels, format: format, file: file
                )
                .with(analysis.finish()))
        }
        if spooled, inputPath != library.location.audioPath(item.recording!.file) {
            try? FileSystem.remove(inputPath)
            created.removeAll { $0 == inputPath }
        }
        return item
    }

    /// Syncs a finished temporary file and renames it to its final name in audio/.
    private func place(_ temporary: String, as file: String) throws {
        let final = library.location.audioPath(file)
        try FileSystem.publish(temporary, as: final)
        created.removeAll { $0 == temporary }
        created.append(final)
    }

    private func copyFile(_ from: String, to: String, label: String) throws {
        try FileSystem.withOpened(
            from, O_RDONLY, failure: { RecError.failure(label, $0) },
            { input in
                _ = try FileSystem.withOpened(
                    to, O_WRONLY | O_CREAT | O_TRUNC, failure: { RecError.failure(to, "cannot create: \($0)") }
                ) { output in
                    try copyBytes(from: input, to: output, source: label, destination: to, cancel: cancel)
                }
            })
    }
}

extension Importer {
    /// What `--salvage` kept of a file that ends early or stops decoding.
    package struct Salvaged: Equatable, Sendable, CustomStringConvertible {
        /// The input as given (`stdin` for `-`).
        package var source: String
        /// Frames kept (all that decoded), at the input's rate.
        package var kept: Int64
        /// What the header declares, when it states a length.
        package var declared: Int64?
        package var sampleRate: Int
        /// Why decoding stopped, when it did not simply run out of data.
        package var decodingError: String?

        /// `salvaged 3.12 s of the 5.00 s its header declares; the rest is not in the file`.
        package var description: String {
            func seconds(_ frames: Int64) -> String {
                let hundredths = frames * 100 / Int64(max(sampleRate, 1))
                let fraction = hundredths % 100
                return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction) s"
            }
            var text = "salvaged \(seconds(kept))"
            if let declared, declared > kept { text += " of the \(seconds(declared)) its header declares" }
            text += decodingError.map { "; decoding stopped there: \($0)" } ?? "; the rest is not in the file"
            return text
        }
    }
}

extension AudioFormat {
    /// The rate to store audio of `rate` Hz at: the same when this format can, else 48 kHz
    /// (the resampler converts). Channel counts the format cannot hold are an error.
    func storableRate(for rate: Int, channels: Int, name: String) throws -> Int {
        if canWrite(rate: rate, channels: channels) { return rate }
        if canWrite(rate: defaultRate, channels: channels) { return defaultRate }
        if !isSupported(rate: defaultRate, channels: 1) {
            throw RecError.failure(
                "--format \(rawValue)", "this libsndfile (\(LibraryVersions.sndfile)) cannot write it")
        }
        throw RecError.failure(
            name, "\(channels) channels cannot be stored as \(rawValue); choose another --format (flac or wav hold any)"
        )
    }
}
