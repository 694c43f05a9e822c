import Foundation
import RecAudio
import RecCore
import RecStore
import RecValues
import Testing

@Suite("Commands")
struct CommandTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    func run(_ arguments: String...) throws -> Run {
        let result = try sandbox.run(arguments)
        expectSuccess(result)
        return result
    }

    /// /Music/ (3 items), /Notes/, /Work/Ideas/ and recordings with known durations, dates and sizes.
    func populate() throws {
        try sandbox.addFolder("Work", in: "/", created: "2023-11-14T10:00:00.000Z")
        try sandbox.addFolder("Notes", in: "/", created: "2023-11-14T12:00:00.000Z")
        try sandbox.addFolder("Ideas", in: "/Work", created: "2023-11-14T11:00:00.000Z")
        try sandbox.addRecording(
            "standup", in: "/", duration: 75.5, created: "2023-11-14T09:00:00.000Z", audioBytes: 1234)
        try sandbox.addRecording("memo", in: "/", duration: 3.2, format: .flac, created: "2023-11-14T13:00:00.000Z")
        try sandbox.addRecording(
            "long talk", in: "/", duration: 3723, format: .wav, created: "2023-11-14T08:00:00.000Z", audioBytes: 10)
        try sandbox.addRecording(
            "idea 1", in: "/Work/Ideas", duration: 1, created: "2023-11-14T14:00:00.000Z", audioBytes: 5)
    }

    @Test("mkdir creates a folder in a store created on first use, readable by any JSON parser")
    func mkdir() throws {
        #expect(!FileManager.default.fileExists(atPath: sandbox.storeFile))
        let result = try run("mkdir", "Ideas")
        #expect(result.stdout.isEmpty)
        let json = try sandbox.storeJSON()
        #expect(json["version"] as? Int == Document.currentVersion)
        let items = try sandbox.storeItems()
        #expect(items.count == 2)
        let root = try #require(items.first { $0["parent"] is NSNull })
        #expect(root["uuid"] as? String == "00000000-0000-0000-0000-000000000000")
        #expect(root["name"] as? String == "Recordings")
        let ideas = try #require(try sandbox.item(at: "/Ideas"))
        #expect(ideas["type"] as? String == "folder")
        #expect(ideas["parent"] as? String == root["uuid"] as? String)
        #expect(root["children"] as? [String] == [ideas["uuid"] as! String])
        #expect(Timestamp(iso8601: ideas["created"] as! String) != nil)
        #expect(try run("ls").lines == ["Ideas"])
    }

    @Test("mkdir takes several paths, and -p creates parents and accepts existing folders")
    func mkdirSeveralAndParents() throws {
        _ = try run("mkdir", "a", "b", "/c")
        #expect(try run("ls").lines == ["a", "b", "c"])
        _ = try run("mkdir", "-p", "a/x/y", "/d/e")
        #expect(try sandbox.item(at: "/a/x/y")?["type"] as? String == "folder")
        #expect(try sandbox.item(at: "/d/e") != nil)
        let before = sandbox.storeBytes
        _ = try run("mkdir", "-p", "a/x", "/d", ".")
        #expect(sandbox.storeBytes == before)
        #expect(try sandbox.storeItems().count == 8)
    }

    @Test("mkdir --json prints the folders it created")
    func mkdirJSON() throws {
        let result = try run("mkdir", "-p", "--json", "a/b")
        let array = try #require(try result.json() as? [[String: Any]])
        #expect(array.compactMap { $0["path"] as? String } == ["/a", "/a/b"])
        #expect(
            array.compactMap { $0["uuid"] as? String } == [try sandbox.uuid(at: "/a"), try sandbox.uuid(at: "/a/b")])
    }

    @Test("ls sorts by name with no marks or colour when stdout is not a terminal")
    func lsDefault() throws {
        _ = try run("mkdir", "b", "a", "C", "été", "a2")
        let result = try run("ls")
        #expect(result.lines == ["a", "a2", "b", "C", "été"])
        #expect(!result.stdout.contains("\u{1B}"))
        #expect(!result.stdout.contains("/"))
    }

    @Test("ls takes a path: absolute, relative, @prefix, or a recording")
    func lsPath() throws {
        try populate()
        #expect(try run("ls", "/Work").lines == ["Ideas"])
        #expect(try run("ls", "Work/Ideas").lines == ["idea 1"])
        #expect(try run("ls", "Work/Ideas/").lines == ["idea 1"])
        let ideas = try sandbox.uuid(at: "/Work/Ideas")
        #expect(try run("ls", "@" + ideas.prefix(8)).lines == ["idea 1"])
        #expect(try run("ls", "/Work/Ideas/idea 1").lines == ["idea 1"])
        #expect(try run("ls", "/").lines == ["long talk", "memo", "Notes", "standup", "Work"])
    }

    @Test("ls takes several paths: recordings first, then a header per folder; --json an object per path")
    func lsSeveralPaths() throws {
        try populate()
        let result = try run("ls", "/Work", "/memo", "/Work/Ideas", "/standup")
        #expect(result.lines == ["memo", "standup", "", "/Work:", "Ideas", "", "/Work/Ideas:", "idea 1"])
        #expect(try run("ls", "/Work", "Notes").lines == ["/Work:", "Ideas", "", "Notes:"])
        let listings = try #require(try run("ls", "/Work", "/memo", "--json").json() as? [[String: Any]])
        #expect(listings.map { $0["path"] as? String } == ["/Work", "/memo"])
        let items = listings.map { ($0["items"] as? [[String: Any]] ?? []).map { $0["path"] as? String } }
        #expect(items == [["/Work/Ideas"], ["/memo"]])
        // One path lists as before: the items themselves.
        let one = try #require(try run("ls", "/Work", "--json").json() as? [[String: Any]])
        #expect(one.map { $0["path"] as? String } == ["/Work/Ideas"])
        // A path that is not there is the error, and nothing is listed.
        expectFailure(try sandbox.run("ls", "/Work", "/nope"), status: 1, containing: ["/nope"])
    }

    @Test("ls -l shows type, duration, format or count, size, created date and name")
    func lsLong() throws {
        try populate()
        let result = try run("ls", "-l")
        let rows = result.lines.map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
        #expect(
            rows == [
                ["recording", "1:02:03", "wav", "10", "B", "2023-11-14", "08:00", "long", "talk"],
                ["recording", "00:03", "flac", "missing", "2023-11-14", "13:00", "memo"],
                ["folder", "-", "0", "items", "-", "2023-11-14", "12:00", "Notes"],
                ["recording", "01:15", "opus", "1.2", "KB", "2023-11-14", "09:00", "standup"],
                ["folder", "-", "1", "item", "-", "2023-11-14", "10:00", "Work"],
            ])
        // Columns line up: every name starts at the same column.
        let starts = Set(result.lines.map { line in line.range(of: "2023-11-14")!.lowerBound.utf16Offset(in: line) })
        #expect(starts.count == 1)
    }

    @Test("ls --sort name|date|duration and --reverse")
    func lsSort() throws {
        try populate()
        #expect(try run("ls", "--sort", "name").lines == ["long talk", "memo", "Notes", "standup", "Work"])
        #expect(try run("ls", "--sort", "date").lines == ["long talk", "standup", "Work", "Notes", "memo"])
        #expect(try run("ls", "--sort", "duration").lines == ["Notes", "Work", "memo", "standup", "long talk"])
        #expect(
            try run("ls", "--sort", "duration", "--reverse").lines == ["long talk", "standup", "memo", "Work", "Notes"])
        #expect(try run("ls", "--reverse").lines == ["Work", "standup", "Notes", "memo", "long talk"])
        #expect(try run("ls", "--sort=date", "-l").lines.first?.hasSuffix("long talk") == true)
    }

    @Test("ls --json prints objects with stable keys")
    func lsJSON() throws {
        try populate()
        let array = try #require(try run("ls", "--json").json() as? [[String: Any]])
        #expect(array.compactMap { $0["name"] as? String } == ["long talk", "memo", "Notes", "standup", "Work"])
        let folder = array[4]
        #expect(Set(folder.keys) == ["uuid", "name", "type", "path", "parent", "created", "children", "tags", "note"])
        #expect(folder["type"] as? String == "folder")
        #expect(folder["path"] as? String == "/Work")
        #expect(folder["children"] as? Int == 1)
        #expect(folder["uuid"] as? String == (try sandbox.uuid(at: "/Work")))
        #expect(folder["parent"] as? String == "00000000-0000-0000-0000-000000000000")
        #expect(folder["created"] as? String == "2023-11-14T10:00:00.000Z")
        let standup = array[3]
        #expect(
            Set(standup.keys) == [
                "uuid", "name", "type", "path", "parent", "created", "duration", "frames",
                "sampleRate", "channels", "format", "file", "audioPath", "size", "tags", "note", "markers",
                "trim", "trimmedDuration",
            ])
        #expect(standup["trim"] is NSNull)
        #expect(standup["type"] as? String == "recording")
        #expect(standup["duration"] as? Double == 75.5)
        #expect(standup["format"] as? String == "opus")
        #expect(standup["size"] as? Int == 1234)
        #expect(array[1]["size"] is NSNull)
        #expect(array[1]["path"] as? String == "/memo")
        // An empty folder is an empty array.
        #expect((try run("ls", "--json", "Notes").json() as? [Any])?.isEmpty == true)
    }

    @Test("tree draws the hierarchy in name order")
    func tree() throws {
        try populate()
        #expect(
            try run("tree").lines == [
                "Recordings/",
                "├── long talk  1:02:03",
                "├── memo  00:03",
                "├── Notes/",
                "├── standup  01:15",
                "└── Work/",
                "    └── Ideas/",
                "        └── idea 1  00:01",
            ])
        #expect(try run("tree", "/Work").lines == ["Work/", "└── Ideas/", "    └── idea 1  00:01"])
    }

    @Test("tree --json nests each folder's contents")
    func treeJSON() throws {
        try populate()
        let root = try #require(try run("tree", "--json").json() as? [String: Any])
        #expect(root["path"] as? String == "/")
        let contents = try #require(root["contents"] as? [[String: Any]])
        #expect(contents.compactMap { $0["name"] as? String } == ["long talk", "memo", "Notes", "standup", "Work"])
        let work = contents[4]
        let ideas = try #require((work["contents"] as? [[String: Any]])?.first)
        #expect(ideas["path"] as? String == "/Work/Ideas")
        let idea = try #require((ideas["contents"] as? [[String: Any]])?.first)
        #expect(idea["name"] as? String == "idea 1")
        #expect(idea["contents"] == nil)
        #expect(idea["size"] as? Int == 5)
        #expect((contents[2]["contents"] as? [Any])?.isEmpty == true)
    }

    @Test("rm moves a recording to the trash, keeping its audio; rm --permanent deletes the audio")
    func rmRecording() throws {
        try populate()
        let standup = try sandbox.uuid(at: "/standup")
        let standupAudio = sandbox.audioDirectory + "/\(standup).opus"
        let longTalk = try sandbox.uuid(at: "/long talk")
        let longTalkAudio = sandbox.audioDirectory + "/\(longTalk).wav"
        #expect(FileManager.default.fileExists(atPath: standupAudio))
        _ = try run("rm", "standup")
        #expect(try sandbox.item(at: "/standup") == nil)
        #expect(FileManager.default.fileExists(atPath: standupAudio), "a trashed recording keeps its audio")
        _ = try run("rm", "--permanent", "long talk")
        #expect(try sandbox.item(at: "/long talk") == nil)
        #expect(!FileManager.default.fileExists(atPath: longTalkAudio))
        #expect(try run("ls").lines == ["memo", "Notes", "Work"])
    }

    @Test("rm removes empty folders and several items; rm -r removes a subtree, --permanent with its audio")
    func rmRecursive() throws {
        try populate()
        _ = try run("rm", "Notes", "memo")
        #expect(try run("ls").lines == ["long talk", "standup", "Work"])
        let idea = try sandbox.uuid(at: "/Work/Ideas/idea 1")
        let audio = sandbox.audioDirectory + "/\(idea).opus"
        #expect(FileManager.default.fileExists(atPath: audio))
        _ = try run("rm", "-r", "--permanent", "/Work")
        #expect(try run("ls").lines == ["long talk", "standup"])
        #expect(try sandbox.storeItems().count == 3)
        #expect(!FileManager.default.fileExists(atPath: audio))
        #expect(try run("find").lines == ["/long talk", "/standup"])
    }

    @Test("rm --json prints the removed items with the paths they had")
    func rmJSON() throws {
        try populate()
        let array = try #require(try run("rm", "-r", "--json", "Work").json() as? [[String: Any]])
        #expect(Set(array.compactMap { $0["path"] as? String }) == ["/Work", "/Work/Ideas", "/Work/Ideas/idea 1"])
    }

    @Test("mv renames in place")
    func mvRename() throws {
        try populate()
        let id = try sandbox.uuid(at: "/memo")
        _ = try run("mv", "memo", "zebra memo")
        #expect(try sandbox.uuid(at: "/zebra memo") == id)
        #expect(try run("ls").lines == ["long talk", "Notes", "standup", "Work", "zebra memo"])
        // Renaming keeps the audio file name (it is the UUID).
        #expect(try sandbox.item(at: "/zebra memo")?["file"] as? String == "\(id).flac")
        _ = try run("mv", "/Work/Ideas", "/Work/Plans")
        #expect(try run("ls", "Work").lines == ["Plans"])
    }

    @Test("mv moves into an existing folder, one or several sources, and renames across folders")
    func mvMove() throws {
        try populate()
        let standup = try sandbox.uuid(at: "/standup")
        _ = try run("mv", "standup", "Work")
        #expect(try sandbox.uuid(at: "/Work/standup") == standup)
        _ = try run("mv", "memo", "long talk", "Notes", "/Work/Ideas")
        #expect(try run("ls", "/Work/Ideas").lines == ["idea 1", "long talk", "memo", "Notes"])
        #expect(try run("ls").lines == ["Work"])
        _ = try run("mv", "/Work/Ideas/memo", "/renamed memo")
        #expect(try run("ls").lines == ["renamed memo", "Work"])
        _ = try run("mv", "@" + standup.prefix(6), "/")
        #expect(try run("ls").lines == ["renamed memo", "standup", "Work"])
        #expect(try run("ls", "/Work").lines == ["Ideas"])
    }

    @Test("cd and pwd keep the current folder in viewstate.json; cd alone goes to the root")
    func cdPwd() throws {
        _ = try run("mkdir", "-p", "/A/B/C", "/D")
        #expect(try run("pwd").lines == ["/"])
        _ = try run("cd", "A/B")
        #expect(try run("pwd").lines == ["/A/B"])
        let state = try #require(
            try JSONSerialization.jsonObject(with: Data(sandbox.viewStateBytes ?? [])) as? [String: Any])
        #expect(
            state["folderStack"] as? [String] == [
                "00000000-0000-0000-0000-000000000000",
                try sandbox.uuid(at: "/A"), try sandbox.uuid(at: "/A/B"),
            ])
        // Relative paths now start here.
        _ = try run("mkdir", "X")
        #expect(try sandbox.item(at: "/A/B/X") != nil)
        #expect(try run("ls").lines == ["C", "X"])
        _ = try run("cd", "..")
        #expect(try run("pwd").lines == ["/A"])
        _ = try run("cd", "../D")
        #expect(try run("pwd").lines == ["/D"])
        _ = try run("cd", "@" + (try sandbox.uuid(at: "/A/B/C")).prefix(8))
        #expect(try run("pwd").lines == ["/A/B/C"])
        _ = try run("cd")
        #expect(try run("pwd").lines == ["/"])
        _ = try run("cd", "..")
        #expect(try run("pwd").lines == ["/"])
        _ = try run("cd", "/A/B/")
        #expect(try run("pwd").lines == ["/A/B"])
    }

    @Test("info describes a folder and a recording, as text and as JSON")
    func info() throws {
        try populate()
        let folder = try run("info", "/Work")
        let rows = Dictionary(
            folder.lines.map { line -> (String, String) in
                let parts = line.split(separator: ":", maxSplits: 1)
                return (String(parts[0]), parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "")
            }, uniquingKeysWith: { a, _ in a })
        #expect(rows["name"] == "Work")
        #expect(rows["type"] == "folder")
        #expect(rows["path"] == "/Work")
        #expect(rows["uuid"] == (try sandbox.uuid(at: "/Work")))
        #expect(rows["created"] == "2023-11-14 10:00 (2023-11-14T10:00:00.000Z)")
        #expect(rows["contains"] == "1 item (1 folders and 1 recordings in all)")
        #expect(rows["total"] == "00:01")

        let id = try sandbox.addWAVRecording("clip", in: "/Notes", frames: 4800)
        let recording = try run("info", "Notes/clip")
        #expect(recording.lines.contains { $0.hasPrefix("type:") && $0.hasSuffix("recording") })
        #expect(recording.lines.contains { $0.hasPrefix("path:") && $0.hasSuffix("/Notes/clip") })
        #expect(recording.lines.contains { $0.hasPrefix("duration:") && $0.hasSuffix("00:00.10 (0.1 s, 4800 frames)") })
        #expect(recording.lines.contains { $0.hasPrefix("format:") && $0.hasSuffix("wav, 48000 Hz, 1 channel") })
        #expect(
            recording.lines.contains { $0.hasPrefix("file:") && $0.hasSuffix(sandbox.audioDirectory + "/\(id).wav") })
        #expect(recording.lines.contains { $0.hasPrefix("size:") && $0.hasSuffix("9.6 KB (9644 bytes)") })

        let json = try #require(try run("info", "--json", "Notes/clip").json() as? [String: Any])
        #expect(json["uuid"] as? String == id.description)
        #expect(json["path"] as? String == "/Notes/clip")
        #expect(json["frames"] as? Int == 4800)
        #expect(json["size"] as? Int == 9644)
        #expect(json["format"] as? String == "wav")
        // The fixture's audio bytes are not audio: the store's facts are still printed, with
        // one warning line for the unreadable file, and no levels.
        let standupRun = try sandbox.run(["info", "--json", "standup"])
        #expect(standupRun.status == 0)
        #expect(standupRun.stderrLines.count == 1 && standupRun.stderr.hasPrefix("recnotes: warning: "))
        let standup = try #require(try standupRun.json() as? [String: Any])
        #expect(standup["peakDBFS"] == nil)
        #expect(standup["frames"] as? Int == 3_624_000)
        #expect(standup["size"] as? Int == 1234)
        let folderJSON = try #require(try run("info", "--json", "/").json() as? [String: Any])
        #expect(folderJSON["name"] as? String == "Recordings")
        #expect(folderJSON["parent"] is NSNull)
        #expect(folderJSON["children"] as? Int == 5)
    }

    @Test("find searches recursively, parents first in name order, with --name, --type and --json")
    func find() throws {
        try populate()
        _ = try run("mkdir", "/Notes/idea box")
        #expect(
            try run("find").lines == [
                "/long talk", "/memo", "/Notes", "/Notes/idea box", "/standup", "/Work", "/Work/Ideas",
                "/Work/Ideas/idea 1",
            ])
        #expect(try run("find", "--name", "idea*").lines == ["/Notes/idea box", "/Work/Ideas/idea 1"])
        #expect(try run("find", "--name", "[IN]*").lines == ["/Notes", "/Work/Ideas"])
        #expect(try run("find", "--name", "?emo").lines == ["/memo"])
        #expect(
            try run("find", "--type", "recording").lines == ["/long talk", "/memo", "/standup", "/Work/Ideas/idea 1"])
        #expect(try run("find", "--type", "folder", "--name", "*s").lines == ["/Notes", "/Work/Ideas"])
        #expect(try run("find", "/Work").lines == ["/Work/Ideas", "/Work/Ideas/idea 1"])
        #expect(try run("find", "--name", "nothing*").lines == [])
        let array = try #require(try run("find", "--json", "--type", "recording", "/Work").json() as? [[String: Any]])
        #expect(array.count == 1)
        #expect(array.first?["path"] as? String == "/Work/Ideas/idea 1")
        #expect(array.first?["uuid"] as? String == (try sandbox.uuid(at: "/Work/Ideas/idea 1")))
        // Relative to the current folder by default.
        _ = try run("cd", "Work")
        #expect(try run("find").lines == ["/Work/Ideas", "/Work/Ideas/idea 1"])
    }

    @Test("state prints the view state as JSON")
    func state() throws {
        _ = try run("mkdir", "-p", "A/B")
        let initial = try #require(try run("state").json() as? [String: Any])
        #expect(initial["folderStack"] as? [String] == ["00000000-0000-0000-0000-000000000000"])
        #expect(initial["currentFolder"] as? String == "/")
        #expect(initial["selection"] is NSNull)
        #expect(initial["recording"] is NSNull)
        _ = try run("cd", "A/B")
        let state = try #require(try run("state").json() as? [String: Any])
        #expect(state["currentFolder"] as? String == "/A/B")
        #expect(
            state["folderStack"] as? [String] == [
                "00000000-0000-0000-0000-000000000000",
                try sandbox.uuid(at: "/A"), try sandbox.uuid(at: "/A/B"),
            ])
    }

    @Test("--version prints the linked alsa-lib and libsndfile versions")
    func version() throws {
        let result = try sandbox.run(["--version"], store: false)
        expectSuccess(result)
        #expect(result.lines.count == 1)
        let line = try #require(result.lines.first)
        #expect(
            line.range(
                of:
                    #"^recnotes \d+\.\d+\.\d+([-+][0-9A-Za-z.]+)? \(alsa-lib \d+\.\d+\.\d+[^,]*, libsndfile \d+\.\d+\.\d+[^)]*\)$"#,
                options: .regularExpression) != nil, "\(line)")
        #expect(line.hasSuffix("(\(LibraryVersions.summary))"))
        // The versions pkg-config reports for the development packages, where it is installed.
        for (package, label) in [("alsa", "alsa-lib"), ("sndfile", "libsndfile")] {
            let pkg = try? Sandbox.execute(
                "/usr/bin/pkg-config", ["--modversion", package], environment: ["PATH": "/usr/bin:/bin"])
            if let pkg, pkg.status == 0, let version = pkg.lines.first {
                #expect(line.contains("\(label) \(version)"), "\(line) vs pkg-config \(version)")
            }
        }
    }

    @Test("the store is --store, else $RECNOTES_HOME, else $XDG_DATA_HOME/recnotes, else ~/.local/share/recnotes")
    func storeLocation() throws {
        let explicit = sandbox.root + "/explicit"
        let recHome = sandbox.root + "/rechome"
        let xdg = sandbox.root + "/xdg"
        let all: [String: String?] = ["RECNOTES_HOME": recHome, "XDG_DATA_HOME": xdg]
        expectSuccess(try sandbox.run(["mkdir", "--store", explicit, "one"], store: false, environment: all))
        expectSuccess(try sandbox.run(["--store", explicit, "mkdir", "two"], store: false, environment: all))
        expectSuccess(try sandbox.run(["mkdir", "three"], store: false, environment: all))
        expectSuccess(try sandbox.run(["mkdir", "four"], store: false, environment: ["XDG_DATA_HOME": xdg]))
        expectSuccess(
            try sandbox.run(
                ["mkdir", "five"], store: false, environment: ["RECNOTES_HOME": "", "XDG_DATA_HOME": "relative/dir"]))
        func names(_ dir: String) throws -> [String] {
            let result = try sandbox.run(["ls", "--store", dir], store: false)
            expectSuccess(result)
            return result.lines
        }
        #expect(try names(explicit) == ["one", "two"])
        #expect(try names(recHome) == ["three"])
        #expect(try names(xdg + "/recnotes") == ["four"])
        #expect(try names(sandbox.home + "/.local/share/recnotes") == ["five"])
        #expect(!FileManager.default.fileExists(atPath: sandbox.store))
        // Without any of them there is nowhere to go.
        let nowhere = try sandbox.run(["ls"], store: false, environment: ["HOME": nil])
        expectFailure(nowhere, status: 64, containing: ["--store"])
    }

    @Test(
        "on a terminal folders are marked and coloured, and NO_COLOR turns colour off",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func terminal() throws {
        _ = try run("mkdir", "Folder")
        try sandbox.addRecording("rec", in: "/", duration: 1)
        func onTTY(_ environment: [String: String]) throws -> String {
            let command = "'\(Sandbox.binary)' --store '\(sandbox.store)' ls"
            let result = try Sandbox.execute(
                "/usr/bin/script", ["-qec", command, "/dev/null"], environment: environment)
            #expect(result.status == 0, "\(result)")
            return result.stdout.replacingOccurrences(of: "\r", with: "")
        }
        var environment = sandbox.baseEnvironment
        environment["NO_COLOR"] = nil
        environment["TERM"] = "xterm"
        let coloured = try onTTY(environment)
        #expect(coloured.contains("\u{1B}[1;34mFolder/\u{1B}[0m"), "\(coloured.debugDescription)")
        #expect(coloured.contains("rec"))
        environment["NO_COLOR"] = "1"
        let plain = try onTTY(environment)
        #expect(
            plain.components(separatedBy: "\n").filter { !$0.isEmpty } == ["Folder/", "rec"],
            "\(plain.debugDescription)")
    }
}

