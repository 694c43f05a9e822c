import Hummingbird
import RecCore
import RecStore
import RecSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The recordings' audio files a server has open, by UUID, so that `/audio/<uuid>` (a player
/// seeking sends one Range request after another) does not find the recording in the library,
/// follow its links and open its file for every request. An entry is used only while it is
/// still true:
/// - store.json unchanged (the store's watch, `EventHub`, drained on each request: a move,
///   a trash, a new recording in the item's place all replace store.json, and any change of it
///   empties the cache);
/// - the recording's path still leading to the open file (`AudioFile.isCurrent`, one `stat`:
///   a file replaced or rewritten under the same name, as a sync or a re-encoding does, is
///   opened again, which store.json's watch would not see).
/// Without a watch (no inotify instance left) nothing is kept: each request looks afresh.
final class AudioFileCache: Sendable {
    struct Shrunk: Error {}

    private struct Cache {
        /// The store changes `open` was made at (`EventHub.storeChanges`).
        var storeChanges: Int?
        var open: [String: LibraryAPI.AudioFile] = [:]
    }
    private let location: StoreLocation
    private let hub: Server.EventHub
    private let cache = Mutex(Cache())
    /// At most this many files kept open (a descriptor each): a client that walks a whole
    /// library empties the cache now and then, far below the process's 1,024 descriptors.
    static let kept = 64

    init(location: StoreLocation, hub: Server.EventHub) {
        self.location = location
        self.hub = hub
    }

    /// The recording's file, open, nil when `uuid` names no recording with a file in the store.
    func file(_ uuid: Substring) -> LibraryAPI.AudioFile? {
        // Taken before the library is read: a change while it is read makes the entry stale
        // at once, never current.
        let changes = hub.storeChanges()
        let cached: LibraryAPI.AudioFile? = cache.withLock { cache in
            if cache.storeChanges != changes || changes == nil {
                cache.open.removeAll()
                cache.storeChanges = changes
            }
            return cache.open[String(uuid)]
        }
        if let cached, cached.isCurrent { return cached }
        let file = LibraryAPI.audio(uuid, location: location)
        cache.withLock { cache in
            guard changes != nil, cache.storeChanges == changes else { return }
            if cache.open.count >= Self.kept { cache.open.removeAll() }
            cache.open[String(uuid)] = file
        }
        return file
    }

    /// Up to `count` bytes of `file` from `offset`, read (pread: no shared offset, so bodies
    /// of one file never interfere) straight into the buffer the response sends; fewer at the
    /// file's end.
    static func read(_ file: LibraryAPI.AudioFile, at offset: Int64, count: Int) throws -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { bytes in
            let got = file.file.withDescriptor { fd in
                System.retrying { pread(fd, bytes.baseAddress, count, off_t(offset)) }
            }
            guard got >= 0 else { throw RecError.failure("audio", systemReason(errno)) }
            return got
        }
        return buffer
    }
}
