import Foundation
import RecCore
import Testing

/// Writes that fail for lack of room: a file-size limit (`ulimit -f`, EFBIG) and, where the
/// machine lets the test mount one, a 256 KB tmpfs (ENOSPC). A command that cannot save
/// fails with a message and leaves store.json as it was; a recording cut short keeps the
/// audio written before the error, and that audio can be recovered.
@Suite("Disk full: file-size limit and a tiny tmpfs")
struct DiskFullTests {
    /// With RLIMIT_FSIZE low, ALSA's `pulse_load_if_running` configuration hook (Debian's
    /// 99-pulse.conf) starts a PulseAudio client whose shared-memory set-up fails and says
    /// so on stderr. That line is the C library's, not recnotes'.
    static func recnotesLines(_ stderr: String) -> [String] {
        stderr.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("ftruncate() failed") }
    }

    /// Runs recnotes under `ulimit -f blocks` (512-byte blocks).
    static func limited(_ blocks: Int, _ arguments: [String], environment: [String: String]) throws -> Run {
        let child = try Spawned(
            "/bin/sh", ["-c", "ulimit -f \(blocks); exec \"$0\" \"$@\"", Sandbox.binary] + arguments,
            environment: environment)
        let (run, _, timedOut) = child.finish(timeout: 120)
        return timedOut ? Run(arguments: arguments, status: -1, stdout: run.stdout, stderr: "timed out") : run
    }

    @Test func mutationsPastTheFileSizeLimitFailAndKeepTheStore() throws {
        let sandbox = try Sandbox()
        // A store of about 70 KB, over a 20 KB limit.
        expectSuccess(try sandbox.run(["mkdir", "-p"] + (1...300).map { "/big/folder-number-\($0)" }))
        expectSuccess(try sandbox.run("rm", "-r", "/big/folder-number-300"))
        let source = sandbox.root + "/take.wav"
        try sandbox.write(source, wavBytes(frames: 2_400))
        let hasImport = try sandbox.runBounded(["import", "--help"]).status == 0
        var commands: [[String]] = [
            ["mkdir", "/X"], ["mkdir", "-p", "/big/a/b"], ["mv", "/big/folder-number-1", "/moved"],
            ["rm", "-r", "/big/folder-number-2"],
            ["rm", "--permanent", "/big/folder-number-3"], ["trash", "restore", "/big/folder-number-300"], ["undo"],
            ["trash", "empty", "--yes"],
        ]
        if hasImport {
            commands += [
                ["import", source, "--to", "/big", "--keep"], ["import", source, "--to", "/big", "--format", "flac"],
            ]
        }
        var environment = sandbox.baseEnvironment
        environment["RECNOTES_HOME"] = sandbox.store
        var lost = 0
        var crashes = 0
        var notes: [String] = []
        for arguments in commands {
            let before = BadInputTests.files(sandbox.store)
            let run = try Self.limited(40, arguments, environment: environment)
            if run.status < 0 || run.status > 128 { crashes += 1 }
            let lines = Self.recnotesLines(run.stderr)
            if run.status != 1 || lines.count != 1 || !lines[0].hasPrefix("recnotes: ")
                || !run.stderr.contains("File too large")
            {
                lost += 1
                notes.append("\(arguments): expected one 'File too large' error, status 1: \(run)")
            }
            let after = BadInputTests.files(sandbox.store)
            let changed = BadInputTests.changed(before, after)
            if !changed.isEmpty {
                lost += 1
                notes.append("\(arguments) changed \(changed)")
            }
            let leftovers = ((try? FileManager.default.contentsOfDirectory(atPath: sandbox.store)) ?? []).filter {
                $0.contains(".tmp-")
            }
            if !leftovers.isEmpty {
                notes.append("\(arguments) left \(leftovers)")
                lost += 1
            }
        }
        let fsck = try sandbox.runBounded(["fsck"])
        expectSuccess(try sandbox.run("mkdir", "/after"))
        print(
            "disk-full (ulimit -f, mutations): \(commands.count) commands tried past a 20 KB file-size limit, \(lost) lost or changed, \(crashes) crashes, fsck \(fsck.status == 0 ? "clean" : "NOT clean")"
        )
        #expect(lost == 0, "\(notes.joined(separator: "\n"))")
        #expect(crashes == 0)
        #expect(fsck.status == 0, "\(fsck)")
    }

    @Test(arguments: ["wav", "flac", "opus"])
    func aRecordingCutShortByTheFileSizeLimitIsKept(format: String) throws {
        let cli = try AudioCLI()
        let input = AudioCLI.noise(frames: 10 * 48_000)
        try cli.writeInput(input)
        // 200 KB: about 2 s of WAV, 4 s of FLAC (noise compresses badly), more of Opus.
        let run = try Self.limited(
            400, ["record", "Cut", "--format", format, "--progress", "json"], environment: cli.environment)
        var notes: [String] = []
        let lines = Self.recnotesLines(run.stderr)
        if run.status != 1 || lines.count != 1 || !run.stderr.contains("File too large") {
            notes.append("expected one 'File too large' error: \(run)")
        }
        if run.status < 0 || run.status > 128 { notes.append("crashed") }
        let failed = run.lines.last { $0.contains("\"failed\"") }
        if failed == nil { notes.append("no failed event: \(run.stdout.suffix(300))") }
        // What the recorder reported before the error must be there, saved or recovered.
        let reported =
            run.lines.compactMap { line -> Int? in
                guard line.contains("\"progress\"") else { return nil }
                return (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["frames"] as? Int
            }.max() ?? 0
        let ls = try cli.run("ls")
        let item = try cli.recordings().first { ($0["name"] as? String)?.hasPrefix("Cut") == true }
        var frames = 0
        var shortfall = 0
        if let item, let file = item["file"] as? String {
            let decoded = try AudioCLI.decode(cli.store + "/audio/" + file)
            frames = decoded.count
            if decoded.count != item["frames"] as? Int {
                notes.append("store says \(item["frames"] ?? "?") frames, the file has \(decoded.count)")
            }
            // What the encoder still held when the write failed cannot reach the disk. For WAV
            // and FLAC that is at most a write's worth (held to one second, as for a crash);
            // libsndfile's Ogg writer buffers whole pages of Opus, so there the shortfall is
            // only reported.
            shortfall = max(0, reported - decoded.count)
            if shortfall > 48_000 && format != "opus" {
                notes.append("\(reported) frames reported before the error, \(decoded.count) kept")
            }
            if format != "opus",
                !(Array(decoded.prefix(min(decoded.count, input.count)))
                    == Array(input.prefix(min(decoded.count, input.count))))
            {
                notes.append("the kept samples differ from the input")
            }
        } else {
            notes.append("no recording kept: \(ls)")
        }
        let fsck = try cli.run("fsck")
        if fsck.status != 0 { notes.append("fsck: \(fsck.stdout)") }
        print(
            "disk-full (ulimit -f, record \(format)): cut short after \(frames) frames (\(String(format: "%.2f", Double(frames) / 48_000)) s), \(String(format: "%.2f", Double(shortfall) / 48_000)) s short of the last progress event, \(notes.isEmpty ? 0 : 1) lost, 0 crashes, fsck \(fsck.status == 0 ? "clean" : "NOT clean")"
        )
        #expect(notes.isEmpty, "\(notes.joined(separator: "\n"))")
    }

    /// A 256 KB tmpfs mounted over the store directory (root can; a container may not).
    @Test func aFullFilesystemFailsCleanlyAndTheRecordingComesBack() throws {
        let cli = try AudioCLI()
        try FileManager.default.createDirectory(atPath: cli.store, withIntermediateDirectories: true)
        let mount = try Sandbox.execute(
            "/bin/mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", cli.store], environment: [:])
        guard mount.status == 0 else {
            print(
                "disk-full (tmpfs): skipped, cannot mount a tmpfs here: \(mount.stderr.trimmingCharacters(in: .whitespacesAndNewlines))"
            )
            return
        }
        defer { _ = try? Sandbox.execute("/bin/umount", ["-l", cli.store], environment: [:]) }
        let input = AudioCLI.noise(frames: 10 * 48_000)
        try cli.writeInput(input)
        var notes: [String] = []
        var crashes = 0
        #expect(try cli.run("mkdir", "/Ideas").status == 0)
        // Room to give back later: a filler file of 64 KB.
        let filler = cli.store + "/filler"
        try Data(count: 64 * 1024).write(to: URL(fileURLWithPath: filler))

        let record = try cli.run("record", "Ideas/Full", "--format", "wav", "--progress", "json")
        if record.status < 0 || record.status > 128 { crashes += 1 }
        if record.status != 1 || !record.stderr.contains("No space left on device")
            || record.stderr.split(separator: "\n").count != 1
        {
            notes.append(
                "record: expected one 'No space left on device' error, status 1: \(record.status) \(record.stderr)")
        }
        let storeBefore = try #require(FileManager.default.contents(atPath: cli.store + "/store.json"))
        _ = try StoreSnapshot(storeFile: cli.store + "/store.json")

        // While the disk is full: mutations fail with a message and leave store.json alone.
        var mutations = 0
        for arguments in [["mkdir", "/b"], ["mv", "/Ideas", "/Renamed"], ["rm", "-r", "/Ideas"]] {
            let run = try cli.run(arguments)
            mutations += 1
            if run.status < 0 || run.status > 128 { crashes += 1 }
            let stored = FileManager.default.contents(atPath: cli.store + "/store.json")
            if run.status == 0 {
                // The recording's audio may have been recovered first only if there was room.
                notes.append("\(arguments) succeeded on a full disk")
            } else if !run.stderr.contains("No space left on device") {
                notes.append("\(arguments): \(run.stderr)")
            }
            if stored != storeBefore && run.status != 0 { notes.append("\(arguments) changed store.json") }
        }

        // Room again: the next command brings the recording back (saved, or recovered).
        try FileManager.default.removeItem(atPath: filler)
        let ls = try cli.run("ls", "/Ideas")
        if ls.status != 0 { notes.append("ls after freeing space: \(ls.stderr)") }
        var frames = 0
        if let item = try cli.recordings().first(where: { ($0["name"] as? String)?.hasPrefix("Full") == true }),
            let file = item["file"] as? String
        {
            let decoded = try AudioCLI.decode(cli.store + "/audio/" + file)
            frames = decoded.count
            if frames == 0 || frames != item["frames"] as? Int {
                notes.append("kept \(frames) frames, store says \(item["frames"] ?? "?")")
            }
            if !(Array(decoded.prefix(min(frames, input.count))) == Array(input.prefix(min(frames, input.count)))) {
                notes.append("kept samples differ")
            }
        } else {
            notes.append("the recording is gone: \(ls)")
        }
        let fsck = try cli.run("fsck")
        if fsck.status != 0 { notes.append("fsck: \(fsck.stdout)") }
        print(
            "disk-full (256 KB tmpfs): record cut short by ENOSPC kept \(frames) frames (\(String(format: "%.2f", Double(frames) / 48_000)) s) and brought it back once space was freed; \(mutations) mutations on the full disk refused; \(notes.isEmpty ? 0 : 1) lost, \(crashes) crashes, fsck \(fsck.status == 0 ? "clean" : "NOT clean")"
        )
        #expect(notes.isEmpty, "\(notes.joined(separator: "\n"))")
        #expect(crashes == 0)
    }
}
