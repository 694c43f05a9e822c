import RecAudio
import RecValues

// recnotes-spans: what a seek costs in an edited recording against the same seek in one
// take, for bench/spans.sh. Usage: recnotes-spans TAKE [SEEKS]
// The edited recording is TAKE with 99 stretches of 10 ms cut out at even steps (100 spans,
// 99 joins); each seek goes to a random frame and reads 4,800 frames (0.1 s at 48 kHz), the
// edited one through `SpanReader`, the other straight from `SoundFile`, in turns at the same
// offsets. Prints the median of each in milliseconds, then their ratio.
#if canImport(Glibc)
    import Glibc
#endif

func fail(_ message: String) -> Never {
    let line = Array("recnotes-spans: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(2)
}

func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

let arguments = CommandLine.arguments
guard arguments.count >= 2 else { fail("usage: recnotes-spans TAKE [SEEKS]") }
let path = arguments[1]
let seeks = arguments.count > 2 ? max(Int(arguments[2]) ?? 200, 1) : 200
do {
    let direct = try SoundFile.open(path: path)
    let take = EditList.Take(file: path, frames: direct.frames)
    var list = EditList(take: take)
    let cut = Int64(direct.sampleRate / 100)
    let step = direct.frames / 100
    for join in stride(from: Int64(99), through: 1, by: -1) { _ = list.cut((join * step)..<(join * step + cut)) }
    guard list.spans.count == 100 else { fail("the take is too short for 100 spans") }
    let reader = SpanReader(list: list, sampleRate: direct.sampleRate, channels: direct.channels) {
        try SoundFile.open(path: $0.file)
    }
    let frames = 4800
    var buffer = [Int16](repeating: 0, count: frames * direct.channels)
    var generator = SystemRandomNumberGenerator()
    var edited: [Double] = []
    var whole: [Double] = []
    for _ in 0..<seeks {
        let at = Int64.random(in: 0..<(list.frames - Int64(frames)), using: &generator)
        var start = now()
        reader.seek(to: at)
        _ = try buffer.withUnsafeMutableBufferPointer { try reader.read(into: $0.baseAddress!, frames: frames) }
        edited.append(now() - start)
        start = now()
        try direct.seek(to: at)
        _ = try buffer.withUnsafeMutableBufferPointer { try direct.read(into: $0.baseAddress!, frames: frames) }
        whole.append(now() - start)
    }
    let (a, b) = (median(edited) * 1000, median(whole) * 1000)
    print("spans \(a) ms")
    print("take \(b) ms")
    print("ratio \(a / b)")
} catch {
    fail("\(error)")
}
