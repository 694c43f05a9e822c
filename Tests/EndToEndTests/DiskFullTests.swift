import Foundation
import RecAudio
import RecCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Writes that fail for lack of room: a file-size limit (`ulimit -f`, EFBIG) and, where the
/// machine lets the test mount one (root, as in CI), a tmpfs of a few hundred KB (ENOSPC).
/// A command that cannot save fails with a message and leaves store.json as it was; a
/// recording cut short keeps the audio written before the error, saved at once or, when the
/// store cannot be written either, by the first command that can; reading goes on meanwhile.
@Suite("Disk full: file-size limit and a tiny tmpfs")
struct DiskFullTests {
    /// With RLIMIT_FSIZE low, ALSA's `pulse_load_if_running` configuration hook (Debian's
    /// 99-pulse.conf) starts a PulseAudio client whose shared-memory set-up fails and says
    /// so on stderr. That line is the C library's, not recnotes'.
    static func recnotesLines(_ stderr: String) -> [String] {
        stderr.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("ftruncate() failed") }
    }

    /// Runs recnotes under `ulimit -f blocks` (512-byte blocks), with `stdin` from a file
    /// when given.
    static func limited(_ blocks: Int, _ arguments: [String], environment: [String: String], stdin: String? = nil)
        throws -> Run
    {
        let redirect = stdin.map { " < '\($0)'" } ?? ""
        let child = try Spawned(
            "/bin/sh", ["-c", "ulimit -f \(blocks); exec \"$0\" \"$@\"\(redirect)", Sandbox.binary] + arguments,
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
        // 200 KB is about 2 s of WAV and 4 s of FLAC (noise compresses badly). Opus packs
        // those 10 s of noise into less than that, and past the input's end the capture
        // device gives silence, which Opus packs into a few bytes a frame: 200 KB would be
        // minutes of recording. 40 KB is reached within the noise.
        let limit = format == "opus" ? 80 : 400
        let run = try Self.limited(
            limit, ["record", "Cut", "--format", format, "--progress", "json"], environment: cli.environment)
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

    /// Whether this process may mount a tmpfs (root can; CI runs as root). Tried once, on
    /// a directory of its own.
    static let canMountTmpfs: Bool = {
        let directory = NSTemporaryDirectory() + "recnotes-tmpfs-probe-" + UUID().uuidString
        guard (try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)) != nil
        else { return false }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let mount = try? Sandbox.execute(
            "/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", directory], environment: [:])
        guard mount?.status == 0 else { return false }
        _ = try? Sandbox.execute("/bin/umount", [directory], environment: [:])
        return true
    }()

    /// A tmpfs of `kilobytes` mounted over the store directory, unmounted when `body` ends.
    static func onTmpfs<T>(_ cli: AudioCLI, kilobytes: Int, _ body: () throws -> T) throws -> T {
        try onTmpfs(at: cli.store, kilobytes: kilobytes, body)
    }

    /// A tmpfs of `kilobytes` mounted over `directory` (made if missing), unmounted when
    /// `body` ends.
    static func onTmpfs<T>(at directory: String, kilobytes: Int, _ body: () throws -> T) throws -> T {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let mount = try Sandbox.execute(
            "/bin/mount", ["-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", directory], environment: [:])
        try #require(mount.status == 0, "mount: \(mount.stderr)")
        defer { _ = try? Sandbox.execute("/bin/umount", ["-l", directory], environment: [:]) }
        return try body()
    }

    /// What a reading command must do on a store whose disk is full: succeed, print no
    /// error, and change nothing; `warning`, when given, is said exactly once.
    static func readingProblems(_ cli: AudioCLI, warning: String?) throws -> [String] {
        var notes: [String] = []
        for arguments in [
            ["ls", "/Ideas"], ["ls", "-l", "--json", "/"], ["tree"], ["find", "/"], ["info", "/Ideas"],
            ["state"], ["history"], ["marks", "/Ideas/Other"], ["export", "/Ideas/Other", "-"],
        ] {
            let before = BadInputTests.files(cli.store)
            let run = try cli.run(arguments)
            let lines = run.stderr.split(separator: "\n").map(String.init)
            if run.status != 0 { notes.append("\(arguments) failed on a full disk: \(run.status) \(run.stderr)") }
            if let warning {
                if lines.count != 1 || !lines[0].hasPrefix("recnotes: warning: ") || !lines[0].contains(warning) {
                    notes.append("\(arguments): expected one warning with '\(warning)': \(run.stderr)")
                }
            } else if !lines.isEmpty {
                notes.append("\(arguments): \(run.stderr)")
            }
            let changed = BadInputTests.changed(before, BadInputTests.files(cli.store)).filter {
                !$0.hasPrefix("cache/")
            }
            if !changed.isEmpty { notes.append("\(arguments) changed \(changed)") }
        }
        return notes
    }

    /// The issue's case: `record --format wav --duration 20` into a store on a 600 KB tmpfs.
    /// The recorder set room aside to save in, so what reached the disk is saved at once
    /// under its name, as a file that decodes whole, and the one error line says so; the
    /// store is then as usable as any full disk allows. Opus fills a smaller disk.
    @Test(
        .enabled(if: canMountTmpfs, "needs to mount a tmpfs (root)"),
        arguments: [("wav", 600), ("flac", 600), ("opus", 160)])
    func aRecordingThatFillsTheDiskIsSavedWithWhatReachedIt(format: String, kilobytes: Int) throws {
        let cli = try AudioCLI()
        let input = AudioCLI.noise(frames: 30 * 48_000)
        try cli.writeInput(input)
        var notes: [String] = []
        try Self.onTmpfs(cli, kilobytes: kilobytes) {
            #expect(try cli.run("mkdir", "/Ideas").status == 0)
            #expect(try cli.run("record", "Ideas/Other", "--format", "wav", "--duration", "0.5").status == 0)
            let record = try cli.run("record", "Ideas/Full", "--format", format, "--duration", "20")
            let lines = record.stderr.split(separator: "\n")
            if record.status != 1 || lines.count != 1 || !record.stderr.contains("No space left on device")
                || !record.stderr.contains("recorded is saved") || !record.stderr.hasPrefix("recnotes: /Ideas/Full: ")
            {
                notes.append(
                    "record: expected one line saying what was saved, status 1: \(record.status) \(record.stderr)")
            }
            if record.stderr.contains("audio/") || record.stderr.contains(".\(format)") {
                notes.append("record names an internal file: \(record.stderr)")
            }
            guard let item = try cli.recordings().first(where: { $0["name"] as? String == "Full" }),
                let file = item["file"] as? String
            else {
                notes.append("the recording is not saved as /Ideas/Full: \(try cli.run("ls", "/Ideas"))")
                return
            }
            let decoded = try AudioCLI.decode(cli.store + "/audio/" + file)
            let declared = try SoundFile.open(path: cli.store + "/audio/" + file)
            if decoded.count < 48_000 || decoded.count != item["frames"] as? Int {
                notes.append("kept \(decoded.count) frames, the store says \(item["frames"] ?? "?")")
            }
            if format == "wav" && declared.frames != Int64(decoded.count) {
                notes.append("the WAV header says \(declared.frames) frames, the file holds \(decoded.count)")
            }
            if format != "opus", Array(decoded) != Array(input.prefix(decoded.count)) {
                notes.append("the kept samples differ from the input")
            }
            if !(try cli.run("state").stdout.contains("\"recording\": null")) {
                notes.append("a recording is still in progress")
            }
            let reserves = cli.audioFiles().filter { $0.hasPrefix(".") }
            if !reserves.isEmpty { notes.append("left \(reserves) in audio/") }
            notes += try Self.readingProblems(cli, warning: nil)
            let fsck = try cli.run("fsck")
            if fsck.status != 0 { notes.append("fsck: \(fsck.stdout)") }
            print(
                "disk-full (\(kilobytes) KB tmpfs, record \(format)): saved \(decoded.count) frames (\(String(format: "%.2f", Double(decoded.count) / 48_000)) s) as /Ideas/Full at once"
            )
        }
        #expect(notes.isEmpty, "\(notes.joined(separator: "\n"))")
    }

    /// Less room left than the recorder sets aside: the disk fills and `store.json` cannot
    /// be written either. The audio stays, and the in-progress entry lets the first command
    /// that can write save it. Meanwhile reading works, each command saying why once;
    /// changes fail with their own error and change nothing; nothing new is recorded.
    @Test(.enabled(if: canMountTmpfs, "needs to mount a tmpfs (root)"))
    func aRecordingThatCannotBeSavedWaitsUntilThereIsRoom() throws {
        let cli = try AudioCLI()
        let input = AudioCLI.noise(frames: 10 * 48_000)
        try cli.writeInput(input)
        var notes: [String] = []
        var crashes = 0
        var kept = 0
        try Self.onTmpfs(cli, kilobytes: 256) {
            #expect(try cli.run("mkdir", "/Ideas").status == 0)
            #expect(try cli.run("record", "Ideas/Other", "--format", "wav", "--duration", "0.2").status == 0)
            // 48 KB left: less than the recorder's reserve, so none is set aside.
            let filler = cli.store + "/filler"
            var disk = statvfs()
            try #require(statvfs(cli.store, &disk) == 0)
            let free = Int64(disk.f_bavail) * Int64(disk.f_frsize)
            try Data(count: Int(free) - 48 * 1024).write(to: URL(fileURLWithPath: filler))

            let record = try cli.run("record", "Ideas/Full", "--format", "wav", "--duration", "5")
            if record.status < 0 || record.status > 128 { crashes += 1 }
            if record.status != 1 || record.stderr.split(separator: "\n").count != 1
                || !record.stderr.contains("No space left on device") || !record.stderr.contains("\"Full (recovered)\"")
                || record.stderr.contains("audio/")
            {
                notes.append("record: expected one line saying the audio is kept: \(record.status) \(record.stderr)")
            }
            let storeBefore = FileManager.default.contents(atPath: cli.store + "/store.json")
            notes += try Self.readingProblems(cli, warning: "not saved in the store yet: No space left on device")
            let status = try cli.run("status")
            if status.stdout.contains("running") { notes.append("status shows the dead recorder: \(status.stdout)") }
            for arguments in [["mkdir", "/b"], ["mv", "/Ideas", "/Renamed"], ["record", "/c", "--duration", "1"]] {
                let run = try cli.run(arguments)
                if run.status < 0 || run.status > 128 { crashes += 1 }
                if run.status != 1 { notes.append("\(arguments) did not fail on a full disk: \(run)") }
            }
            if FileManager.default.contents(atPath: cli.store + "/store.json") != storeBefore {
                notes.append("store.json changed on the full disk")
            }
            let repair = try cli.run("fsck", "--repair")
            if repair.status != 1 || !repair.stdout.contains("not repaired: ") {
                notes.append("fsck --repair on a full disk: \(repair)")
            }

            // Room again: the next command saves it.
            try FileManager.default.removeItem(atPath: filler)
            let ls = try cli.run("ls", "/Ideas")
            if ls.status != 0 || !ls.stdout.contains("Full (recovered)") || !ls.stderr.contains("recovered") {
                notes.append("ls once there is room: \(ls)")
            }
            if let item = try cli.recordings().first(where: { $0["name"] as? String == "Full (recovered)" }),
                let file = item["file"] as? String
            {
                let decoded = try AudioCLI.decode(cli.store + "/audio/" + file)
                kept = decoded.count
                if kept == 0 || kept != item["frames"] as? Int {
                    notes.append("kept \(kept) frames, the store says \(item["frames"] ?? "?")")
                }
                if Array(decoded) != Array(input.prefix(kept)) { notes.append("the kept samples differ") }
            } else {
                notes.append("the recording is gone: \(ls)")
            }
            let fsck = try cli.run("fsck")
            if fsck.status != 0 { notes.append("fsck: \(fsck.stdout)") }
        }
        print(
            "disk-full (256 KB tmpfs, no room to save): \(kept) frames (\(String(format: "%.2f", Double(kept) / 48_000)) s) kept and saved once there was room; \(notes.isEmpty ? 0 : 1) lost, \(crashes) crashes"
        )
        #expect(notes.isEmpty, "\(notes.joined(separator: "\n"))")
        #expect(crashes == 0)
    }
}
