import RecSystem

#if canImport(Glibc)
    import Glibc
#endif

extension ViewState {
    /// One recording at a time, to the store or to `--output`: a second one would fight the
    /// first for the device and for the remote-control entry.
    package func refuseAnotherRecording() throws {
        guard let other = recording, other.pid != getpid(), processIsAlive(other.pid) else { return }
        let what = other.output == nil ? other.destination : "to " + other.destination
        throw RecError.failure("record", "another recording is in progress (\(what), pid \(other.pid))")
    }
}
