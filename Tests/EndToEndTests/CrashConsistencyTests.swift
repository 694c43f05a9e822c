import Foundation
import RecCore
import RecTestSupport
import Testing

/// What a folder command does to a store, worked out by the test from the store as it was
/// before: the expected model against which every kill is judged.
enum FolderModel {
    enum Command: CustomStringConvertible {
        case mkdir(String, parents: Bool)
        case mv(String, String)
        case rm(String, recursive: Bool, permanent: Bool)
        case restore(String)
        case undo
        /// `import FILE --to FOLDER --name NAME`, with `--keep` or converted to Opus.
        case importFile(String, folder: String, name: String, keep: Bool)

        var arguments: [String] {
            switch self {
            case .mkdir(let path, let parents): return ["mkdir"] + (parents ? ["-p"] : []) + [path]
            case .mv(let from, let to): return ["mv", from, to]
            case .rm(let path, let recursive, let permanent):
                return ["rm"] + (recursive ? ["-r"] : []) + (permanent ? ["--permanent"] : []) + [path]
            case .restore(let path): return ["trash", "restore", path]
            case .undo: return ["undo"]
            case .importFile(let file, let folder, let name, let keep):
                return ["import", file, "--to", folder, "--name", name] + (keep ? ["--keep"] : [])
            }
        }

        var description: String { arguments.joined(separator: " ") }
    }

    struct Refused: Error {}

    private static func newID() -> String { "new-" + UUID().uuidString }

    /// The store after `command`, or nil when the command must fail and change nothing.
    /// `journal` is the last journal entry's steps, for `undo`.
    static func apply(_ command: Command, to before: StoreSnapshot, journal: [[String: Any]]?) -> StoreSnapshot? {
        var s = before
        do {
            switch command {
            case .mkdir(let path, let parents): try mkdir(&s, path, parents: parents)
            case .mv(let from, let to): try mv(&s, from, to)
            case .rm(let path, let recursive, let permanent):
                guard let id = s.id(at: path) else { throw Refused() }
                let node = s.nodes[id]!
                if id == StoreSnapshot.root { throw Refused() }
                if node.isFolder && s.nodes.values.contains(where: { $0.parent == id }) && !recursive {
                    throw Refused()
                }
                try remove(&s, id, permanently: permanent)
            case .restore(let path):
                guard let entry = s.trash.last(where: { $0.path == path }) else { throw Refused() }
                try restore(&s, entry.id)
            case .undo:
                guard let steps = journal else { throw Refused() }
                try undo(&s, steps)
            case .importFile(_, let folder, let name, _):
                guard let parent = s.id(at: folder), s.nodes[parent]!.isFolder, s.child(named: name, in: parent) == nil
                else { throw Refused() }
                s.nodes[newID()] = .init(name: name, parent: parent, isFolder: false)
            }
        } catch {
            return nil
        }
        return s
    }

    private static func mkdir(_ s: inout StoreSnapshot, _ path: String, parents: Bool) throws {
        var current = StoreSnapshot.root
        let parts = path.split(separator: "/").map(String.init)
        var created = 0
        for (index, name) in parts.enumerated() {
            let isLast = index == parts.count - 1
            if let existing = s.child(named: name, in: current) {
                if isLast && !(parents && s.nodes[existing]!.isFolder) { throw Refused() }
                if !s.nodes[existing]!.isFolder { throw Refused() }
                current = existing
                continue
            }
            guard isLast || parents else { throw Refused() }
            let id = newID()
            s.nodes[id] = .init(name: name, parent: current, isFolder: true)
            current = id
            created += 1
        }
        if created == 0 && !parents { throw Refused() }
    }

