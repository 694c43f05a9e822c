import Foundation
import RecCore
import RecStore
import RecTestSupport
import RecValues
import Testing

/// What one run of `recnotes` did.
struct Run: CustomStringConvertible {
    var arguments: [String]
    var status: Int32
    var stdout: String
    var stderr: String

    /// stdout split into lines, without the final newline's empty line.
    var lines: [String] { split(stdout) }
    var stderrLines: [String] { split(stderr) }

    private func split(_ text: String) -> [String] {
        var lines = text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// stdout parsed as JSON.
    func json() throws -> Any {
        try JSONSerialization.jsonObject(with: Data(stdout.utf8), options: [.fragmentsAllowed])
    }

    /// stdout parsed as one JSON object.
    func object() throws -> [String: Any] {
        try #require(try json() as? [String: Any], "\(self)")
    }

    var description: String {
        "recnotes \(arguments.joined(separator: " ")) → \(status)\nstdout: \(stdout)\nstderr: \(stderr)"
    }
}

/// A temporary directory holding a store (`store/`) and a home directory (`home/`), and a
/// way to run the built binary against them with a controlled environment.
final class Sandbox: Sendable {
    /// `$RECNOTES_BIN`, else `recnotes` beside the running test executable.
    static let binary: String = {
        if let path = ProcessInfo.processInfo.environment["RECNOTES_BIN"], !path.isEmpty { return path }
        return BuiltProgram.path("recnotes")
    }()

    let root: String
    var store: String { root + "/store" }
    var home: String { root + "/home" }
    var storeFile: String { store + "/store.json" }
    var viewStateFile: String { store + "/viewstate.json" }
    var audioDirectory: String { store + "/audio" }

