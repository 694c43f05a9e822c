import RecSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Where a store lives and the files inside it.
package struct StoreLocation: Equatable, Sendable {
    package var directory: String

    package init(directory: String) {
        self.directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
    }

    /// The variables `resolve` reads.
    package static let environmentNames = ["RECNOTES_HOME", "XDG_DATA_HOME", "HOME"]

    /// `resolve` against this process's environment.
    package static func resolve(explicit: String?) throws -> StoreLocation {
        try resolve(explicit: explicit, environment: Environment.values(environmentNames))
    }

    /// `--store DIR`, else `$RECNOTES_HOME`, else `$XDG_DATA_HOME/recnotes`, else
    /// `~/.local/share/recnotes`, as the XDG base-directory spec prescribes for user data.
    package static func resolve(explicit: String?, environment: [String: String]) throws -> StoreLocation {
        if let explicit {
            guard !explicit.isEmpty else { throw RecError.usage("--store", "the store directory cannot be empty") }
            return StoreLocation(directory: explicit)
        }
        if let home = environment["RECNOTES_HOME"], !home.isEmpty { return StoreLocation(directory: home) }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return StoreLocation(directory: data + "/recnotes")
        }
        guard let home = environment["HOME"], !home.isEmpty else {
            throw RecError.usage(
                "--store", "no store given and $HOME is not set; pass --store DIR or set RECNOTES_HOME")
        }
        return StoreLocation(directory: home + "/.local/share/recnotes")
    }

    package var storeFile: String { directory + "/store.json" }
    package var viewStateFile: String { directory + "/viewstate.json" }
    package var audioDirectory: String { directory + "/audio" }
    /// Held around every read-modify-write of `store.json`.
    package var storeLockFile: String { directory + "/store.lock" }
    /// Held around every read-modify-write of `viewstate.json`; always taken after the
    /// store lock when both are needed, so two commands can never deadlock.
    package var viewStateLockFile: String { directory + "/viewstate.lock" }

    package func audioPath(_ file: String) -> String { audioDirectory + "/" + file }

    /// The size of a recording's audio file, if it has one on disk.
    package func audioSize(of item: Item) -> Int64? {
        item.recording.flatMap { FileSystem.size(audioPath($0.file)) }
    }

    /// Audio that sync left on other machines: git-annex keeps a symlink here whose content
    /// is not (`recnotes get` brings it). A missing file without a link is lost, not elsewhere.
    package func audioIsElsewhere(_ file: String) -> Bool {
        let path = audioPath(file)
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK && !FileSystem.exists(path)
    }

    /// One `<uuid>.json` per transcribed recording (see `TranscriptFiles`).
    package var transcriptsDirectory: String { directory + "/transcripts" }

    /// What the journal keeps for `undo` beyond its own lines: transcripts that
    /// `transcribe` replaced (see `TranscriptFiles.keepForUndo`).
    package var undoDirectory: String { directory + "/undo" }

    /// Files derived from the others, which can be deleted at any time and are made again
    /// when needed: `find`'s index (`ItemIndex`, `TranscriptIndex`) and the reads' table
    /// (`StoreTable`).
    package var cacheDirectory: String { directory + "/cache" }
    package var itemIndexFile: String { cacheDirectory + "/find-items" }
    /// Changes the items' index has not taken in yet (`ItemIndexLog`).
    package var itemIndexLogFile: String { cacheDirectory + "/find-items.pending" }
    package var transcriptIndexFile: String { cacheDirectory + "/find-transcripts" }
    /// The items' table that reading commands answer from (`StoreTable`).
    package var storeTableFile: String { cacheDirectory + "/" + StoreTable.fileName }
    /// The changes the reads' table has not taken in yet (`StoreTableLog`).
    package var storeTableLogFile: String { cacheDirectory + "/items-table.pending" }

    /// Whether this process may change the store: false for a store on a read-only mount
    /// or one whose directory or lock files it has no write permission for (a mounted
    /// backup, another user's store). A store that does not exist yet is writable if it can
    /// be created. Read-only stores are opened without locks, and every change is refused.
    package var isWritable: Bool { writeProblem == nil }

    /// Why the store cannot be written (`EROFS`, `EACCES` as text), or nil when it can.
    package var writeProblem: String? {
        var path = directory
        // The nearest directory that exists decides whether the store can be created.
        while !FileSystem.exists(path) {
            let parent = FileSystem.parentDirectory(of: path)
            if parent == path { break }
            path = parent
        }
        guard access(path, W_OK) == 0 else { return systemReason(errno) }
        guard path == directory else { return nil }
        for lock in [storeLockFile, viewStateLockFile] where FileSystem.exists(lock) {
            guard access(lock, W_OK) == 0 else { return "\(FileSystem.baseName(of: lock)): \(systemReason(errno))" }
        }
        return nil
    }

    /// Audio files or a journal without `store.json`: the documents were lost, and starting
    /// a fresh empty store would hide everything the audio and journal still know.
    package var hasLostDocuments: Bool {
        guard !FileSystem.exists(storeFile) else { return false }
        if FileSystem.exists(directory + "/journal.jsonl") { return true }
        return !FileSystem.entries(of: audioDirectory).filter { !$0.hasPrefix(".") }.isEmpty
    }
}

