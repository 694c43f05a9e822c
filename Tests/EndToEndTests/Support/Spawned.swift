import Foundation
import RecCore
import RecStore
import RecTestSupport

/// A `recnotes` started in the background through the same `Process` set-up as
/// `Sandbox.execute` (pipes for stdout and stderr, /dev/null as stdin), for the reliability
/// suites that signal it mid-run or must never wait on it forever.
final class Spawned {
    let arguments: [String]
    let process: Process
    private let out: DrainedPipe
    private let err: DrainedPipe

    init(_ program: String = Sandbox.binary, _ arguments: [String], environment: [String: String]) throws {
        self.arguments = arguments
        let (process, outPipe, errPipe) = try FinishedProgram.start(program, arguments, environment: environment)
        self.process = process
        out = DrainedPipe(outPipe)
        err = DrainedPipe(errPipe)
    }

    var pid: Int32 { process.processIdentifier }

    func send(_ signal: Int32) {
        if process.isRunning { kill(pid, signal) }
    }

    /// Sends `signal` once `microseconds` have passed since the call, unless the process
    /// has ended by then. Returns whether it was sent.
    @discardableResult
    func send(_ signal: Int32, after microseconds: UInt32) -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(microseconds) * 1000
        while process.isRunning {
            if DispatchTime.now().uptimeNanoseconds >= deadline {
                kill(pid, signal)
                return true
            }
            usleep(100)
        }
        return false
    }

    /// Waits for the exit, SIGKILLing the process if it runs past `timeout` seconds.
    /// `timedOut` tells the two apart.
    func finish(timeout: Double = 60) -> (run: Run, signalled: Bool, timedOut: Bool) {
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        while process.isRunning {
            if Date() > deadline {
                timedOut = true
                kill(pid, SIGKILL)
                break
            }
            usleep(2000)
        }
        process.waitUntilExit()
        let signalled = process.terminationReason == .uncaughtSignal
        let run = Run(
            arguments: arguments, status: process.terminationStatus,
            stdout: String(decoding: out.wait(), as: UTF8.self), stderr: String(decoding: err.wait(), as: UTF8.self))
        return (run, signalled, timedOut)
    }
}

extension Sandbox {
    /// Starts `recnotes --store STORE ARGS...` with the sandbox's environment.
    func spawn(_ arguments: [String], environment: [String: String?] = [:]) throws -> Spawned {
        var env = baseEnvironment
        for (key, value) in environment { env[key] = value }
        return try Spawned(Sandbox.binary, ["--store", store] + arguments, environment: env)
    }

    /// Runs with a watchdog: a command still running after `timeout` seconds is killed and
    /// reported as status -1, so a hang fails the test instead of stalling it.
    func runBounded(_ arguments: [String], timeout: Double = 60, environment: [String: String?] = [:]) throws -> Run {
        let (run, _, timedOut) = try spawn(arguments, environment: environment).finish(timeout: timeout)
        if timedOut {
            return Run(
                arguments: arguments, status: -1, stdout: run.stdout,
                stderr: "timed out after \(timeout) s\n" + run.stderr)
        }
        return run
    }
}

/// The store as an independent JSON parser reads it: live items by path, and trash entries.
struct StoreSnapshot: Equatable {
    struct Node: Equatable {
        var name: String
        var parent: String?
        var isFolder: Bool
    }

    struct TrashEntry: Equatable {
        var id: String
        var parent: String
        var path: String
        /// The removed item first, then its subtree.
        var items: [(id: String, node: Node)]

        static func == (a: TrashEntry, b: TrashEntry) -> Bool {
            a.id == b.id && a.parent == b.parent && a.path == b.path && a.items.map(\.id) == b.items.map(\.id)
                && a.items.map(\.node) == b.items.map(\.node)
        }
    }

    static let root = "00000000-0000-0000-0000-000000000000"

    var nodes: [String: Node] = [:]
    var trash: [TrashEntry] = []

