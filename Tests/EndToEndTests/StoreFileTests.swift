import Foundation
import RecCore
import RecStore
import Testing

/// A corruption of a valid store.json, and what the message must say about it.
struct Corruption: Sendable, CustomTestStringConvertible {
    var name: String
    var corrupt: @Sendable ([UInt8]) -> [UInt8]
    var reason: @Sendable ([UInt8]) -> String

    var testDescription: String { name }
}

let corruptions: [Corruption] = [
    Corruption(
        name: "truncated", corrupt: { Array($0.prefix($0.count / 2)) }, reason: { _ in "corrupt JSON at line " }),
    Corruption(
        name: "garbage", corrupt: { _ in Array("this is not JSON\n".utf8) },
        reason: { _ in "corrupt JSON at line 1, column 1: expected '{', found 't'" }),
    Corruption(
        name: "empty", corrupt: { _ in [] },
        reason: { _ in "corrupt JSON at line 1, column 1: expected '{', found end of file" }),
    Corruption(
        name: "invalid UTF-8",
        corrupt: { bytes in
            // The first name in the file gets a byte that cannot start a UTF-8 sequence.
            let text = String(decoding: bytes, as: UTF8.self)
            let range = text.range(of: "\"name\": \"A")!
            let offset = text.utf8.distance(from: text.startIndex, to: range.upperBound) - 1
            var copy = bytes
            copy[offset] = 0xFF
            return copy
        }, reason: { _ in "invalid UTF-8 in a string" }),
    Corruption(
        name: "newer version",
        corrupt: { bytes in
            Array(
                String(decoding: bytes, as: UTF8.self).replacingOccurrences(
                    of: "\"version\": \(Document.currentVersion)", with: "\"version\": \(Document.currentVersion + 1)"
                ).utf8)
        },
        reason: { _ in
            "version \(Document.currentVersion + 1) is newer than this recnotes understands (\(Document.currentVersion)); upgrade recnotes"
        }),
    Corruption(
        name: "wrong type",
        corrupt: { bytes in
            Array(
                String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\"name\": \"A\"", with: "\"name\": 42")
                    .utf8)
        }, reason: { _ in "expected a string, found '4'" }),
    Corruption(
        name: "broken link",
        corrupt: { bytes in
            // The root no longer lists its children.
            let text = String(decoding: bytes, as: UTF8.self)
            let first = text.range(of: "\"children\": [")!
            let close = text[first.upperBound...].firstIndex(of: "]")!
            return Array((text[..<first.upperBound] + text[close...]).utf8)
        }, reason: { _ in "broken links: " }),
]

@Suite("store.json and viewstate.json")
struct StoreFileTests {
    @Test(
        "a corrupt store.json fails every command with exit 1, names the file, and is never replaced",
        arguments: corruptions)
    func corruptStore(corruption: Corruption) throws {
        let sandbox = try Sandbox()
        expectSuccess(try sandbox.run("mkdir", "-p", "A/B"))
        expectSuccess(try sandbox.run("cd", "A"))
        let bytes = corruption.corrupt(try #require(sandbox.storeBytes))
        try sandbox.write(sandbox.storeFile, bytes)
        let viewState = sandbox.viewStateBytes
        let listing = try sandbox.storeListing()
        for command in [
            ["ls"], ["mkdir", "X"], ["rm", "-r", "/A"], ["mv", "/A", "/Z"], ["cd", "/"], ["pwd"], ["tree"],
            ["find"], ["info", "/"], ["state"], ["mkdir", "-p", "Q/R"],
        ] {
            let result = try sandbox.run(command)
            expectFailure(
                result, status: 1, containing: ["recnotes: \(sandbox.storeFile): ", corruption.reason(bytes)])
            // Every command names the way out when there is one: fsck --repair rebuilds JSON
            // that does not decode; a newer store is not broken, and links fsck repairs anyway.
            let rebuildable = !["newer version", "broken link"].contains(corruption.name)
            #expect(
                result.stderr.contains("'recnotes fsck --repair' moves it aside and rebuilds it") == rebuildable,
                "\(command): \(result.stderr)")
            #expect(sandbox.storeBytes == bytes, "store.json was changed by \(command)")
            #expect(sandbox.viewStateBytes == viewState, "viewstate.json was changed by \(command)")
            #expect(try sandbox.storeListing() == listing, "files in the store changed after \(command)")
        }
    }

