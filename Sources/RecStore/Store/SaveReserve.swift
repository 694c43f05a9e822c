import RecSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Room set aside on the store's disk while a recording runs, so that a disk that fills up
/// ends the recording but not its saving: the recorder keeps what reached the disk, gives
/// the reserve back, and then has room to write `store.json` (a new copy beside the old
/// one), `viewstate.json` and the journal's line.
///
/// It is a hidden file in `audio/`, `.<uuid>.reserve.tmp-<pid>`: a temporary file as
/// `StoreCheck.temporaryFileOwner` reads them, so that one a killed recorder left is
/// removed by the recovery of its recording (which then has the room) or by `fsck --repair`.
/// When the room is not there at the start, the recording goes on without it; if the disk
/// then fills, the audio stays and its in-progress entry lets a later command save it.
package struct SaveReserve {
    package let path: String

    /// Sets the room aside for the recording `id` of this process; nil when it is not there.
    package init?(location: StoreLocation, id: ItemID) {
        path = Self.path(location: location, id: id, pid: getpid())
        guard FileSystem.reserve(path, bytes: Self.bytes(for: location)) else { return nil }
    }

    /// Gives the room back.
    package func release() {
        try? FileSystem.remove(path)
    }

    package static func path(location: StoreLocation, id: ItemID, pid: Int32) -> String {
        location.audioPath(".\(id).reserve.tmp-\(pid)")
    }

    /// What saving a recording may need at most: a second `store.json` while the new one
    /// replaces the old, with room for the new item (its analysis included), the view state
    /// and the journal's line (64 KiB holds them with room to spare); in whole pages.
    package static func bytes(for location: StoreLocation) -> Int64 {
        let needed = (FileSystem.size(location.storeFile) ?? 0) + 64 * 1024
        let page: Int64 = 4096
        return (needed + page - 1) / page * page
    }

    /// Less than that, and saving cannot succeed: a second `store.json` and a little more.
    /// Recovery looks before it decodes any audio (`Library.recoverInterruptedRecording`).
    package static func leastToSave(_ location: StoreLocation) -> Int64 {
        (FileSystem.size(location.storeFile) ?? 0) + 8 * 1024
    }

    /// Whether a file name is a reserve's (fsck describes it as such).
    package static func isReserve(_ name: String) -> Bool {
        name.contains(".reserve.tmp-")
    }
}
