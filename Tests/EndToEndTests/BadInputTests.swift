import Foundation
import PropertyBased
import RecCore
import RecTestSupport
import Testing

/// Bad input through the binary: generated arguments, damaged store and view-state files,
/// and damaged audio. Whatever comes in, recnotes must not die of a signal; a failure is one
/// line `recnotes: …` with status 1 or 64 and leaves every file in the store as it was.
@Suite("Bad input through the binary")
struct BadInputTests {
    static let seed = SeededRandom.seed(20_251_122)

    /// Every file under the store (lock files aside), by relative path.
    static func files(_ directory: String) -> [String: Data] {
        var result: [String: Data] = [:]
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return result }
        for case let relative as String in walker where !relative.hasSuffix(".lock") {
            var isDirectory: ObjCBool = false
            let path = directory + "/" + relative
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                result[relative] = FileManager.default.contents(atPath: path) ?? Data()
            }
        }
        return result
    }

    /// The files that differ between two listings.
    static func changed(_ before: [String: Data], _ after: [String: Data]) -> [String] {
        Set(after.keys).union(before.keys).filter { after[$0] != before[$0] }.sorted()
    }

    /// What is wrong with a run that had to fail cleanly, if anything.
    static func failureProblem(_ run: Run, statuses: Set<Int32> = [1, 64]) -> String? {
        if run.status < 0 || run.status > 128 { return "ended by signal or watchdog: \(run)" }
        if !statuses.contains(run.status) { return "status \(run.status), expected \(statuses.sorted()): \(run)" }
        // Bytes, not Characters: a combining mark right after "recnotes: " joins the space.
        if run.stderrLines.count != 1 || !run.stderr.utf8.starts(with: "recnotes: ".utf8)
            || run.stderr.utf8.starts(with: "recnotes: warning:".utf8)
        {
            return "not one 'recnotes: ' line on stderr: \(run)"
        }
        return nil
    }

    /// A sandbox with folders, a WAV recording, and file devices for `play`.
    static func sandbox() throws -> Sandbox {
        let sandbox = try Sandbox()
        expectSuccess(try sandbox.run("mkdir", "-p", "/Work/Ideas", "/Home"))
        try sandbox.addWAVRecording("standup", in: "/Work/Ideas", frames: 48_000)
        expectSuccess(try sandbox.run("mark", "/Work/Ideas/standup", "--at", "0.5", "intro"))
        let asoundrc = """
            pcm.!default {
              type asym
              playback.pcm { type file slave.pcm null file "/dev/null" format "raw" }
              capture.pcm { type file slave.pcm null file "/dev/null" infile "/dev/zero" format "raw" }
            }
            """
        try asoundrc.write(toFile: sandbox.home + "/.asoundrc", atomically: true, encoding: .utf8)
        return sandbox
    }

    // MARK: Generated arguments
    //
    // Spelled out with explicit types and plain functions: one big expression of generic
    // combinators costs the type checker minutes.

    static func alphanumeric(_ rng: inout Xoshiro) -> String { Gen.letterOrNumber.string(of: 1...10).run(using: &rng) }
    static func long(_ rng: inout Xoshiro) -> String { Gen.letter.string(of: 250...260).run(using: &rng) }
    static func digitString(_ rng: inout Xoshiro) -> String { Gen.number.string(of: 1...25).run(using: &rng) }
    static let scalarRanges: [Generator<UnicodeScalar, Shrink.None<UInt32>>] = [
        Gen<UnicodeScalar>.unicodeScalar(in: "\u{1}"..."\u{7F}"),
        Gen<UnicodeScalar>.unicodeScalar(in: "\u{80}"..."\u{FF}"),
        Gen<UnicodeScalar>.unicodeScalar(in: "\u{2000}"..."\u{206F}"),
        Gen<UnicodeScalar>.unicodeScalar(in: "\u{300}"..."\u{36F}"),
        Gen<UnicodeScalar>.unicodeScalar(in: "\u{1F300}"..."\u{1F64F}"),
    ]
    static let specialTexts: [String] = [
        "", " ", ".", "..", "/", "//", "a/", "-", "--", "-x", "@", "@3f2", "@zzzz", "@0000", "~", "*",
        " Work", "Work ", "Work/Ideas", "../..", "/Work/Ideas/standup/x", "standup", "\n", "a\nb", "\u{7F}",
    ]
    static let specialTimes: [String] = [
        "0", "1", "0.5", "1:00", "0:00.5", "50%", "100%", "101%", "-1", "-0.5s", "+1", "99999999999999999999999",
        "1e3", "nan", "inf", "1:60", "1:2:3:4", "", " ", "1.", ".5", "%", "s", "-", "\u{663}", "0x1", "1 s",
        "#1", "#0", "#2", "#x", "#", "# 1", "mark:", "mark:intro", "mark:INTRO", "mark:nope", "mark",
    ]
    static let specialOptions: [[String]] = [
        ["--format"], ["--rate"], ["--channels"], ["--duration"],
        ["--format", "wav"], ["--format", "opus"], ["--format", "ogg"], ["--format", ""], ["--rate", "0"],
        ["--rate", "-1"], ["--rate", "44100"], ["--rate", "99999999999999999999"], ["--rate", "1e3"],
        ["--channels", "0"], ["--channels", "3"], ["--channels", "-2"], ["--channels", "x"],
        ["--format", "opus", "--rate", "44100"], ["--progress", "xml"], ["--device", ""],
    ]

    static func pick<T>(_ array: [T], _ rng: inout Xoshiro) -> T { array[Int.random(in: 0..<array.count, using: &rng)] }

    static func text(_ rng: inout Xoshiro) -> String {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return alphanumeric(&rng)
        case 1:
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...10, using: &rng) {
                let generator = pick(scalarRanges, &rng)
                scalars.append(generator.run(using: &rng))
            }
            return String(scalars)
        case 2: return long(&rng)
        default: return pick(specialTexts, &rng)
        }
    }

    static func path(_ rng: inout Xoshiro) -> String {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return text(&rng)
        case 1:
            var parts: [String] = []
            for _ in 0..<Int.random(in: 1...3, using: &rng) { parts.append(text(&rng)) }
            return "/" + parts.joined(separator: "/")
        case 2: return "/Work/" + text(&rng)
        default: return "@" + text(&rng)
        }
    }

    static func time(_ rng: inout Xoshiro) -> String {
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: return pick(specialTimes, &rng)
        case 1: return digitString(&rng)
        default: return text(&rng)
        }
    }

    static func option(_ rng: inout Xoshiro) -> [String] {
        Bool.random(using: &rng) ? pick(specialOptions, &rng) : ["--rate", alphanumeric(&rng)]
    }

    static func command(_ rng: inout Xoshiro) -> [String] {
        let device: [String] = ["--device", "no_such_pcm"]
        switch Int.random(in: 0..<22, using: &rng) {
        case 0: return ["mkdir", text(&rng)]
        case 1: return ["mkdir", "-p", path(&rng)]
        case 2: return ["ls", path(&rng)]
        case 3: return ["cd", path(&rng)]
        case 4: return ["info", path(&rng)]
        case 5: return ["rm", path(&rng)]
        case 6: return ["mv", "/Home", path(&rng)]
        case 7: return ["mv", path(&rng), "/Work"]
        case 8: return ["trash", "restore", path(&rng)]
        case 9: return ["play", "/Work/Ideas/standup", "--seek", time(&rng)]
        case 10: return ["play", "/Work/Ideas/standup", "--seek", "0.5", "--until", time(&rng)]
        case 11: return ["record"] + device + ["--duration", time(&rng)]
        case 12: return ["record", "/Home/x"] + device + ["--duration", "1"] + option(&rng)
        case 13: return ["record", path(&rng)] + device + ["--duration", "1"]
        case 14: return ["mark", "/Work/Ideas/standup", "--at", time(&rng), text(&rng)]
        case 15: return ["mark", text(&rng)]  // nothing runs: refused, or a usage error for the label
        case 16: return ["unmark", path(&rng), text(&rng)]
        case 17: return ["tag", path(&rng), pick(["+", "-"], &rng) + text(&rng)]
        case 18: return ["note", path(&rng), "--set", text(&rng)]
        case 19: return ["export", "/Work/Ideas/standup", "--markers", text(&rng), "-"]
        case 20: return ["seek", pick(["next-mark", "prev-mark", "#1", "mark:intro"], &rng)]
        default: return ["find", path(&rng)]
        }
    }

    static func isValidName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 255, name != ".", name != ".." else { return false }
        for s in name.unicodeScalars where s == "/" || s.value < 0x20 || (0x7F...0x9F).contains(s.value) {
            return false
        }
        return !name.unicodeScalars.first!.properties.isWhitespace && !name.unicodeScalars.last!.properties.isWhitespace
    }

    @Test func generatedArgumentsFailCleanly() throws {
        let sandbox = try Self.sandbox()
        var rng = Xoshiro(seed: (Self.seed, 0xBAD, 0x1_0000, 42))
        let count = 300
        var problems: [String] = []
        var statuses: [Int32: Int] = [:]
        var crashes = 0
        var before = Self.files(sandbox.store)
        for n in 0..<count {
            let arguments = Self.command(&rng)
            let run = try sandbox.runBounded(arguments, timeout: 60)
            statuses[run.status, default: 0] += 1
            if run.status < 0 || run.status > 128 { crashes += 1 }
            let name = arguments.count == 2 && arguments[0] == "mkdir" ? arguments[1] : nil
            let plainName =
                name.map { !$0.contains("/") && !$0.hasPrefix("-") && !$0.hasPrefix("@") && $0 != "." && $0 != ".." }
                ?? false
            if run.status == 0 {
                if ["mkdir", "mv", "rm", "trash", "mark", "unmark", "tag", "note"].contains(arguments[0]),
                    Self.files(sandbox.store) != before
                {
                    // Put the fixture back, so that later cases meet the same store.
                    let undo = try sandbox.runBounded(["undo"])
                    if undo.status != 0 { problems.append("#\(n) undo after \(arguments.debugDescription): \(undo)") }
                }
                before = Self.files(sandbox.store)
                if plainName, let name, !Self.isValidName(name) {
                    problems.append("#\(n) \(arguments.debugDescription) accepted an invalid name")
                }
                continue
            }
            if let problem = Self.failureProblem(run) { problems.append("#\(n) \(problem)") }
            if plainName, let name {
                let expected: Int32 = Self.isValidName(name) ? 1 : 64
                if run.status != expected {
                    problems.append(
                        "#\(n) \(arguments.debugDescription): status \(run.status), expected \(expected): \(run.stderr)"
                    )
                }
            }
            let after = Self.files(sandbox.store)
            if after != before {
                let changed = Set(after.keys).union(before.keys).filter { after[$0] != before[$0] }.sorted()
                problems.append("#\(n) \(arguments.debugDescription) failed (\(run.status)) but changed \(changed)")
                before = after
            }
        }
        let summary = statuses.keys.sorted().map { "\($0): \(statuses[$0]!)" }.joined(separator: ", ")
        print(
            "bad-input (binary arguments): \(count) generated commands tried (exit statuses \(summary)), \(problems.count) bad outcomes, \(crashes) crashes (seed \(Self.seed))"
        )
        #expect(problems.isEmpty, "\(problems.prefix(10).joined(separator: "\n"))")
        #expect(crashes == 0)
    }

    // MARK: Damaged files

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// Variants of a real file: truncations at many offsets, wrong types, huge garbage, deep
    /// nesting, invalid UTF-8.
    static func damaged(_ original: [UInt8], replacements: [(String, String)]) -> [(String, [UInt8])] {
        var cases: [(String, [UInt8])] = []
        var offsets = Set<Int>([1, original.count - 1, original.count - 2])
        for k in 0..<24 { offsets.insert(k * original.count / 24) }
        for offset in offsets.sorted() { cases.append(("truncated at \(offset)", Array(original[..<offset]))) }
        let text = String(decoding: original, as: UTF8.self)
        for (from, to) in replacements where text.contains(from) {
            cases.append(("\(from) → \(to)", bytes(text.replacingOccurrences(of: from, with: to))))
        }
        var random = SeededRandom(seed: seed)
        let size = 50 * 1024 * 1024
        var garbage = [UInt8](repeating: 0, count: size)
        garbage.withUnsafeMutableBytes { raw in
            let words = raw.bindMemory(to: UInt64.self)
            for i in 0..<words.count { words[i] = random.next() }
        }
        cases.append(("50 MB of garbage", garbage))
        cases.append(("50 MB of spaces, then {", [UInt8](repeating: 0x20, count: size) + [0x7B]))
        let open = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        let close = [UInt8](repeating: UInt8(ascii: "]"), count: 100_000)
        cases.append(("100k [", open))
        cases.append(("100k [ inside an object", bytes("{\"version\": 1, \"extra\": ") + open + close + bytes("}")))
        cases.append(("100k {", [UInt8](repeating: UInt8(ascii: "{"), count: 100_000)))
        var invalid = original
        if let at = invalid.firstIndex(of: UInt8(ascii: "R")) {
            invalid.replaceSubrange(at...at, with: [0xC3, 0x28, 0xFF])
        }
        cases.append(("invalid UTF-8", invalid))
        cases.append(("a UTF-16 byte-order mark", [0xFF, 0xFE] + original))
        cases.append(("NUL bytes", [UInt8](repeating: 0, count: 4096)))
        cases.append(("empty", []))
        cases.append(("JSON null", bytes("null")))
        cases.append(("an array", bytes("[]")))
        return cases
    }

    @Test func corruptStoreFilesAreRefusedAndKept() throws {
        let sandbox = try Self.sandbox()
        try sandbox.addFolder("Résumé \"quoted\"", in: "/Home")
        expectSuccess(try sandbox.run("rm", "-r", "/Home"))
        let original = try #require(sandbox.storeBytes)
        let replacements: [(String, String)] = [
            ("\"version\": 3", "\"version\": \"3\""), ("\"version\": 3", "\"version\": 99"),
            ("\"items\": [", "\"items\": {\"x\": ["),
            ("\"name\": \"Work\"", "\"name\": 5"), ("\"type\": \"folder\"", "\"type\": \"file\""),
            ("\"parent\": null", "\"parent\": 3"),
            ("\"children\": [", "\"children\": \"x\", \"y\": ["), ("\"frames\": 48000", "\"frames\": -1"),
            ("\"frames\": 48000", "\"frames\": 1e999"), ("\"duration\": 1", "\"duration\": \"long\""),
            ("00000000-0000-0000-0000-000000000000\", \"type\"", "0000\", \"type\""),
            ("\"trash\": [", "\"trash\": [null, "),
            ("\"name\": \"Work\"", "\"name\": \"\\ud800\""), ("\"name\": \"Work\"", "\"name\": \"a/b\""),
            ("\"name\": \"Work\"", "\"name\": \"\""),
            ("\"created\": \"", "\"created\": \"yesterday"),
        ]
        let cases = Self.damaged(original, replacements: replacements)
        var problems: [String] = []
        var crashes = 0
        var accepted = 0
        let commands: [[String]] = [["ls", "/"], ["mkdir", "/New"], ["fsck"], ["undo"]]
        for (label, bytes) in cases {
            try sandbox.write(sandbox.storeFile, bytes)
            var before = Self.files(sandbox.store)
            let parses = (try? JSONSerialization.jsonObject(with: Data(bytes))) != nil
            for arguments in commands {
                let run = try sandbox.runBounded(arguments, timeout: 60)
                if run.status < 0 || run.status > 128 { crashes += 1 }
                if run.status == 0 {
                    accepted += 1
                    // Only a store that is still valid JSON may be read (and then changed).
                    if !parses { problems.append("\(label): \(arguments) accepted a store that is not JSON") }
                    try sandbox.write(sandbox.storeFile, bytes)
                    before = Self.files(sandbox.store)
                    continue
                }
                // fsck reports a store.json it can rebuild as a problem (on stdout, as its
                // others), and says what --repair would do.
                let reported =
                    arguments == ["fsck"] && run.status == 1 && run.stderr.isEmpty
                    && run.lines.count == 1 && run.stdout.hasPrefix("store.json: ")
                    && run.stdout.contains("--repair moves it aside")
                if !reported, let problem = Self.failureProblem(run, statuses: [1]) {
                    problems.append("\(label): \(arguments): \(problem)")
                }
                let after = Self.files(sandbox.store)
                if after != before {
                    problems.append("\(label): \(arguments) changed \(Self.changed(before, after)): \(run)")
                }
            }
        }
        try sandbox.write(sandbox.storeFile, original)
        expectSuccess(try sandbox.run("ls"))
        print(
            "bad-input (corrupt store.json): \(cases.count) damaged files × \(commands.count) commands tried, \(accepted) accepted (still valid), \(problems.count) bad outcomes, \(crashes) crashes"
        )
        #expect(problems.isEmpty, "\(problems.prefix(10).joined(separator: "\n"))")
        #expect(crashes == 0)
    }

    @Test func corruptViewStateIsRebuiltWithAWarning() throws {
        let sandbox = try Self.sandbox()
        expectSuccess(try sandbox.run("cd", "/Work/Ideas"))
        expectSuccess(try sandbox.run("play", "standup", "--until", "0.1"))
        let original = try #require(sandbox.viewStateBytes)
        let store = try #require(sandbox.storeBytes)
        let replacements: [(String, String)] = [
            ("\"version\": 1", "\"version\": \"1\""), ("\"version\": 1", "\"version\": 99"),
            ("\"folderStack\": [", "\"folderStack\": {\"a\": ["),
            ("\"position\": ", "\"position\": \"x\", \"p\": "), ("\"selection\": {", "\"selection\": [{"),
        ]
        let cases = Self.damaged(original, replacements: replacements)
        var problems: [String] = []
        var crashes = 0
        var warned = 0
        for (label, bytes) in cases {
            try sandbox.write(sandbox.viewStateFile, bytes)
            let run = try sandbox.runBounded(["ls"], timeout: 60)
            if run.status < 0 || run.status > 128 { crashes += 1 }
            if run.status != 0 { problems.append("\(label): ls failed: \(run)") }
            if run.stderr.hasPrefix("recnotes: warning: ") { warned += 1 }
            if run.stderrLines.count > 1 { problems.append("\(label): more than one warning line: \(run.stderr)") }
            if sandbox.storeBytes != store { problems.append("\(label): store.json changed") }
            let rebuilt = sandbox.viewStateBytes.flatMap { try? JSONSerialization.jsonObject(with: Data($0)) }
            if rebuilt == nil { problems.append("\(label): viewstate.json was not rebuilt") }
            let again = try sandbox.runBounded(["ls"], timeout: 60)
            if again.status != 0 || !again.stderr.isEmpty {
                problems.append("\(label): the warning came back: \(again)")
            }
        }
        print(
            "bad-input (corrupt viewstate.json): \(cases.count) damaged files tried, \(warned) rebuilt with a warning, \(problems.count) bad outcomes, \(crashes) crashes"
        )
        #expect(problems.isEmpty, "\(problems.prefix(10).joined(separator: "\n"))")
        #expect(crashes == 0)
    }

    @Test func damagedAudioFailsCleanly() throws {
        let sandbox = try Self.sandbox()
        let source = sandbox.root + "/take.wav"
        try sandbox.write(source, wavBytes(frames: 48_000))
        let hasImport = try sandbox.runBounded(["import", "--help"]).status == 0
        let hasExport = try sandbox.runBounded(["export", "--help"]).status == 0
        var formats = ["wav"]
        if hasImport {
            formats = ["wav", "flac", "opus"]
            for format in formats {
                expectSuccess(try sandbox.run("import", source, "--to", "/Home", "--name", format, "--format", format))
            }
        } else {
            try sandbox.addWAVRecording("wav", in: "/Home", frames: 48_000)
        }
        var files: [String: String] = [:]
        for item in try sandbox.storeItems() {
            if let file = item["file"] as? String, let name = item["name"] as? String { files[name] = file }
        }
        var problems: [String] = []
        var tried = 0
        var crashes = 0

        /// Damage no reader can miss (`mustFail`) is refused, or, by `info`, which shows what
        /// the store knows, warned about. Damage that leaves readable audio (a cut or silenced
        /// file) may play what there is. A failure changes no file; a success leaves store.json
        /// as it was (an import is taken back).
        func check(_ arguments: [String], mustFail: Bool, label: String) throws {
            let before = Self.files(sandbox.store)
            let run = try sandbox.runBounded(arguments, timeout: 60)
            tried += 1
            if run.status < 0 || run.status > 128 { crashes += 1 }
            if run.status == 0 {
                if mustFail && arguments[0] != "info" { problems.append("\(label): \(arguments) succeeded: \(run)") }
                if mustFail && arguments[0] == "info" && !run.stderr.hasPrefix("recnotes: warning: ") {
                    problems.append("\(label): info gave no warning: \(run)")
                }
                if arguments[0] == "import", let at = arguments.firstIndex(of: "--name") {
                    _ = try sandbox.runBounded(["rm", "--permanent", "/Work/" + arguments[at + 1]])
                } else if Self.files(sandbox.store)["store.json"] != before["store.json"] {
                    problems.append("\(label): \(arguments) changed store.json")
                }
                return
            }
            if let problem = Self.failureProblem(run, statuses: [1]) {
                problems.append("\(label): \(arguments): \(problem)")
            }
            // Audio that fails part-way through playing leaves the position it reached in the
            // view state, as any stopped playback does.
            let changes = Self.changed(before, Self.files(sandbox.store)).filter { mustFail || $0 != "viewstate.json" }
            if !changes.isEmpty { problems.append("\(label): \(arguments) failed but changed \(changes): \(run)") }
        }

        for format in formats {
            let path = sandbox.audioDirectory + "/" + (try #require(files[format]))
            let good = try #require(sandbox.bytes(path))
            var garbage: [UInt8] = []
            for i in 0..<20_000 { garbage.append(UInt8(truncatingIfNeeded: (i &* 7919) >> 3)) }
            let variants: [(String, [UInt8])] = [
                ("empty", []), ("garbage", garbage), ("header only", Array(good.prefix(64))),
                ("truncated to a third", Array(good.prefix(good.count / 3))),
                ("zeroed body", Array(good.prefix(64)) + [UInt8](repeating: 0, count: max(0, good.count - 64))),
            ]
            for (label, bytes) in variants {
                try sandbox.write(path, bytes)
                let name = "\(format), \(label)"
                let mustFail = label == "empty" || label == "garbage"
                try check(["play", "/Home/\(format)"], mustFail: mustFail, label: name)
                try check(["info", "/Home/\(format)"], mustFail: mustFail, label: name)
                if hasExport {
                    let target = sandbox.root + "/out-\(tried).wav"
                    try check(["export", "/Home/\(format)", target], mustFail: mustFail, label: name)
                    if mustFail && FileManager.default.fileExists(atPath: target) {
                        problems.append("\(name): export left \(target) behind")
                    }
                }
                if hasImport {
                    let copy = sandbox.root + "/bad-\(format).\(format)"
                    try sandbox.write(copy, bytes)
                    try check(["import", copy, "--to", "/Work", "--name", "imported"], mustFail: mustFail, label: name)
                    try check(
                        ["import", copy, "--to", "/Work", "--name", "kept", "--keep"], mustFail: mustFail, label: name)
                }
            }
            try sandbox.write(path, good)
        }
        print(
            "bad-input (damaged audio): \(tried) play/info/export/import runs on empty, garbage, header-only, truncated and zeroed audio (\(formats.joined(separator: ", "))), \(problems.count) bad outcomes, \(crashes) crashes"
        )
        #expect(problems.isEmpty, "\(problems.prefix(12).joined(separator: "\n"))")
        #expect(crashes == 0)
    }
}
