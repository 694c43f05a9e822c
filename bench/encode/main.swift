import RecStore

// recnotes-encode: how long `DocumentCodec.encode` takes on a given store.json, alone (no
// decode, no write), for bench/encode.sh. Usage: recnotes-encode STORE.JSON [RUNS]
// Prints the fastest and the median encode in milliseconds, the encoded size, and whether
// the bytes are the file's own (they are for a file recnotes wrote: the check that two
// builds write the same layout). A file named viewstate.json is re-encoded by
// `ViewStateCodec` instead, once, for that check alone.
#if canImport(Glibc)
    import Glibc
#endif

/// Says why on standard error and exits.
func fail(_ message: String, status: Int32) -> Never {
    let line = Array("recnotes-encode: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(status)
}

let arguments = CommandLine.arguments
guard arguments.count >= 2, let file = fopen(arguments[1], "rb") else {
    fail("usage: recnotes-encode STORE.JSON [RUNS]", status: 2)
}
let runs = arguments.count > 2 ? max(Int(arguments[2]) ?? 10, 1) : 10
var input: [UInt8] = []
var chunk = [UInt8](repeating: 0, count: 1 << 20)
while true {
    let n = fread(&chunk, 1, chunk.count, file)
    if n <= 0 { break }
    input += chunk[0..<n]
}
fclose(file)
if arguments[1].hasSuffix("viewstate.json") {
    do {
        let state = try input.withUnsafeBufferPointer { try ViewStateCodec.decode($0) }
        print("viewstate: identical \(ViewStateCodec.encode(state) == input)")
        exit(0)
    } catch {
        fail("\(arguments[1]): \(error)", status: 1)
    }
}
let document: Document
do {
    document = try input.withUnsafeBufferPointer { try DocumentCodec.decode($0).0 }
} catch {
    fail("\(arguments[1]): \(error)", status: 1)
}

/// Milliseconds of `clock`: the wall clock, or this thread's CPU time, which other work on a
/// loaded machine disturbs far less.
func now(_ clock: clockid_t = CLOCK_MONOTONIC) -> Double {
    var t = timespec()
    clock_gettime(clock, &t)
    return Double(t.tv_sec) * 1000 + Double(t.tv_nsec) / 1e6
}

var times: [Double] = []
var cpuTimes: [Double] = []
var size = 0
var checksum = 0
var identical = true
for _ in 0..<runs {
    let start = now()
    let cpuStart = now(CLOCK_THREAD_CPUTIME_ID)
    let bytes = DocumentCodec.encode(document)
    cpuTimes.append(now(CLOCK_THREAD_CPUTIME_ID) - cpuStart)
    times.append(now() - start)
    size = bytes.count
    identical = identical && bytes == input
    checksum &+= Int(bytes[bytes.count / 2])  // keeps the work from being optimised away
}
times.sort()
cpuTimes.sort()
/// `12.3`: milliseconds to the tenth.
func ms(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
}
// Beside the encode, what a change at this size must read: the whole decode every
// command does now, and a scan that finds each item's line without decoding it
// (`SharedItemsCodec.scan`, the merge driver's): about what a store that decodes only the
// items a change touches would pay instead.
@MainActor func timed(_ body: () -> Int) -> Double {
    var best = Double.infinity
    for _ in 0..<runs {
        let cpuStart = now(CLOCK_THREAD_CPUTIME_ID)
        checksum &+= body()
        best = min(best, now(CLOCK_THREAD_CPUTIME_ID) - cpuStart)
    }
    return best
}
let decodeTime = timed {
    (try? input.withUnsafeBufferPointer { try DocumentCodec.decode($0).0 })?.items.count ?? 0
}
let scanned = input.withUnsafeBufferPointer { SharedItemsCodec.scan($0) != nil }
let scanTime = timed { input.withUnsafeBufferPointer { SharedItemsCodec.scan($0) == nil ? 0 : 1 } }
print(
    "decode: CPU min \(ms(decodeTime)) ms; scan (each item's line found, none decoded): CPU min \(ms(scanTime)) ms, laid out as written \(scanned)"
)
print(
    "encode: CPU min \(ms(cpuTimes[0])) ms, median \(ms(cpuTimes[cpuTimes.count / 2])) ms; wall min \(ms(times[0])) ms, median \(ms(times[times.count / 2])) ms; \(size) bytes, \(document.items.count) items, identical \(identical) (\(checksum))"
)
