import Foundation
import RecCore
import Testing

/// `recnotes serve`'s page in a real browser: headless Chromium driven by Selenium
/// (Tests/Browser/page_test.py, Debian's chromium, chromium-driver and python3-selenium, which
/// scripts/install-deps.sh installs), on a store made with the CLI and a server started as a
/// user starts it. The script's checks look at the DOM and the <audio> element's state.
@Suite struct ServeBrowserTests {
    /// Debian's python modules are for /usr/bin/python3, not for another python3 on PATH.
    static let python = "/usr/bin/python3"
    static let chromium = "/usr/bin/chromium"
    static let driver = "/usr/bin/chromedriver"

    /// What of the browser is missing, nil when all is there.
    static let missing: String? = {
        var missing = [chromium, driver, python].filter { !FileManager.default.isExecutableFile(atPath: $0) }
        if missing.isEmpty {
            let probe = try? Sandbox.execute(python, ["-c", "import selenium"], environment: ["PATH": "/usr/bin:/bin"])
            if probe?.status != 0 { missing.append("python3-selenium") }
        }
        guard !missing.isEmpty else { return nil }
        let message = """
            !!! ServeBrowserTests SKIPPED: \(missing.joined(separator: ", ")) missing; \
            run scripts/install-deps.sh (apt-get install chromium chromium-driver python3-selenium) !!!
            """
        FileHandle.standardError.write(Data((message + "\n").utf8))
        return message
    }()

    /// The scripts beside this file's folder: Tests/Browser/page_test.py and record_test.py.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Browser/page_test.py").path
    static let recordScript = URL(fileURLWithPath: script).deletingLastPathComponent()
        .appendingPathComponent("record_test.py").path

    /// Real speech for the fake microphone (pocketsphinx-testdata, which scripts/install-deps.sh
    /// installs): 18 s of three LibriVox clips.
    static let clips = ["0870", "0890", "0920"].map {
        "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-\($0).wav"
    }

    /// Recording in the page, with Chromium's fake microphone playing the clips: named, paused
    /// and marked, cancelled, through a server killed and started again, and through a network
    /// drop (record_test.py starts and kills the server itself).
    @Test(.enabled(if: missing == nil, "chromium, chromium-driver or python3-selenium is missing: see stderr"))
    func thePageRecordsAndLosesNothing() throws {
        try Self.record(checks: 6)
    }

    /// The same page over `serve --tls` on an address off the loopback (in a network namespace
    /// of the test's own, where 10.77.0.1 is this machine's): a secure context, so the browser
    /// gives it the microphone, reached with the token the URL carries.
    @Test(.enabled(if: missing == nil, "chromium, chromium-driver or python3-selenium is missing: see stderr"))
    func thePageRecordsOverHTTPSOffTheLoopback() throws {
        let namespace = [
            "/usr/bin/unshare", "--net", "--", "/bin/sh", "-c",
            "ip link set lo up && ip addr add 10.77.0.1/32 dev lo && exec \"$@\"", "sh",
        ]
        try Self.record(checks: 1, arguments: ["--listen", "10.77.0.1", "--tls", "--only", "named"], inside: namespace)
    }

    /// A network drop longer than the server waits for a page (3 s here, a day by default): the
    /// server saves what it has, and the page sends the rest as a recording of its own, named
    /// after the first; the two together are the whole time recorded.
    @Test(.enabled(if: missing == nil, "chromium, chromium-driver or python3-selenium is missing: see stderr"))
    func aDropLongerThanTheServerWaitsLeavesTwoRecordings() throws {
        try Self.record(checks: 1, arguments: ["--abandon-after", "3", "--only", "longer than"])
    }

    /// With Whisper installed, the page's recording shows its words while it records and has
    /// its transcript once saved.
    @Test(.enabled(if: missing == nil && WhisperTests.available, "needs chromium and the Whisper wheels"))
    func aRecordingInThePageHasLiveWords() throws {
        try Self.record(checks: 1, arguments: ["--live-words", "--only", "live words"], whisper: true)
    }

    /// Runs record_test.py (in `inside`, a command that runs the rest) on a new store (with
    /// Whisper installed: `whisper`); `checks` of its checks must pass.
    static func record(checks: Int, arguments: [String] = [], inside: [String] = [], whisper: Bool = false) throws {
        let sandbox = try Sandbox()
        if whisper { try WhisperTests.install(into: sandbox.store) }
        for clip in clips { #expect(FileManager.default.fileExists(atPath: clip), "\(clip): pocketsphinx-testdata") }
        var environment = sandbox.baseEnvironment
        environment["PATH"] = "/usr/sbin:/usr/bin:/sbin:/bin"
        let command =
            inside + [
                python, recordScript, "--recnotes", Sandbox.binary, "--store", sandbox.store, "--home", sandbox.home,
            ]
            + arguments + ["--clips"] + clips
        let run = try Sandbox.execute(command[0], Array(command.dropFirst()), environment: environment)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("checks: \(checks) passed, 0 failed"), "\(run.stdout)\(run.stderr)")
        // Nothing is left in progress.
        let incoming = (try? FileManager.default.contentsOfDirectory(atPath: sandbox.store + "/incoming")) ?? []
        #expect(incoming.isEmpty, "\(incoming)")
    }