    init() throws {
        root = NSTemporaryDirectory() + "recnotes-e2e-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// The environment every run starts from: no RECNOTES_HOME or XDG_DATA_HOME, HOME inside
    /// the sandbox, no colour, UTC.
    var baseEnvironment: [String: String] {
        ["HOME": home, "NO_COLOR": "1", "TZ": "UTC", "PATH": "/usr/local/bin:/usr/bin:/bin"]
    }

    /// Runs and checks that it succeeded quietly (see `expectSuccess`).
    @discardableResult
    func succeed(_ arguments: String...) throws -> Run {
        let result = try run(arguments)
        expectSuccess(result)
        return result
    }

    /// Runs `recnotes --store STORE ARGS...`.
    @discardableResult
    func run(_ arguments: String...) throws -> Run {
        try run(arguments)
    }

    @discardableResult
    func run(_ arguments: [String], store: Bool = true, environment: [String: String?] = [:]) throws -> Run {
        var env = baseEnvironment
        for (key, value) in environment { env[key] = value }
        return try Sandbox.execute(
            Sandbox.binary, (store ? ["--store", self.store] : []) + arguments, environment: env)
    }

    /// Runs any program with pipes for stdout and stderr and /dev/null as stdin.
    static func execute(_ program: String, _ arguments: [String], environment: [String: String]) throws -> Run {
        let finished = try FinishedProgram.run(program, arguments, environment: environment)
        return Run(
            arguments: arguments, status: finished.status,
            stdout: String(decoding: finished.stdout, as: UTF8.self),
            stderr: String(decoding: finished.stderr, as: UTF8.self))
    }

    // MARK: Files

    func bytes(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    var storeBytes: [UInt8]? { bytes(storeFile) }
    var viewStateBytes: [UInt8]? { bytes(viewStateFile) }

    func write(_ path: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// The files in the store directory, for checking that nothing was added or replaced.
    func storeListing() throws -> [String: UInt64] {
        var result: [String: UInt64] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: store) {
            let attributes = try FileManager.default.attributesOfItem(atPath: store + "/" + name)
            result[name] = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0
        }
        return result
    }

    /// store.json as decoded by an independent JSON parser.
    func storeJSON() throws -> [String: Any] {
        let data = try #require(FileManager.default.contents(atPath: storeFile))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func storeItems() throws -> [[String: Any]] {
        try #require(try storeJSON()["items"] as? [[String: Any]])
    }

    /// The item at an absolute path, read from store.json.
    func item(at path: String) throws -> [String: Any]? {
        let items = try storeItems()
        var byID: [String: [String: Any]] = [:]
        for item in items { byID[item["uuid"] as! String] = item }
        func pathOf(_ item: [String: Any]) -> String {
            guard let parent = item["parent"] as? String, let p = byID[parent] else { return "" }
            return pathOf(p) + "/" + (item["name"] as! String)
        }
        return items.first { (pathOf($0).isEmpty ? "/" : pathOf($0)) == path }
    }

    /// The tags of the item at `path`, as store.json holds them.
    func tags(at path: String) throws -> [String] {
        try #require(try item(at: path))["tags"] as? [String] ?? []
    }

    func uuid(at path: String) throws -> String {
        try #require(try item(at: path)?["uuid"] as? String, "no item at \(path)")
    }

    // MARK: Fixtures written through the library, for what the CLI cannot create yet

    /// Adds a recording (and, with `audioBytes`, its audio file) through RecCore.
    @discardableResult
    func addRecording(
        _ name: String, in folderPath: String, id: ItemID = .random(), duration: Double,
        format: AudioFormat = .opus, created: String = "2023-11-14T22:13:20.000Z", audioBytes: Int? = nil,
        measuredFrom audio: String? = nil
    ) throws -> ItemID {
        let store = try DocumentStore(location: StoreLocation(directory: self.store))
        let parent = try PathResolver(document: store.document, currentFolder: .root).resolveFolder(folderPath)
        var info = RecordingInfo(
            duration: duration, frames: Int64(duration * 48000), sampleRate: 48000, channels: 1,
            format: format, file: "\(id).\(format.fileExtension)")
        // As recnotes saves audio: with its analysis measured from the file.
        if let audio { info = info.analyzed(path: audio) }
        _ = try store.transaction {
            try $0.add(
                .recording(id: id, name: name, parent: parent.id, created: Timestamp(iso8601: created)!, info: info))
        }
        if let audioBytes {
            try FileManager.default.createDirectory(atPath: audioDirectory, withIntermediateDirectories: true)
            try write(audioDirectory + "/" + info.file, [UInt8](repeating: 7, count: audioBytes))
        }
        return id
    }

    /// Adds a recording with a real audio file: 16-bit mono PCM WAV at 48 kHz, a ramp.
    @discardableResult
    func addWAVRecording(_ name: String, in folderPath: String, frames: Int) throws -> ItemID {
        let id = ItemID.random()
        let bytes = wavBytes(frames: frames)
        // Beside the store until the recording names it: audio/ without a store.json is a lost store.
        let outside = root + "/\(id).wav"
        try write(outside, bytes)
        try addRecording(
            name, in: folderPath, id: id, duration: Double(frames) / 48000, format: .wav, measuredFrom: outside)
        try FileManager.default.createDirectory(atPath: audioDirectory, withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: outside, toPath: audioDirectory + "/\(id).wav")
        return id
    }

    /// Adds a folder with a chosen UUID and creation time through RecCore.
    @discardableResult
    func addFolder(
        _ name: String, in folderPath: String, id: ItemID = .random(), created: String = "2023-11-14T22:13:20.000Z"
    ) throws -> ItemID {
        let store = try DocumentStore(location: StoreLocation(directory: self.store))
        let parent = try PathResolver(document: store.document, currentFolder: .root).resolveFolder(folderPath)
        _ = try store.transaction {
            try $0.add(.folder(id: id, name: name, parent: parent.id, created: Timestamp(iso8601: created)!))
        }
        return id
    }
}

/// Checks a run that must fail: exit status, exactly one stderr line `recnotes: …`, nothing on
/// stdout, and (when given) the exact message.
func expectFailure(
    _ run: Run, status: Int32, message: String? = nil, containing fragments: [String] = [],
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(run.status == status, "\(run)", sourceLocation: sourceLocation)
    #expect(run.stderrLines.count == 1, "\(run)", sourceLocation: sourceLocation)
    #expect(run.stderr.hasPrefix("recnotes: "), "\(run)", sourceLocation: sourceLocation)
    #expect(run.stderr.hasSuffix("\n"), "\(run)", sourceLocation: sourceLocation)
    #expect(run.stdout.isEmpty, "\(run)", sourceLocation: sourceLocation)
    if let message {
        #expect(run.stderrLines.first == message, sourceLocation: sourceLocation)
    }
    for fragment in fragments {
        #expect(run.stderr.contains(fragment), "\(run)", sourceLocation: sourceLocation)
    }
}

/// Checks a run that must succeed quietly on stderr.
func expectSuccess(_ run: Run, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(run.status == 0, "\(run)", sourceLocation: sourceLocation)
    #expect(run.stderr.isEmpty, "\(run)", sourceLocation: sourceLocation)
}