    /// Where a path points: an existing item, or a free name in an existing folder.
    private static func locate(_ s: StoreSnapshot, _ path: String) throws -> (
        existing: String?, parent: String, name: String
    ) {
        var current = StoreSnapshot.root
        let parts = path.split(separator: "/").map(String.init)
        for (index, name) in parts.enumerated() {
            let isLast = index == parts.count - 1
            if let child = s.child(named: name, in: current) {
                if !isLast && !s.nodes[child]!.isFolder { throw Refused() }
                current = child
            } else if isLast {
                return (nil, current, name)
            } else {
                throw Refused()
            }
        }
        return (current, s.nodes[current]?.parent ?? current, s.nodes[current]!.name)
    }

    private static func move(_ s: inout StoreSnapshot, _ id: String, into parent: String, name: String) throws {
        guard id != StoreSnapshot.root, s.nodes[id] != nil, s.nodes[parent]?.isFolder == true else { throw Refused() }
        if parent == id || s.isDescendant(parent, of: id) { throw Refused() }
        if let other = s.child(named: name, in: parent), other != id { throw Refused() }
        s.nodes[id]!.parent = parent
        s.nodes[id]!.name = name
    }

    private static func mv(_ s: inout StoreSnapshot, _ from: String, _ to: String) throws {
        guard let source = s.id(at: from) else { throw Refused() }
        let target = try locate(s, to)
        if let existing = target.existing {
            guard s.nodes[existing]!.isFolder else { throw Refused() }
            if s.nodes[source]!.parent == existing { throw Refused() }
            try move(&s, source, into: existing, name: s.nodes[source]!.name)
        } else {
            try move(&s, source, into: target.parent, name: target.name)
        }
    }

    private static func remove(_ s: inout StoreSnapshot, _ id: String, permanently: Bool) throws {
        guard id != StoreSnapshot.root, let node = s.nodes[id], let parent = node.parent else { throw Refused() }
        let path = s.path(of: id)!
        let subtree = s.subtree(of: id)
        let items = subtree.map { ($0, s.nodes[$0]!) }
        for item in subtree { s.nodes[item] = nil }
        if !permanently {
            s.trash.append(.init(id: id, parent: parent, path: path, items: items))
        }
    }

    private static func restore(_ s: inout StoreSnapshot, _ id: String) throws {
        guard let entry = s.trash.last(where: { $0.id == id }) else { throw Refused() }
        guard s.nodes[entry.parent]?.isFolder == true else { throw Refused() }
        if s.child(named: entry.items[0].node.name, in: entry.parent) != nil { throw Refused() }
        if entry.items.contains(where: { s.nodes[$0.id] != nil }) { throw Refused() }
        for (index, item) in entry.items.enumerated() {
            var node = item.node
            if index == 0 { node.parent = entry.parent }
            s.nodes[item.id] = node
        }
        s.trash.removeAll { $0.id == id }
    }

    private static func undo(_ s: inout StoreSnapshot, _ steps: [[String: Any]]) throws {
        for step in steps.reversed() {
            guard let op = step["op"] as? String, let id = step["uuid"] as? String else { throw Refused() }
            switch op {
            case "added", "restored":
                guard let node = s.nodes[id] else { throw Refused() }
                let empty = !s.nodes.values.contains { $0.parent == id }
                try remove(&s, id, permanently: node.isFolder && empty)
            case "moved":
                guard let node = s.nodes[id], let fromParent = step["fromParent"] as? String,
                    let fromName = step["fromName"] as? String,
                    node.parent == step["toParent"] as? String, node.name == step["toName"] as? String
                else { throw Refused() }
                try move(&s, id, into: fromParent, name: fromName)
            case "trashed":
                try restore(&s, id)
            default:
                throw Refused()
            }
        }
    }

    /// The steps of the newest journal entry that parses, as `undo` would take them back.
    static func lastJournalSteps(_ path: String) -> [[String: Any]]? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        for line in data.split(separator: UInt8(ascii: "\n")).reversed() {
            if let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                let steps = object["steps"] as? [[String: Any]]
            {
                return steps
            }
        }
        return nil
    }
}

