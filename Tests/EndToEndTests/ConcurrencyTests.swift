import Foundation
import RecCore
import RecTestSupport
import Testing

/// Four processes at a time mutate one store. Each worker owns its own corner (`/wN`, and
/// names `wN-…` in the shared folder `/shared`, which every worker adds to and takes from),
/// so it can predict every one of its commands exactly; the final store must hold the union
/// of what all of them did. A read-modify-write race would lose some of it.
@Suite("Concurrency: 4 processes × 100 mutations on one store")
struct ConcurrencyTests {
    static let workers = 4
    static let commandsPerWorker = 100
    /// Wall time, so it stretches by RECNOTES_TEST_SLOWDOWN (set by `make test-asan`: every
    /// command runs several times slower under AddressSanitizer).
    static let watchdog: Double =
        120 * max(Double(ProcessInfo.processInfo.environment["RECNOTES_TEST_SLOWDOWN"] ?? "") ?? 1, 1)

    /// One worker's corner of the store: live paths ("F /w0/a", "R /w0/imp-3") and the paths
    /// it sent to the trash.
    struct Corner {
        var live: Set<String> = []
        var trashed: [String] = []
    }

    // @unchecked: every member is read and written under `lock`.
    final class Shared: @unchecked Sendable {
        private let lock = NSLock()
        private var running: Set<Int32> = []
        private(set) var failures: [String] = []
        private(set) var crashes = 0
        private(set) var succeeded = 0
        private(set) var tried = 0

        func started(_ pid: Int32) { lock.withLock { _ = running.insert(pid) } }
        func ended(_ pid: Int32, _ run: Run, signalled: Bool) {
            lock.withLock {
                running.remove(pid)
                tried += 1
                if run.status == 0 { succeeded += 1 }
                if signalled { crashes += 1 }
            }
        }
        func fail(_ text: String) { lock.withLock { failures.append(text) } }
        func killAll() { lock.withLock { for pid in running { kill(pid, SIGKILL) } } }
    }

    static func worker(_ index: Int, sandbox: Sandbox, seed: UInt64, importSource: String?, shared: Shared) -> Corner {
        var random = SeededRandom(seed: seed &+ UInt64(index) &* 0x9E37_79B9)
        var corner = Corner()
        let home = "/w\(index)"
        var counter = 0
        func fresh(_ prefix: String) -> String {
            counter += 1
            return "\(prefix)\(counter)"
        }
        func pick<T>(_ array: [T]) -> T { array[Int.random(in: 0..<array.count, using: &random)] }
        func folders() -> [String] {
            [home] + corner.live.filter { $0.hasPrefix("F \(home)/") }.map { String($0.dropFirst(2)) }.sorted()
        }
        func owned() -> [String] { corner.live.map { String($0.dropFirst(2)) }.sorted() }
        func under(_ path: String) -> [String] {
            corner.live.filter { String($0.dropFirst(2)) == path || $0.dropFirst(2).hasPrefix(path + "/") }.sorted()
        }

        for _ in 0..<commandsPerWorker {
            var arguments: [String]
            var apply: () -> Void
            let roll = Int.random(in: 0..<100, using: &random)
            let items = owned()
            if roll < 25 || items.isEmpty {
                let path = pick(folders()) + "/" + fresh("d")
                arguments = ["mkdir", path]
                apply = { corner.live.insert("F " + path) }
            } else if roll < 35 {
                let base = pick(folders())
                let a = base + "/" + fresh("p")
                let b = a + "/" + fresh("q")
                arguments = ["mkdir", "-p", b]
                apply = { corner.live.formUnion(["F " + a, "F " + b]) }
            } else if roll < 50 {
                let path = "/shared/w\(index)-" + fresh("s")
                arguments = ["mkdir", path]
                apply = { corner.live.insert("F " + path) }
            } else if roll < 72 {
                // Rename or move one of its items to a fresh name in one of its folders
                // (or in /shared), never below itself.
                let source = pick(items)
                let candidates = folders().filter { $0 != source && !$0.hasPrefix(source + "/") }
                let folder = Bool.random(using: &random) ? "/shared" : pick(candidates)
                let destination = folder + "/w\(index)-" + fresh("m")
                arguments = ["mv", source, destination]
                apply = {
                    for entry in under(source) {
                        corner.live.remove(entry)
                        corner.live.insert(
                            String(entry.prefix(2)) + destination + String(entry.dropFirst(2 + source.count)))
                    }
                }
            } else if roll < 88 {
                let target = pick(items)
                arguments = ["rm", "-r", target]
                apply = {
                    for entry in under(target) { corner.live.remove(entry) }
                    corner.trashed.append(target)
                }
            } else if let importSource {
                let name = fresh("imp")
                let folder = pick(folders())
                arguments =
                    ["import", importSource, "--to", folder, "--name", name]
                    + (Bool.random(using: &random) ? ["--keep"] : [])
                apply = { corner.live.insert("R \(folder)/\(name)") }
            } else {
                let path = pick(folders()) + "/" + fresh("d")
                arguments = ["mkdir", path]
                apply = { corner.live.insert("F " + path) }
            }
            do {
                let child = try sandbox.spawn(arguments)
                shared.started(child.pid)
                let (run, signalled, timedOut) = child.finish(timeout: watchdog)
                shared.ended(child.pid, run, signalled: signalled)
                if timedOut {
                    shared.fail("worker \(index): \(arguments) hung")
                    return corner
                }
                if run.status == 0 {
                    apply()
                } else {
                    shared.fail("worker \(index): a valid command failed: \(run)")
                }
            } catch {
                shared.fail("worker \(index): \(error)")
            }
        }
        return corner
    }