/// The identity of a file's content as of one read: a rename-based write always makes a
/// new inode, so an unchanged identity means the bytes in memory are still current.
/// (`package`: the server keeps a recording's audio open while its path leads to it.)
package struct FileIdentity: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    package var size: Int64
    var modifiedSeconds: Int
    var modifiedNanoseconds: Int

    init(device: UInt64, inode: UInt64, size: Int64, modifiedSeconds: Int, modifiedNanoseconds: Int) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modifiedSeconds = modifiedSeconds
        self.modifiedNanoseconds = modifiedNanoseconds
    }

    package init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    /// The file open as `descriptor`.
    init?(descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        self.init(info)
    }

    package init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modifiedSeconds = Int(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
    }
}

/// A 64-bit hash of a file's bytes: what tells `find`'s index that `store.json` is still the
/// file it was made from when the file's identity alone cannot (it changed within the last
/// second, so an edit in place in the same clock tick would keep its identity; not for a
/// file the store wrote with its time stamped, `DocumentStore.source`). Not for
/// adversaries: four lanes of multiply-and-rotate over 8-byte words, about 1 ms for 8 MB.
enum ContentHash {
    static func of(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let k1: UInt64 = 0x9E37_79B9_7F4A_7C15
        let k2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
        var lanes: (UInt64, UInt64, UInt64, UInt64) = (k1, k2, k1 ^ k2, ~k1)
        @inline(__always) func mix(_ h: UInt64, _ w: UInt64) -> UInt64 {
            let x = (h ^ w) &* k1
            return (x << 31 | x >> 33) &* k2
        }
        let count = bytes.count
        var at = 0
        if let base = bytes.baseAddress {
            while count - at >= 32 {
                lanes.0 = mix(lanes.0, base.loadUnaligned(fromByteOffset: at, as: UInt64.self))
                lanes.1 = mix(lanes.1, base.loadUnaligned(fromByteOffset: at + 8, as: UInt64.self))
                lanes.2 = mix(lanes.2, base.loadUnaligned(fromByteOffset: at + 16, as: UInt64.self))
                lanes.3 = mix(lanes.3, base.loadUnaligned(fromByteOffset: at + 24, as: UInt64.self))
                at += 32
            }
        }
        var h = mix(mix(mix(mix(UInt64(count), lanes.0), lanes.1), lanes.2), lanes.3)
        while at < count {
            h = mix(h, UInt64(bytes[at]))
            at += 1
        }
        return h ^ h >> 29
    }

    static func of(_ bytes: [UInt8]) -> UInt64 { bytes.withUnsafeBytes { of($0) } }
}
