import Foundation
import Testing

@testable import RecSystem

@Suite("System: errno values, write-all, clock, semaphore")
struct SystemTests {
    @Test func errnoRendersTheCLibraryText() {
        #expect(Errno(ENOENT).description == "No such file or directory")
        #expect(systemReason(EACCES) == "Permission denied")
        #expect(Errno(ENOENT) == .noSuchFile)
    }

    @Test func writeAllWritesEverythingAndThrowsTheErrno() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        // More than a pipe holds at once (64 KiB), read on another thread: short writes.
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let reader = ends[0]
        final class Sink: @unchecked Sendable { var data: [UInt8] = [] }  // @unchecked: read after join
        let sink = Sink()
        let thread = try JoinableThread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = System.retrying { read(reader, &buffer, buffer.count) }
                if n <= 0 { break }
                sink.data += buffer[0..<n]
            }
        }
        try System.writeAll(ends[1], bytes)
        close(ends[1])
        thread.join()
        close(ends[0])
        #expect(sink.data == bytes)
        // -1, not the closed end: a test running alongside may have reused its number.
        #expect(throws: Errno(EBADF)) { try System.writeAll(-1, [1, 2, 3]) }
    }

    @Test func semaphoreTimesOutOrWakes() {
        let semaphore = Semaphore()
        let before = MonotonicClock.now()
        #expect(semaphore.wait(milliseconds: 30) == false)
        #expect(MonotonicClock.now() - before >= 0.025)
        semaphore.signal()
        #expect(semaphore.wait(milliseconds: 5_000) == true)
        #expect(MonotonicClock.now() - before < 2)
    }
}