    @Test(.enabled(if: missing == nil, "chromium, chromium-driver or python3-selenium is missing: see stderr"))
    func thePageWorksInChromium() throws {
        let sandbox = try Sandbox()
        // /Talks/budget talk: 8 s of audio, tagged, with a note, two markers and a transcript of
        // three lines (an engine that prints SRT), and /memo beside /Talks.
        // Three phrases with pauses between them and syllables inside: a waveform with a shape.
        let samples = (0..<8 * 48_000).map { n -> Int16 in
            let t = Double(n) / 48_000
            let phrase = [(0.2, 1.8), (2.3, 4.2), (4.7, 7.6)].contains { t >= $0.0 && t < $0.1 } ? 1.0 : 0.0
            let syllable = 0.35 + 0.65 * abs(sin(Double.pi * 3.2 * t))
            let voice = sin(2 * .pi * 180 * t) + 0.5 * sin(2 * .pi * 360 * t) + 0.25 * sin(2 * .pi * 540 * t)
            return Int16(9000 * phrase * syllable * voice)
        }
        let take = sandbox.root + "/take.wav"
        try sandbox.write(take, wavBytes(samples: samples))
        try sandbox.succeed("mkdir", "/Talks")
        try sandbox.succeed("import", take, "--to", "/Talks", "--name", "budget talk")
        try sandbox.succeed("import", take, "--to", "/", "--name", "memo")
        try sandbox.succeed("tag", "/Talks/budget talk", "+work")
        try sandbox.succeed("note", "/Talks/budget talk", "--set", "the quarterly budget, first draft")
        try sandbox.succeed("mark", "/Talks/budget talk", "--at", "0:03", "budget")
        try sandbox.succeed("mark", "/Talks/budget talk", "--at", "0:06", "wrap up")
        let engine = sandbox.root + "/engine"
        let srt = """
            1
            00:00:00,000 --> 00:00:02,000
            hello there

            2
            00:00:02,000 --> 00:00:04,500
            the budget is large

            3
            00:00:04,500 --> 00:00:07,000
            zebra crossing ahead

            """
        try Data("#!/bin/sh\ncat <<'EOF'\n\(srt)EOF\n".utf8).write(to: URL(fileURLWithPath: engine))
        chmod(engine, 0o755)
        expectSuccess(
            try sandbox.run(["transcribe", "/Talks/budget talk"], environment: ["RECNOTES_TRANSCRIBER": engine]))
        // /memo transcribed, and nothing heard in it (whisper.cpp's JSON of no segments): the page marks no transcript on it.
        let silent = sandbox.root + "/silent-engine"
        try Data("#!/bin/sh\necho '{\"transcription\": []}'\n".utf8).write(to: URL(fileURLWithPath: silent))
        chmod(silent, 0o755)
        expectSuccess(try sandbox.run(["transcribe", "/memo"], environment: ["RECNOTES_TRANSCRIBER": silent]))
        let memo = try sandbox.succeed("ls", "/memo", "--json").stdout
        #expect(memo.contains("\"transcribed\": true, \"transcriptEmpty\": true"), "\(memo)")
        // Audio that is not here: /old take dropped after a sync (its copy on the remote hub),
        // /lost take's file gone from the store (no copy anywhere), as `ls -l` tells them apart.
        try sandbox.succeed("import", take, "--to", "/", "--name", "old take")
        try sandbox.succeed("import", take, "--to", "/", "--name", "lost take")
        try sandbox.succeed("sync", "init", "--name", "laptop")
        try sandbox.succeed("sync", "remote", "add", "hub", sandbox.root + "/hub")
        try sandbox.succeed("sync")
        try sandbox.succeed("drop", "/old take")
        let lost = try #require(
            try JSONSerialization.jsonObject(with: Data(sandbox.succeed("info", "/lost take", "--json").stdout.utf8))
                as? [String: Any])
        try FileManager.default.removeItem(atPath: try #require(lost["audioPath"] as? String))
        let listed = try sandbox.succeed("ls", "-l", "/").stdout
        #expect(listed.contains("not here") && listed.contains("missing"), "\(listed)")

        let server = try ServeProcess(sandbox)
        var arguments = [
            Self.script, "--url", server.url, "--recnotes", Sandbox.binary, "--store", sandbox.store,
            "--home", sandbox.home,
        ]
        // RECNOTES_SCREENSHOTS=DIR: the four screenshots of docs/ are written there.
        if let shots = ProcessInfo.processInfo.environment["RECNOTES_SCREENSHOTS"], !shots.isEmpty {
            arguments += ["--screenshots", shots]
        }
        var environment = sandbox.baseEnvironment
        environment["PATH"] = "/usr/bin:/bin"
        let run = try Sandbox.execute(Self.python, arguments, environment: environment)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("checks: 19 passed, 0 failed"), "\(run.stdout)\(run.stderr)")

        let status = server.stop()
        #expect(status.map { $0 & 0x7f == 0 && ($0 >> 8) & 0xff == 0 } == true, "\(String(describing: status))")
        #expect(server.stderr.isEmpty, "\(server.stderr)")
    }
}