/// Random commands from the store as it is: mostly ones that succeed, some that must fail.
struct FolderCommandGenerator {
    var random: SeededRandom
    static let names = ["a", "b", "c", "Ideas", "Work", "x y", "d"]
    /// A WAV file to import, when `recnotes import` is there to test.
    var importSource: String?

    init(seed: UInt64, importSource: String? = nil) {
        random = SeededRandom(seed: seed)
        self.importSource = importSource
    }

    mutating func pick<T>(_ array: [T]) -> T { array[Int.random(in: 0..<array.count, using: &random)] }
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &random) < p }

    mutating func next(_ s: StoreSnapshot, allowUndo: Bool = true) -> FolderModel.Command {
        let folders = ["/"] + s.paths.filter { $0.hasPrefix("F ") }.map { String($0.dropFirst(2)) }
        let items = s.paths.map { String($0.dropFirst(2)) }
        func join(_ a: String, _ b: String) -> String { a == "/" ? "/" + b : a + "/" + b }
        let roll = Int.random(in: 0..<100, using: &random)
        switch roll {
        case 0..<22:
            return .mkdir(join(pick(folders), pick(Self.names)), parents: false)
        case 22..<32:
            return .mkdir(join(join(pick(folders), pick(Self.names)), pick(Self.names)), parents: true)
        case 32..<55 where !items.isEmpty:
            let source = pick(items)
            let into = chance(0.5)
            return .mv(source, into ? pick(folders) : join(pick(folders), pick(Self.names)))
        case 55..<70 where !items.isEmpty:
            return .rm(pick(items), recursive: chance(0.6), permanent: chance(0.1))
        case 70..<85 where !s.trash.isEmpty:
            return .restore(chance(0.9) ? pick(s.trash).path : join(pick(folders), pick(Self.names)))
        case 85..<92 where importSource != nil:
            return .importFile(importSource!, folder: pick(folders), name: pick(Self.names), keep: chance(0.5))
        case 85..<100 where allowUndo:
            return .undo
        default:
            return .mkdir(join(pick(folders), pick(Self.names)), parents: chance(0.3))
        }
    }
}

@Suite("Crash consistency: SIGKILL at random moments")
struct CrashConsistencyTests {
    static let cases = 200
    /// The kill comes 0–30 ms after the start, or up to 1.5 times a command's measured run
    /// time when that is longer (a debug build on a busy machine), so that kills land before,
    /// during and after the save. `RECNOTES_CRASH_MAX_DELAY_US` overrides it, e.g. with a
    /// large value to check the model against commands that all finish.
    static let fixedMaxDelay = ProcessInfo.processInfo.environment["RECNOTES_CRASH_MAX_DELAY_US"].flatMap { UInt32($0) }

    static func typicalRunTime(_ sandbox: Sandbox) throws -> UInt32 {
        var times: [UInt64] = []
        for n in 0..<5 {
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try sandbox.runBounded(["mkdir", "/Probe\(n)"])
            times.append((DispatchTime.now().uptimeNanoseconds - start) / 1000)
            _ = try sandbox.runBounded(["rm", "--permanent", "/Probe\(n)"])
        }
        return UInt32(clamping: times.sorted()[2])
    }

    /// Every item's parent exists and is a folder, and the children lists agree with the
    /// parent pointers; every recording, live or in the trash, still has its audio file.
    static func structuralProblems(_ sandbox: Sandbox, _ s: StoreSnapshot) throws -> [String] {
        var problems = s.strays.map { "item \($0) has a missing parent" }
        let object = try sandbox.storeJSON()
        var children: [String: [String]] = [:]
        var files: [String] = []
        func collect(_ item: [String: Any]) {
            if let list = item["children"] as? [String] { children[item["uuid"] as! String] = list }
            if let file = item["file"] as? String { files.append(file) }
        }
        for item in object["items"] as? [[String: Any]] ?? [] { collect(item) }
        for (folder, list) in children {
            let byParent = s.nodes.filter { $0.value.parent == folder }.map(\.key).sorted()
            if list.sorted() != byParent {
                problems.append("folder \(folder) lists \(list.sorted()), parent pointers say \(byParent)")
            }
        }
        for entry in object["trash"] as? [[String: Any]] ?? [] {
            for item in entry["items"] as? [[String: Any]] ?? [] {
                if let file = item["file"] as? String { files.append(file) }
            }
        }
        for file in files where !FileManager.default.fileExists(atPath: sandbox.audioDirectory + "/" + file) {
            problems.append("audio/\(file) is gone")
        }
        return problems
    }