extension CommandTests {
    @Test("ls --sort size, with --reverse")
    func lsSortSize() throws {
        try sandbox.addRecording("big", in: "/", duration: 1, audioBytes: 3000)
        try sandbox.addRecording("small", in: "/", duration: 9, audioBytes: 10)
        try sandbox.addRecording("missing", in: "/", duration: 5)
        _ = try run("mkdir", "Folder")
        #expect(try run("ls", "--sort", "size").lines == ["Folder", "missing", "small", "big"])
        #expect(try run("ls", "--sort", "size", "--reverse").lines == ["big", "small", "missing", "Folder"])
        expectFailure(try sandbox.run("ls", "--sort", "colour"), status: 64)
    }

    @Test("find --iname matches in either case")
    func findIname() throws {
        _ = try run("mkdir", "-p", "/Work/STANDUP", "/Work/standup notes", "/Été")
        #expect(try run("find", "/", "--iname", "*standup*").lines == ["/Work/STANDUP", "/Work/standup notes"])
        #expect(try run("find", "/", "--iname", "été").lines == ["/Été"])
        #expect(try run("find", "/", "--name", "*standup*").lines == ["/Work/standup notes"])
    }

    @Test("pwd --json prints the current folder as ls --json prints items")
    func pwdJSON() throws {
        _ = try run("mkdir", "-p", "/Work/Ideas")
        _ = try run("cd", "/Work/Ideas")
        let json = try #require(try run("pwd", "--json").json() as? [String: Any])
        #expect(json["path"] as? String == "/Work/Ideas")
        #expect(json["uuid"] as? String == (try sandbox.uuid(at: "/Work/Ideas")))
        #expect(json["type"] as? String == "folder")
    }
}
