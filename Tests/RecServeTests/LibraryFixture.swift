import Foundation
import Hummingbird
import HummingbirdTesting
import RecCore
import RecServe
import RecStore
import RecTestSupport
import Testing

/// A store made by the built `recnotes` binary, recording through ALSA (a `.asoundrc` whose
/// `default` capture device is the file plugin reading a tone), with folders, tags, a note and
/// markers; and the CLI's own output on it, to hold the server's answers against.
final class LibraryFixture: @unchecked Sendable {
    let home: String
    var store: String { home + "/store" }
    var location: StoreLocation { StoreLocation(directory: store) }

    static let rate = 48000

    /// `recnotes` beside the running test bundle.
    static var binary: String { BuiltProgram.path("recnotes") }

    init() throws {
        home = NSTemporaryDirectory() + "recnotes-serve-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let config = """
            pcm.!default {
              type asym
              playback.pcm { type file slave.pcm null file "/dev/null" format "raw" }
              capture.pcm { type file slave.pcm null file "/dev/null" infile "\(home)/in.raw" format "raw" }
            }
            """
        try config.write(toFile: home + "/.asoundrc", atomically: true, encoding: .utf8)
        // A second of a 440 Hz tone, then a second of a 660 Hz one: bytes that differ along the file.
        var samples: [Int16] = []
        for (frequency, seconds) in [(440.0, 1), (660.0, 1)] {
            for n in 0..<(seconds * Self.rate) {
                samples.append(Int16(12000 * sin(2 * Double.pi * frequency * Double(n) / Double(Self.rate))))
            }
        }
        try samples.withUnsafeBufferPointer { Data(buffer: $0) }.write(to: URL(fileURLWithPath: home + "/in.raw"))
        try succeed("mkdir", "-p", "/Talks/Deep dir")
        try succeed("record", "/Talks/budget talk", "--format", "wav", "--duration", "2")
        try succeed("record", "/Talks/Deep dir/ünïcode & more", "--format", "flac", "--duration", "2")
        try succeed("tag", "/Talks/budget talk", "+work", "+q3")
        try succeed("note", "/Talks/budget talk", "--set", "the quarterly budget, first draft")
        try succeed("mark", "/Talks/budget talk", "--at", "0:01", "budget")
        try succeed("mark", "/Talks/budget talk", "--at", "0:01.5", "second thought")
    }

    deinit { try? FileManager.default.removeItem(atPath: home) }

    struct Run {
        var status: Int32
        var stdout: Data
        var stderr: String
    }

    @discardableResult
    func succeed(_ arguments: String...) throws -> Run {
        try succeed(arguments)
    }

    @discardableResult
    func succeed(_ arguments: [String]) throws -> Run {
        let run = try self.run(arguments)
        #expect(run.status == 0, "recnotes \(arguments): \(run.stderr)")
        return run
    }

    func run(_ arguments: [String], binary: String = LibraryFixture.binary) throws -> Run {
        let finished = try FinishedProgram.run(
            binary, ["--store", store] + arguments,
            environment: ["HOME": home, "NO_COLOR": "1", "TZ": "UTC", "PATH": "/usr/bin:/bin"])
        return Run(
            status: finished.status, stdout: finished.stdout, stderr: String(decoding: finished.stderr, as: UTF8.self))
    }

    /// The UUID of the item at `path`, from `info --json`.
    func uuid(_ path: String) throws -> String {
        let object = try JSONSerialization.jsonObject(with: try succeed("info", path, "--json").stdout)
        return try #require((object as? [String: Any])?["uuid"] as? String)
    }

    /// The audio file of the recording at `path`.
    func audioPath(_ path: String) throws -> String {
        let object = try JSONSerialization.jsonObject(with: try succeed("info", path, "--json").stdout)
        return try #require((object as? [String: Any])?["audioPath"] as? String)
    }

    /// An application on this store with `access`'s rules, for in-process requests.
    func app(token: String? = nil, readOnly: Bool = false) -> some ApplicationProtocol {
        app(access: Access(host: "127.0.0.1", port: 0, token: token, readOnly: readOnly))
    }

    func app(access: Access, limits: Server.Limits = Server.Limits()) -> some ApplicationProtocol {
        Application(router: Server.router(location: location, access: access, limits: limits))
    }
}
