import Foundation
import RecAudio
import RecCore
import RecTestSupport

/// Runs the built `recnotes` binary for the audio end-to-end tests, in a temporary HOME
/// whose `.asoundrc` makes ALSA's `default` device a pair of files: capture reads
/// `in.raw`, playback writes `out.raw` (the `file` plugin over `null`, faster than real
/// time). stdin is /dev/null, as in CI.
// @unchecked: `extraEnvironment` is set by a test before it starts any concurrent work,
// and only read afterwards.
final class AudioCLI: @unchecked Sendable {
    let home: String
    var store: String { home + "/store" }
    var input: String { home + "/in.raw" }
    var output: String { home + "/out.raw" }
    var extraEnvironment: [String: String] = [:]

    static var binary: String { BuiltProgram.path("recnotes") }

    init(asoundrc: String? = nil) throws {
        home = NSTemporaryDirectory() + "recnotes-audio-e2e-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let config =
            asoundrc ?? """
                pcm.!default {
                  type asym
                  playback.pcm { type file slave.pcm null file "\(output)" format "raw" }
                  capture.pcm { type file slave.pcm null file "/dev/null" infile "\(input)" format "raw" }
                }
                """
        try config.write(toFile: home + "/.asoundrc", atomically: true, encoding: .utf8)
    }

    deinit { try? FileManager.default.removeItem(atPath: home) }

    func writeInput(_ samples: [Int16]) throws {
        try samples.withUnsafeBufferPointer { Data(buffer: $0) }.write(to: URL(fileURLWithPath: input))
    }

    func outputSamples() -> [Int16] {
        guard let data = FileManager.default.contents(atPath: output) else { return [] }
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = home
        env["RECNOTES_HOME"] = store
        env["NO_COLOR"] = "1"
        env["RECNOTES_DEVICE"] = nil
        env.merge(extraEnvironment) { $1 }
        return env
    }

    func process(_ arguments: [String]) -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        return (process, out, err)
    }

    /// Runs to completion.
    @discardableResult
    func run(_ arguments: String...) throws -> Result {
        try run(arguments)
    }

    func run(_ arguments: [String]) throws -> Result {
        let (process, out, err) = process(arguments)
        try process.run()
        // Read both pipes fully before waiting, so a full pipe cannot stall the child.
        let errData = DrainedPipe(err)
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData.wait(), as: UTF8.self))
    }

    /// Starts `recnotes` in the background, waits until its stdout has printed a line
    /// containing `marker` (e.g. a progress event), then sends `signal` and waits for it.
    func runUntil(_ marker: String, thenSend signal: Int32, _ arguments: [String]) throws -> Result {
        let (process, out, err) = process(arguments)
        try process.run()
        let errData = DrainedPipe(err)
        var collected = Data()
        let handle = out.fileHandleForReading
        var signalled = false
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            collected.append(chunk)
            if !signalled, String(decoding: collected, as: UTF8.self).contains(marker) {
                kill(process.processIdentifier, signal)
                signalled = true
            }
        }
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: collected, as: UTF8.self),
            stderr: String(decoding: errData.wait(), as: UTF8.self))
    }

    /// The recordings in the store, from `find --json`.
    func recordings() throws -> [[String: Any]] {
        let result = try run("find", "/", "--type", "recording", "--json")
        guard result.status == 0, let data = result.stdout.data(using: .utf8),
            let array = try JSONSerialization.jsonObject(with: data) as? [[String: Any]]
        else { return [] }
        return array
    }

    func audioFiles() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: store + "/audio")) ?? []
    }

    /// Every frame of an audio file, decoded with libsndfile.
    static func decode(_ path: String) throws -> [Int16] {
        let file = try SoundFile.open(path: path)
        var result: [Int16] = []
        var buffer = [Int16](repeating: 0, count: 4096 * file.channels)
        while true {
            let n = try buffer.withUnsafeMutableBufferPointer { try file.read(into: $0.baseAddress!, frames: 4096) }
            if n == 0 { break }
            result += buffer[0..<(n * file.channels)]
        }
        return result
    }

    static func noise(frames: Int, channels: Int = 1, seed: UInt64 = 12345) -> [Int16] {
        var state = seed
        return (0..<frames * channels).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int16(truncatingIfNeeded: state >> 48) / 2
        }
    }

    static func tone(frequency: Double = 440, rate: Int = 48000, frames: Int, amplitude: Double = 0.5) -> [Int16] {
        (0..<frames).map { Int16((sin(2 * .pi * frequency * Double($0) / Double(rate)) * amplitude * 32767).rounded()) }
    }
}

/// Reads a pipe to its end on another thread, so a child writing a lot cannot stall.
// @unchecked: `data` is written once by the reading thread before it signals `done`, and
// read only after `wait()`.
final class DrainedPipe: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ pipe: Pipe) {
        let handle = pipe.fileHandleForReading
        DispatchQueue.global().async {
            self.data = handle.readDataToEndOfFile()
            self.done.signal()
        }
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}
