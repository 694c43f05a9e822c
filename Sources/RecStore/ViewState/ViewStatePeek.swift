import RecSystem

#if canImport(Glibc)
    import Glibc
#endif

extension ViewStateStore {
    /// The view state as on disk, read without the lock: every write is an atomic rename,
    /// so a reader sees one whole version or the next. nil if missing or unreadable.
    package static func peek(_ location: StoreLocation) -> ViewState? {
        guard let bytes = try? FileSystem.read(location.viewStateFile) else { return nil }
        return try? bytes.withUnsafeBufferPointer { try ViewStateCodec.decode($0) }
    }
}

extension ViewState {
    /// Whether `job` is registered to this process with this item.
    package func isOwn(_ job: Job, id: ItemID, pid: Int32) -> Bool {
        switch job {
        case .recording: return recording?.id == id && recording?.pid == pid
        case .playback: return playing?.id == id && playing?.pid == pid
        }
    }
}
