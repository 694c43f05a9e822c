import RecStore
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// `export PATH --markdown FILE` and `export -r FOLDER --markdown DIR`: recordings as Markdown
/// notes (`MarkdownNote`), written again in place on the next export with what the user added
/// below the note's last line kept. A file that is not a note this wrote is never replaced
/// without `replacing` (`--force`).
package struct MarkdownExport {
    package let library: Library
    package var options: MarkdownNote.Options
    /// The audio as stored, copied beside each note (`NAME.ext`) and shown in it.
    package var copyAudio: Bool
    package var replacing: Bool

    package init(library: Library, options: MarkdownNote.Options, copyAudio: Bool, replacing: Bool) {
        self.library = library
        self.options = options
        self.copyAudio = copyAudio
        self.replacing = replacing
    }

    /// The note of recording `item`, as it would be written to `file` (nil: stdout, where
    /// no audio is copied).
    package func text(of item: Item, for file: String?) throws -> String {
        let transcript = try TranscriptFiles(location: library.location).read(item.id)
        var options = options
        if copyAudio, let file, let info = item.recording {
            options.audioFile = Self.audioName(note: file, format: info.format)
        }
        return MarkdownNote.render(item, transcript: transcript, options: options)
    }

    /// Writes recording `item`'s note to `file` (and its audio beside it with `copyAudio`).
    package func write(_ item: Item, to file: String) throws {
        var text = try text(of: item, for: file)
        let existing = try FileSystem.read(file)
        if let existing {
            if let merged = MarkdownNote.merged(text, over: String(decoding: existing, as: UTF8.self)) {
                text = merged
            } else if !replacing {
                throw RecError.failure(file, "exists and is not a note recnotes wrote (--force replaces it)")
            }
        }
        if copyAudio, let info = item.recording {
            try library.requireAudioHere(item)
            let audio = FileSystem.parentDirectory(of: file) + "/" + Self.audioName(note: file, format: info.format)
            let source = library.location.audioPath(info.file)
            guard let bytes = try FileSystem.read(source) else { throw RecError.failure(source, "no such file") }
            try FileSystem.writeAtomically(bytes, to: audio)
        }
        // A note written over holds what the user wrote below its line, and is synced to the
        // disk before it takes the old one's place; a new one is all export, made again by
        // exporting again, so a thousand of them do not wait for a thousand syncs.
        try FileSystem.writeAtomically(Array(text.utf8), to: file, durable: existing != nil)
    }

    /// Every recording under `folder`, each to `directory/SUBFOLDERS/NAME.md` as the library
    /// nests it; returns how many.
    package func write(folder: Item, into directory: String) throws -> Int {
        var count = 0
        for item in library.document.subtree(of: folder.id) where item.recording != nil {
            var parts: [String] = []
            var parent = item.parent
            while let id = parent, id != folder.id, let above = library.document[id] {
                parts.insert(MarkdownNote.fileName(above.name), at: 0)
                parent = above.parent
            }
            let target = ([directory] + parts).joined(separator: "/")
            try FileSystem.makeDirectories(target)
            try write(item, to: target + "/" + MarkdownNote.fileName(item.name) + ".md")
            count += 1
        }
        return count
    }

    /// The audio's name beside note `file`: the note's name with the audio's extension.
    static func audioName(note file: String, format: AudioFormat) -> String {
        var base = FileSystem.baseName(of: file)
        if base.hasSuffix(".md") { base.removeLast(3) }
        return base + "." + format.fileExtension
    }
}