    /// The issue's case: a store.json cut short. fsck says so and what --repair would do;
    /// --repair keeps the broken file aside, untouched, and rebuilds the store from the
    /// lines that are still whole (names, folders, tags, notes as last written), the journal
    /// (what came after the cut) and the audio, and says what it could not recover.
    @Test("a truncated store.json is rebuilt by fsck --repair from its intact lines, the journal and the audio")
    func truncatedStoreIsRebuilt() throws {
        let sandbox = try Sandbox()
        let take = sandbox.root + "/take.wav"
        try sandbox.write(take, wavBytes(frames: 4_800))
        try sandbox.succeed("mkdir", "-p", "/Work/Standups", "/Ideas", "/Empty")
        for name in ["monday", "tuesday", "wednesday"] {
            try sandbox.succeed("import", take, "--to", "/Work/Standups", "--name", name)
        }
        try sandbox.succeed("import", take, "--to", "/Ideas", "--name", "café")
        try sandbox.succeed("tag", "/Work/Standups/monday", "+budget")
        try sandbox.succeed("note", "/Ideas/café", "--set", "call the bank")
        let before = try sandbox.succeed("find", "/", "--json").json() as? [[String: Any]] ?? []
        func summary(_ items: [[String: Any]]) -> [String] {
            items.map { "\($0["path"] ?? "") \($0["tags"] ?? "") \($0["note"] ?? "")" }.sorted()
        }
        // The items are written in tree order, one a line, after three lines of header: the
        // root, Empty, Ideas, café, Work, Standups, monday, tuesday, wednesday. Cut in the
        // middle of tuesday's line: the last two are not in the file any more.
        let bytes = try #require(sandbox.storeBytes)
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        #expect(String(decoding: lines[10], as: UTF8.self).contains("\"name\": \"tuesday\""))
        let cut = lines.prefix(10).reduce(0) { $0 + $1.count + 1 } + lines[10].count / 2
        let broken = Array(bytes.prefix(cut))
        try sandbox.write(sandbox.storeFile, broken)
        // And the journal has lost its first two changes (mkdir, the first import): alone,
        // neither it nor the broken file knows where everything was.
        let journal = sandbox.store + "/journal.jsonl"
        let entries = try String(contentsOfFile: journal, encoding: .utf8).split(separator: "\n")
        try sandbox.write(journal, Array((entries.dropFirst(2).joined(separator: "\n") + "\n").utf8))

        let fsck = try sandbox.run("fsck")
        #expect(fsck.status == 1, "\(fsck)")
        #expect(fsck.stdout.hasPrefix("store.json: corrupt JSON at line 11"), "\(fsck)")
        #expect(fsck.stdout.contains("--repair moves it aside as store.json.broken-"), "\(fsck)")
        #expect(sandbox.storeBytes == broken)

        let repair = try sandbox.run("fsck", "--repair")
        #expect(repair.status == 0, "\(repair)")
        let aside = try FileManager.default.contentsOfDirectory(atPath: sandbox.store).filter {
            $0.hasPrefix("store.json.broken-")
        }
        #expect(
            aside.count == 1 && repair.stdout.contains("moved the broken store.json aside as \(aside.first ?? "?")"))
        #expect(
            aside.first.map { sandbox.bytes(sandbox.store + "/" + $0) == broken } == true, "the broken file changed")
        #expect(repair.stdout.contains("rebuilt store.json from the broken file's intact lines"), "\(repair)")
        let after = try sandbox.succeed("find", "/", "--json").json() as? [[String: Any]] ?? []
        #expect(summary(after) == summary(before), "\(repair.stdout)")
        try sandbox.succeed("export", "/Work/Standups/wednesday", sandbox.root + "/out.wav")
        expectSuccess(try sandbox.run("fsck"))
    }

    @Test("a JSON error names the line and column")
    func corruptStorePosition() throws {
        let sandbox = try Sandbox()
        expectSuccess(try sandbox.run("mkdir", "A", "B"))
        var lines = String(decoding: try #require(sandbox.storeBytes), as: UTF8.self).components(separatedBy: "\n")
        // Line 5 is the second item; break its "type" value.
        lines[4] = lines[4].replacingOccurrences(of: "\"type\": \"folder\"", with: "\"type\": folder")
        let column = try #require(lines[4].range(of: "folder,")).lowerBound.utf16Offset(in: lines[4]) + 1
        try sandbox.write(sandbox.storeFile, Array(lines.joined(separator: "\n").utf8))
        expectFailure(
            try sandbox.run("ls"), status: 1,
            message:
                "recnotes: \(sandbox.storeFile): corrupt JSON at line 5, column \(column): expected a string, found 'f'; 'recnotes fsck --repair' moves it aside and rebuilds it from its intact lines, journal.jsonl and audio/"
        )
    }

    @Test("a store edited by hand (reformatted by jq) still loads and is written back whole")
    func reformatted() throws {
        let sandbox = try Sandbox()
        expectSuccess(try sandbox.run("mkdir", "-p", "A/B", "C"))
        let items = try sandbox.storeItems()
        // Pretty-printed with sorted keys, as `jq -S .` would write it.
        let pretty = try JSONSerialization.data(
            withJSONObject: ["items": Array(items.reversed()), "version": 1] as [String: Any],
            options: [.prettyPrinted, .sortedKeys])
        try sandbox.write(sandbox.storeFile, [UInt8](pretty))
        let tree = try sandbox.run("tree")
        expectSuccess(tree)
        #expect(tree.lines == ["Recordings/", "├── A/", "│   └── B/", "└── C/"])
        expectSuccess(try sandbox.run("mkdir", "D"))
        #expect(try sandbox.storeItems().count == 5)
    }

    @Test("a deleted viewstate.json is rebuilt silently at the root")
    func deletedViewState() throws {
        let sandbox = try Sandbox()
        expectSuccess(try sandbox.run("mkdir", "-p", "A/B"))
        expectSuccess(try sandbox.run("cd", "A/B"))
        let store = sandbox.storeBytes
        try FileManager.default.removeItem(atPath: sandbox.viewStateFile)
        let pwd = try sandbox.run("pwd")
        expectSuccess(pwd)
        #expect(pwd.lines == ["/"])
        #expect(sandbox.storeBytes == store)
        expectSuccess(try sandbox.run("cd", "A"))
        #expect(try sandbox.run("pwd").lines == ["/A"])
        #expect(sandbox.storeBytes == store)
    }

    @Test(
        "a corrupt viewstate.json gives one warning line, the command still works, store.json is untouched",
        arguments: [
            "garbage", "{\"version\": 1, \"folderStack\": [", "{\"version\": 1, \"folderStack\": [\"xyz\"]}",
            "{\"version\": 42, \"folderStack\": []}", "\u{FF}\u{FE}",
        ])
    func corruptViewState(text: String) throws {
        let sandbox = try Sandbox()
        expectSuccess(try sandbox.run("mkdir", "-p", "A/B"))
        expectSuccess(try sandbox.run("cd", "A"))
        let store = sandbox.storeBytes
        try sandbox.write(sandbox.viewStateFile, Array(text.utf8))

        let ls = try sandbox.run("ls")
        #expect(ls.status == 0, "\(ls)")
        #expect(ls.lines == ["A"], "rebuilt at the root")
        #expect(ls.stderrLines.count == 1, "\(ls)")
        #expect(ls.stderr.hasPrefix("recnotes: warning: \(sandbox.viewStateFile): corrupt at line "), "\(ls)")
        #expect(sandbox.storeBytes == store)
        // Warned once: the next command is quiet.
        let pwd = try sandbox.run("pwd")
        expectSuccess(pwd)
        #expect(pwd.lines == ["/"])
        // And a mutating command works after the warning.
        try sandbox.write(sandbox.viewStateFile, Array(text.utf8))
        let mkdir = try sandbox.run("mkdir", "A/C")
        #expect(mkdir.status == 0)
        #expect(mkdir.stderrLines.count == 1)
        #expect(try sandbox.item(at: "/A/C") != nil)
    }

    @Test("when the current folder is removed by another command, pwd shows the deepest folder left")
    func currentFolderRemoved() throws {
        let sandbox = try Sandbox()
        expectSuccess(try sandbox.run("mkdir", "-p", "/A/B/C/D"))
        expectSuccess(try sandbox.run("cd", "/A/B/C/D"))
        expectSuccess(try sandbox.run("rm", "-r", "/A/B/C"))
        let pwd = try sandbox.run("pwd")
        expectSuccess(pwd)
        #expect(pwd.lines == ["/A/B"])
        // Relative paths start there too.
        expectSuccess(try sandbox.run("mkdir", "here"))
        #expect(try sandbox.item(at: "/A/B/here") != nil)
        #expect(try (sandbox.run("state").json() as? [String: Any])?["currentFolder"] as? String == "/A/B")
        // cd .. goes up from what the user sees.
        expectSuccess(try sandbox.run("cd", ".."))
        #expect(try sandbox.run("pwd").lines == ["/A"])
        expectSuccess(try sandbox.run("rm", "-r", "/A"))
        #expect(try sandbox.run("pwd").lines == ["/"])
    }

    @Test("when the current folder is moved by another command, it is followed")
    func currentFolderMoved() throws {
        let sandbox = try Sandbox()
        expectSuccess(try sandbox.run("mkdir", "-p", "/A/B", "/Z"))
        expectSuccess(try sandbox.run("cd", "/A/B"))
        expectSuccess(try sandbox.run("mv", "/A/B", "/Z/Moved"))
        #expect(try sandbox.run("pwd").lines == ["/Z/Moved"])
        expectSuccess(try sandbox.run("cd", ".."))
        #expect(try sandbox.run("pwd").lines == ["/Z"])
    }

    @Test("two processes each running 100 mkdir at once end with all 200 folders")
    func concurrentMkdir() throws {
        let sandbox = try Sandbox()
        expectSuccess(try sandbox.run("mkdir", "seed"))
        expectSuccess(try sandbox.run("rm", "seed"))
        let script = #"i=0; while [ $i -lt 100 ]; do "$0" --store "$1" mkdir "$2-$i" || exit 1; i=$((i+1)); done"#
        var processes: [Process] = []
        for worker in ["left", "right"] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", script, Sandbox.binary, sandbox.store, worker]
            process.environment = sandbox.baseEnvironment
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            processes.append(process)
        }
        for process in processes { try process.run() }
        for process in processes { process.waitUntilExit() }
        #expect(processes.map(\.terminationStatus) == [0, 0])

        let items = try sandbox.storeItems()
        #expect(items.count == 201)
        let names = Set(items.compactMap { $0["name"] as? String })
        let missing = ["left", "right"].flatMap { worker in (0..<100).map { "\(worker)-\($0)" } }.filter {
            !names.contains($0)
        }
        #expect(missing.isEmpty, "lost: \(missing)")
        let find = try sandbox.run("find", "--type", "folder")
        expectSuccess(find)
        #expect(find.lines.count == 200)
        // No temporary files left behind.
        #expect(try sandbox.storeListing().keys.filter { $0.contains("tmp") }.isEmpty)
    }
}