    @Test func fourWritersLoseNothing() throws {
        let seed = SeededRandom.seed(20_251_122)
        let sandbox = try Sandbox()
        expectSuccess(try sandbox.run(["mkdir", "/shared"] + (0..<Self.workers).map { "/w\($0)" }))
        let hasImport = try sandbox.runBounded(["import", "--help"]).status == 0
        let source = sandbox.root + "/take.wav"
        try sandbox.write(source, wavBytes(frames: 4_800))

        let shared = Shared()
        // @unchecked: workers store their slot under `lock`; read after the group is done.
        final class Results: @unchecked Sendable {
            private let lock = NSLock()
            private var slots: [Corner?] = Array(repeating: nil, count: ConcurrencyTests.workers)
            var corners: [Corner?] { lock.withLock { slots } }
            func set(_ index: Int, _ corner: Corner?) { lock.withLock { slots[index] = corner } }
        }
        let results = Results()
        let group = DispatchGroup()
        let started = DispatchTime.now()
        for index in 0..<Self.workers {
            group.enter()
            Thread.detachNewThread {
                results.set(
                    index,
                    Self.worker(
                        index, sandbox: sandbox, seed: seed, importSource: hasImport ? source : nil, shared: shared))
                group.leave()
            }
        }
        let finishedInTime = group.wait(timeout: started + Self.watchdog) == .success
        if !finishedInTime {
            shared.killAll()
            _ = group.wait(timeout: .now() + 30)
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        #expect(finishedInTime, "the run did not finish within \(Self.watchdog) s: a deadlock or a hang")

        // The final store is the union of every worker's corner.
        let final = try StoreSnapshot(storeFile: sandbox.storeFile)
        var expected = Set(["F /shared"] + (0..<Self.workers).map { "F /w\($0)" })
        var expectedTrash: [String] = []
        for corner in results.corners.compactMap({ $0 }) {
            expected.formUnion(corner.live)
            expectedTrash += corner.trashed
        }
        let actual = Set(final.paths)
        let missing = expected.subtracting(actual).sorted()
        let extra = actual.subtracting(expected).sorted()
        let trashMissing = expectedTrash.filter { path in
            final.trash.filter { $0.path == path }.count < expectedTrash.filter { $0 == path }.count
        }
        let lost = missing.count + extra.count + Set(trashMissing).count
        let fsck = try sandbox.runBounded(["fsck"])

        print(
            "concurrency: \(shared.tried) commands tried by \(Self.workers) processes at once (\(shared.succeeded) exited 0\(hasImport ? ", imports included" : "")), \(lost) lost, \(shared.crashes) crashes, \(String(format: "%.1f", seconds)) s (watchdog \(Int(Self.watchdog)) s), fsck \(fsck.status == 0 ? "clean" : "NOT clean") (seed \(seed))"
        )
        #expect(shared.failures.isEmpty, "\(shared.failures.prefix(10).joined(separator: "\n"))")
        #expect(missing.isEmpty, "lost updates: \(missing.prefix(20))")
        #expect(extra.isEmpty, "unexpected items: \(extra.prefix(20))")
        #expect(trashMissing.isEmpty, "trash entries lost: \(trashMissing.prefix(20))")
        #expect(final.trash.count == expectedTrash.count)
        #expect(shared.crashes == 0)
        #expect(fsck.status == 0, "\(fsck)")
        #expect(final.strays.isEmpty)
    }
}