    /// Parses store.json with JSONSerialization; throws a description of what is wrong.
    init(storeFile: String) throws {
        guard let data = FileManager.default.contents(atPath: storeFile) else {
            throw SnapshotError("store.json is missing")
        }
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw SnapshotError("store.json is not an object")
        }
        guard let items = object["items"] as? [[String: Any]] else {
            throw SnapshotError("store.json has no items array")
        }
        func node(_ item: [String: Any]) throws -> (String, Node) {
            guard let id = item["uuid"] as? String, let name = item["name"] as? String,
                let type = item["type"] as? String
            else {
                throw SnapshotError("an item without uuid, name or type: \(item)")
            }
            return (id, Node(name: name, parent: item["parent"] as? String, isFolder: type == "folder"))
        }
        for item in items {
            let (id, n) = try node(item)
            guard nodes[id] == nil else { throw SnapshotError("duplicate uuid \(id)") }
            nodes[id] = n
        }
        for entry in object["trash"] as? [[String: Any]] ?? [] {
            let entryItems = try (entry["items"] as? [[String: Any]] ?? []).map(node)
            guard let first = entryItems.first, let parent = entry["parent"] as? String,
                let path = entry["path"] as? String
            else {
                throw SnapshotError("a malformed trash entry: \(entry)")
            }
            trash.append(TrashEntry(id: first.0, parent: parent, path: path, items: entryItems.map { ($0.0, $0.1) }))
        }
    }

    init() {
        nodes[Self.root] = Node(name: "Recordings", parent: nil, isFolder: true)
    }

    struct SnapshotError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Items whose parent is missing or not a folder (the root excepted).
    var strays: [String] {
        nodes.filter { id, node in id != Self.root && (node.parent.flatMap { nodes[$0]?.isFolder } != true) }.map(\.key)
            .sorted()
    }

    func path(of id: String) -> String? {
        var parts: [String] = []
        var current = id
        var seen = Set<String>()
        while current != Self.root {
            guard let node = nodes[current], let parent = node.parent, seen.insert(current).inserted else { return nil }
            parts.append(node.name)
            current = parent
        }
        return "/" + parts.reversed().joined(separator: "/")
    }

    /// Every live item as "F /path" or "R /path", sorted: what two stores are compared by.
    var paths: [String] {
        nodes.keys.filter { $0 != Self.root }.map { id in
            (nodes[id]!.isFolder ? "F " : "R ") + (path(of: id) ?? "?\(id)")
        }.sorted()
    }

    var trashPaths: [String] { trash.map { "\($0.path) (\($0.items.count))" } }

    func child(named name: String, in parent: String) -> String? {
        nodes.first { $0.value.parent == parent && $0.value.name == name }?.key
    }

    /// The item at an absolute path.
    func id(at path: String) -> String? {
        var current = Self.root
        for part in path.split(separator: "/") {
            guard let next = child(named: String(part), in: current) else { return nil }
            current = next
        }
        return current
    }

    func isDescendant(_ id: String, of ancestor: String) -> Bool {
        var current = nodes[id]?.parent
        var steps = 0
        while let c = current, steps < 10_000 {
            if c == ancestor { return true }
            current = nodes[c]?.parent
            steps += 1
        }
        return false
    }

    /// The item and everything under it, parents first.
    func subtree(of id: String) -> [String] {
        var result = [id]
        var index = 0
        while index < result.count {
            let parent = result[index]
            result += nodes.filter { $0.value.parent == parent }.map(\.key).sorted()
            index += 1
        }
        return result
    }
}

/// A 16-bit mono PCM WAV file at 48 kHz holding `frames` frames of a ramp.
func wavBytes(frames: Int, rate: Int = 48_000) -> [UInt8] {
    wavBytes(samples: (0..<frames).map { Int16(($0 % 200) * 100 - 10000) }, rate: rate)
}

/// A mono 16-bit WAV file of these samples.
func wavBytes(samples: [Int16], rate: Int = 48_000) -> [UInt8] {
    var bytes: [UInt8] = []
    func le(_ value: UInt32, _ count: Int) {
        for i in 0..<count { bytes.append(UInt8((value >> (8 * UInt32(i))) & 0xFF)) }
    }
    bytes += Array("RIFF".utf8)
    le(UInt32(36 + samples.count * 2), 4)
    bytes += Array("WAVE".utf8)
    bytes += Array("fmt ".utf8)
    le(16, 4)
    le(1, 2)
    le(1, 2)
    le(UInt32(rate), 4)
    le(UInt32(rate * 2), 4)
    le(2, 2)
    le(16, 2)
    bytes += Array("data".utf8)
    le(UInt32(samples.count * 2), 4)
    for sample in samples { le(UInt32(UInt16(bitPattern: sample)), 2) }
    return bytes
}

/// SIGKILL to `pid` and every process under it (stopped first, so none starts another).
func killProcessTree(_ pid: Int32) {
    var tree = [pid]
    var index = 0
    kill(pid, SIGSTOP)
    while index < tree.count {
        let parent = tree[index]
        index += 1
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let child = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, Int32(fields[1]) == parent, !tree.contains(child) {
                kill(child, SIGSTOP)
                tree.append(child)
            }
        }
    }
    for pid in tree { kill(pid, SIGKILL) }
}