    @Test func killedFolderCommandsLeaveAConsistentStore() throws {
        let seed = SeededRandom.seed(20_251_122)
        let sandbox = try Sandbox()
        let source = sandbox.root + "/take.wav"
        try sandbox.write(source, wavBytes(frames: 9_600))
        var generator = FolderCommandGenerator(seed: seed, importSource: source)
        var delays = SeededRandom(seed: seed ^ 0xD1CE)
        expectSuccess(try sandbox.run("mkdir", "-p", "/Ideas/a", "/Work"))
        for (index, folder) in ["/", "/Ideas", "/Work", "/Ideas/a"].enumerated() {
            try sandbox.addWAVRecording("r\(index)", in: folder, frames: 4800)
        }
        var state = try StoreSnapshot(storeFile: sandbox.storeFile)
        let runTime = try Self.typicalRunTime(sandbox)
        let maxDelay = Self.fixedMaxDelay ?? max(30_000, runTime * 3 / 2)

        var killed = 0
        var killedAfterSave = 0
        var finished = 0
        var failedCleanly = 0
        var lost = 0
        var crashes = 0
        var repaired = 0
        var leftovers = 0
        var failures: [String] = []
        func fail(_ text: String) {
            lost += 1
            if failures.count < 10 { failures.append(text) }
        }

        for n in 0..<Self.cases {
            let command = generator.next(state)
            let journal = FolderModel.lastJournalSteps(sandbox.store + "/journal.jsonl")
            let expected = FolderModel.apply(command, to: state, journal: journal)
            let delay = UInt32.random(in: 0...maxDelay, using: &delays)

            let child = try sandbox.spawn(command.arguments)
            child.send(SIGKILL, after: delay)
            let (run, signalled, timedOut) = child.finish(timeout: 60)
            let wasKilled = signalled && run.status == SIGKILL
            if timedOut { fail("#\(n) \(command): hung") }
            if signalled && !wasKilled {
                crashes += 1
                fail("#\(n) \(command): died of signal \(run.status)")
            }

            // store.json parses, by an independent parser and by recnotes itself.
            let actual: StoreSnapshot
            do {
                actual = try StoreSnapshot(storeFile: sandbox.storeFile)
            } catch {
                fail("#\(n) \(command): store.json does not parse: \(error)")
                break
            }
            let ls = try sandbox.runBounded(["ls", "/"])
            if ls.status != 0 { fail("#\(n) after \(command): ls failed: \(ls)") }

            if wasKilled {
                killed += 1
                // All or nothing: the store as it was, or as the finished command leaves it.
                let same = actual.paths == state.paths && actual.trashPaths == state.trashPaths
                let done = expected.map { actual.paths == $0.paths && actual.trashPaths == $0.trashPaths } ?? false
                if done && !same { killedAfterSave += 1 }
                if !same && !done {
                    fail(
                        "#\(n) \(command) killed after \(delay) µs: half-done store\n  before \(state.paths) \(state.trashPaths)\n  after  \(actual.paths) \(actual.trashPaths)\n  expected \(expected.map { "\($0.paths) \($0.trashPaths)" } ?? "no change")"
                    )
                }
            } else if run.status == 0 {
                finished += 1
                if let expected {
                    if actual.paths != expected.paths || actual.trashPaths != expected.trashPaths {
                        fail(
                            "#\(n) \(command) exited 0 but is not reflected\n  expected \(expected.paths) \(expected.trashPaths)\n  actual   \(actual.paths) \(actual.trashPaths)"
                        )
                    }
                } else {
                    fail("#\(n) \(command) exited 0, the model expected a refusal: \(run)")
                }
            } else {
                failedCleanly += 1
                if expected != nil { fail("#\(n) \(command) failed, the model expected success: \(run)") }
                if actual.paths != state.paths || actual.trashPaths != state.trashPaths {
                    fail("#\(n) \(command) failed but changed the store")
                }
                if !(run.status == 1 || run.status == 64) || run.stderrLines.count != 1
                    || !run.stderr.hasPrefix("recnotes: ")
                {
                    fail("#\(n) \(command): not a one-line error with status 1 or 64: \(run)")
                }
            }

            for problem in try Self.structuralProblems(sandbox, actual) { fail("#\(n) \(command): \(problem)") }

            // fsck is clean, or --repair makes it clean.
            let fsck = try sandbox.runBounded(["fsck"])
            if fsck.status != 0 {
                let repair = try sandbox.runBounded(["fsck", "--repair"])
                let again = try sandbox.runBounded(["fsck"])
                if repair.status != 0 || again.status != 0 {
                    fail(
                        "#\(n) \(command): fsck not clean after --repair:\n\(fsck.stdout)\(repair.stdout)\(again.stdout)"
                    )
                } else {
                    repaired += 1
                }
            }
            for signalledRun in [ls, fsck] where signalledRun.status > 128 || signalledRun.status < 0 {
                crashes += 1
                fail("#\(n): \(signalledRun.arguments) ended with \(signalledRun.status)")
            }
            state = try StoreSnapshot(storeFile: sandbox.storeFile)
        }
        // A killed atomic write can leave its temporary file; count them (they are harmless).
        leftovers =
            ((try? FileManager.default.contentsOfDirectory(atPath: sandbox.store)) ?? []).filter {
                $0.contains(".tmp-")
            }.count

        print(
            "crash-consistency: \(Self.cases) cases tried (\(killed) killed mid-run, \(killedAfterSave) of them after saving their change, \(finished) finished first, \(failedCleanly) refused), \(lost) lost, \(crashes) crashes, \(repaired) fsck repairs, \(leftovers) stray temp files; kill delays 0–\(maxDelay / 1000) ms, a command takes ~\(runTime / 1000) ms (seed \(seed))"
        )
        #expect(lost == 0, "\(failures.joined(separator: "\n"))")
        #expect(crashes == 0)
        if Self.fixedMaxDelay == nil { #expect(killed > 0, "some kills should land mid-run") }
    }

    /// Every item's annotations as store.json has them (tags, note, markers), by uuid.
    static func annotations(_ storeFile: String) throws -> [String: String] {
        let data = try #require(FileManager.default.contents(atPath: storeFile))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var result: [String: String] = [:]
        for item in object["items"] as? [[String: Any]] ?? [] {
            let fields = ["tags", "note", "markers"].compactMap { key in item[key].map { (key, $0) } }
            let text = try JSONSerialization.data(
                withJSONObject: Dictionary(uniqueKeysWithValues: fields), options: [.sortedKeys])
            result[item["uuid"] as? String ?? ""] = String(decoding: text, as: UTF8.self)
        }
        return result
    }

    /// mark, unmark, tag, note and their undo, SIGKILLed at random moments: store.json has
    /// every item's annotations as before the command or as the command, run to its end in
    /// a copy of the store, leaves them; and fsck finds nothing to repair.
    @Test func killedAnnotationCommandsAreAllOrNothing() throws {
        let seed = SeededRandom.seed(20_251_123)
        let sandbox = try Sandbox()
        expectSuccess(try sandbox.run("mkdir", "-p", "/Ideas"))
        try sandbox.addWAVRecording("r", in: "/Ideas", frames: 48_000)
        var delays = SeededRandom(seed: seed ^ 0x3A4C)
        let runTime = try Self.typicalRunTime(sandbox)
        let maxDelay = Self.fixedMaxDelay ?? max(30_000, runTime * 3 / 2)
        let commands: [[String]] = [
            ["mark", "/Ideas/r", "--at", "0.25", "first"], ["tag", "/Ideas/r", "/Ideas", "+work", "+q3"],
            ["note", "/Ideas/r", "--set", "a note"], ["mark", "/Ideas/r", "--at", "50%"], ["unmark", "/Ideas/r", "1"],
            ["tag", "/Ideas/r", "-work"], ["note", "/Ideas", "--set", "folder note"], ["undo"],
        ]
        var killed = 0
        var changed = 0
        var failures: [String] = []
        let twin = sandbox.root + "/twin"
        for n in 0..<Self.cases / 2 {
            let command = commands[n % commands.count]
            let before = try Self.annotations(sandbox.storeFile)
            // Where the command leaves the store when it runs to its end.
            try? FileManager.default.removeItem(atPath: twin)
            try FileManager.default.copyItem(atPath: sandbox.store, toPath: twin)
            _ = try Sandbox.execute(Sandbox.binary, ["--store", twin] + command, environment: sandbox.baseEnvironment)
            let expected = try Self.annotations(twin + "/store.json")

            let child = try sandbox.spawn(command)
            child.send(SIGKILL, after: UInt32.random(in: 0...maxDelay, using: &delays))
            let (run, signalled, timedOut) = child.finish(timeout: 60)
            if timedOut { failures.append("#\(n) \(command): hung") }
            if signalled && run.status == SIGKILL { killed += 1 }
            let actual = try Self.annotations(sandbox.storeFile)
            if actual != before && actual != expected {
                failures.append(
                    "#\(n) \(command): half-done\n  before \(before)\n  after  \(actual)\n  expected \(expected)")
            }
            if actual != before { changed += 1 }
            // fsck is clean, or --repair makes it clean (a killed write's temporary file).
            if try sandbox.runBounded(["fsck"]).status != 0 {
                let repair = try sandbox.runBounded(["fsck", "--repair"])
                let again = try sandbox.runBounded(["fsck"])
                if repair.status != 0 || again.status != 0 {
                    failures.append("#\(n) after \(command): fsck: \(repair) \(again)")
                }
            }
        }
        print(
            "crash-consistency (annotations): \(Self.cases / 2) cases, \(killed) killed, \(changed) changed the store, \(failures.count) bad outcomes"
        )
        #expect(failures.isEmpty, "\(failures.prefix(5).joined(separator: "\n"))")
        if Self.fixedMaxDelay == nil { #expect(killed > 0, "some kills should land mid-run") }
    }
}

@Suite("Crash consistency: SIGKILL during record")
struct RecordCrashTests {
    /// The ALSA file devices deliver audio as fast as the recorder takes it, hundreds of
    /// times real time, and the recorder syncs once per wall-clock second. To hold it to a
    /// real device's pace, the test reads its NDJSON progress through a one-page pipe no
    /// faster than real time: a full pipe blocks the recorder's writer.
    ///
    /// Each recording is SIGKILLed at a random moment 0.3–3 s in; then `ls` must recover
    /// every frame that a progress event had reported at least 1 s before the kill (plus
    /// 0.5 s for scheduling on a busy machine), with the input's exact samples (lossless
    /// formats).
    @Test func killedRecordingsAreRecoveredByTheNextCommand() throws {
        let seed = SeededRandom.seed(20_251_122)
        var random = SeededRandom(seed: seed ^ 0xA0D10)
        let rate = 48_000
        let inputFrames = 10 * rate
        let input = AudioCLI.noise(frames: inputFrames, seed: seed)
        let plan = Array(repeating: ["wav", "flac", "opus"], count: 3).flatMap { $0 }
        var tried = 0
        var lost = 0
        var crashes = 0
        var worstBehindLast = 0.0
        var notes: [String] = []
        for (index, format) in plan.enumerated() {
            let cli = try AudioCLI()
            try cli.writeInput(input)
            let killAfter = Double.random(in: 0.3...3.0, using: &random)
            let (process, out, err) = cli.process(["record", "take\(index)", "--format", format, "--progress", "json"])
            let fd = out.fileHandleForReading.fileDescriptor
            _ = fcntl(fd, 1031, 4096)  // F_SETPIPE_SZ
            try process.run()
            let errors = DrainedPipe(err)
            var events: [(time: Double, frames: Int)] = []
            var pending = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 256)
            var start: Double?
            var killedAt: Double?
            func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
            while true {
                let t = now()
                if let s = start, killedAt == nil {
                    if t - s >= killAfter {
                        kill(process.processIdentifier, SIGKILL)
                        killedAt = t
                    } else if let last = events.last, Double(last.frames) / Double(rate) > t - s {
                        usleep(2000)  // ahead of real time: let the pipe fill up
                        continue
                    }
                }
                let n = read(fd, &buffer, buffer.count)
                if n <= 0 { break }
                if killedAt != nil { continue }
                pending += buffer[0..<n]
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = Data(pending[..<newline])
                    pending.removeSubrange(...newline)
                    guard let event = try? JSONSerialization.jsonObject(with: line) as? [String: Any] else { continue }
                    if event["event"] as? String == "started" { start = now() }
                    if event["event"] as? String == "progress", let frames = event["frames"] as? Int {
                        events.append((now(), frames))
                    }
                }
            }
            process.waitUntilExit()
            _ = errors.wait()
            tried += 1
            guard let killedAt, process.terminationReason == .uncaughtSignal, process.terminationStatus == SIGKILL
            else {
                if process.terminationReason == .uncaughtSignal { crashes += 1 }
                lost += 1
                notes.append("\(format): record ended by itself (status \(process.terminationStatus)) before the kill")
                continue
            }
            let required = events.filter { $0.time <= killedAt - 1.5 }.map(\.frames).max() ?? 0
            let lastSeen = events.last?.frames ?? 0
            let ls = try cli.run("ls")
            let recovered = try cli.recordings().first {
                ($0["name"] as? String)?.hasPrefix("take\(index) (recovered)") == true
            }
            guard ls.status == 0, let recovered, let frames = recovered["frames"] as? Int,
                let file = recovered["file"] as? String
            else {
                if required > 0 {
                    lost += 1
                    notes.append("\(format): nothing recovered, \(required) frames were due: \(ls.stderr)")
                }
                continue
            }
            let decoded = try AudioCLI.decode(cli.store + "/audio/" + file)
            worstBehindLast = max(worstBehindLast, Double(lastSeen - decoded.count) / Double(rate))
            if decoded.count != frames || decoded.count < required {
                lost += 1
                notes.append(
                    "\(format): \(required) frames were reported 1.5 s before the kill, \(decoded.count) recovered (store says \(frames))"
                )
            }
            if format != "opus" {
                let n = min(decoded.count, inputFrames)
                if !(Array(decoded.prefix(n)) == Array(input.prefix(n))) {
                    lost += 1
                    notes.append("\(format): the recovered samples differ from the input")
                }
            }
            let fsck = try cli.run("fsck")
            if fsck.status != 0 {
                lost += 1
                notes.append("\(format): fsck after recovery: \(fsck.stdout)")
            }
        }
        print(
            "crash-consistency (record): \(tried) recordings killed, \(lost) lost, \(crashes) crashes; recovered audio at most \(String(format: "%.2f", worstBehindLast)) s behind the last progress event read (seed \(seed))"
        )
        #expect(lost == 0, "\(notes.joined(separator: "\n"))")
        #expect(crashes == 0)
    }
}
