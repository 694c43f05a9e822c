import Foundation
import RecCore
import RecStore
import Testing

/// A store written by an earlier release opens and upgrades with no command from the user.
/// Tests/Fixtures/store-v<N> are stores in version N's layout, audio included: store-v1 was
/// written by release 1's binary; store-v2 by the version-3 binary with each recording's
/// "analysis" taken out and "version" set to 2, which is byte for byte what version 2 wrote
/// (the layouts differ in that field only); store-v3 by the version-3 binary; store-v4 by the
/// version-4 binary, from store-v3 and a few changes (a rename, a move, a trim, a marker,
/// a restore and a removal), so that it has marker ids and change times; store-v5 by the
/// version-5 binary, store-v4 upgraded by `fsck --repair` (its recordings' loudness measured);
/// store-v6 by the version-6 binary, store-v5 and two changes (`enhance /Ideas/keynote --level`,
/// `enhance /Work/Standups/monday --level --denoise`), so that it has enhancements and their
/// change times.
@Suite("Store upgrades")
struct StoreUpgradeTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures").path

    /// A sandbox whose store is a copy of the fixture.
    static func sandbox(from fixture: String) throws -> Sandbox {
        let sandbox = try Sandbox()
        try FileManager.default.copyItem(atPath: fixtures + "/" + fixture, toPath: sandbox.store)
        return sandbox
    }

    @Test("a version-1 store reads and works unchanged until its first change")
    func version1Reads() throws {
        let sandbox = try Self.sandbox(from: "store-v1")
        let original = try #require(sandbox.storeBytes)
        #expect(String(decoding: original, as: UTF8.self).contains("\"version\": 1"))
        let tree = try sandbox.run("tree", "/")
        expectSuccess(tree)
        #expect(tree.stdout.contains("monday") && tree.stdout.contains("café idea"), "\(tree.stdout)")
        expectSuccess(try sandbox.run("ls", "-l", "/Work/Standups"))
        expectSuccess(try sandbox.run("info", "/Ideas/café idea"))
        expectSuccess(try sandbox.run("trash"))
        expectSuccess(try sandbox.run("pwd"))
        let export = try sandbox.run("export", "/Work/Standups/monday", sandbox.root + "/monday.wav")
        expectSuccess(export)
        #expect(
            (try? FileManager.default.attributesOfItem(atPath: sandbox.root + "/monday.wav")[.size] as? Int) ?? 0
                > 30000)
        #expect(sandbox.storeBytes == original, "reading must not rewrite a version-1 store")
        #expect(!FileManager.default.fileExists(atPath: sandbox.storeFile + ".v1"))
        // Its recordings have no stored analysis (version 3): the one thing fsck notes, as
        // information. An older store is not damage: exit 0, clean, nothing remaining.
        let check = try sandbox.run("fsck", "--json")
        #expect(check.status == 0, "\(check)")
        let report = try check.object()
        #expect(report["clean"] as? Bool == true && report["remaining"] as? Int == 0, "\(check.stdout)")
        let problems = report["problems"] as? [[String: Any]] ?? []
        #expect(problems.count == 1, "\(check.stdout)")
        #expect(problems.first?["kind"] as? String == "missingAnalysis")
        #expect(problems.first?["severity"] as? String == "information")
        #expect((problems.first?["message"] as? String)?.contains("2 recordings have no stored levels") == true)
        #expect(problems.first?["repairable"] as? Bool == true)
        #expect(sandbox.storeBytes == original, "fsck without --repair never writes")
    }

    @Test("the first change writes the current version and keeps the original once as store.json.v1")
    func version1Upgrades() throws {
        let sandbox = try Self.sandbox(from: "store-v1")
        let original = try #require(sandbox.storeBytes)
        let before = try sandbox.run("find", "/", "--json")
        expectSuccess(try sandbox.run("mkdir", "/New"))
        let upgraded = String(decoding: try #require(sandbox.storeBytes), as: UTF8.self)
        #expect(upgraded.contains("\"version\": \(Document.currentVersion)"))
        #expect(sandbox.bytes(sandbox.storeFile + ".v1") == original)
        // Every item is still there, as it was.
        let after = try sandbox.run("find", "/", "--json")
        for line in before.stdout.split(separator: "\n") where line.contains("\"uuid\"") {
            #expect(after.stdout.contains(line), "lost or changed: \(line)")
        }
        // Undo and trash restore still work across the upgrade.
        expectSuccess(try sandbox.run("undo"))
        expectSuccess(try sandbox.run("trash", "restore", "/Old"))
        // A second change leaves the kept original alone.
        expectSuccess(try sandbox.run("mkdir", "/Newer"))
        #expect(sandbox.bytes(sandbox.storeFile + ".v1") == original)
        expectSuccess(try sandbox.run("fsck", "--repair"))
        #expect(try sandbox.run("fsck").status == 0)
    }

    @Test("a version-2 store reads unchanged; info measures its recordings without writing, fsck notes them, exit 0")
    func version2Reads() throws {
        let sandbox = try Self.sandbox(from: "store-v2")
        let original = try #require(sandbox.storeBytes)
        #expect(String(decoding: original, as: UTF8.self).contains("\"version\": 2"))
        let tree = try sandbox.run("tree", "/")
        expectSuccess(tree)
        #expect(tree.stdout.contains("monday") && tree.stdout.contains("café idea"), "\(tree.stdout)")
        let info = try sandbox.run("info", "/Work/Standups/monday")
        expectSuccess(info)
        for row in ["level:", "waveform:", "speech:", "markers:"] {
            #expect(info.stdout.contains(row), "\(row) \(info.stdout)")
        }
        expectSuccess(try sandbox.run("find", "/", "--tag", "idea"))
        expectSuccess(try sandbox.run("trash"))
        #expect(sandbox.storeBytes == original, "reading, info included, must not rewrite a version-2 store")
        #expect(!FileManager.default.fileExists(atPath: sandbox.storeFile + ".v2"))
        let check = try sandbox.run("fsck")
        #expect(check.status == 0, "\(check)")
        #expect(check.stderr.isEmpty, "\(check)")
        #expect(
            check.lines.first?.hasPrefix("note: 2 recordings have no stored levels and waveform yet") == true
                && check.lines.first?.contains("--repair would measure them") == true, "\(check.stdout)")
        #expect(check.lines.last == "fsck: 3 folders, 2 recordings, 0 problems", "\(check.stdout)")
        #expect(sandbox.storeBytes == original)
    }

    @Test(
        "the first change writes the current version and keeps the original once as store.json.v2; fsck --repair stores the analysis info showed"
    )
    func version2Upgrades() throws {
        let sandbox = try Self.sandbox(from: "store-v2")
        let original = try #require(sandbox.storeBytes)
        let before = try sandbox.run("find", "/", "--json")
        let infoBefore = try sandbox.run("info", "/Ideas/café idea", "--json")
        expectSuccess(infoBefore)
        expectSuccess(try sandbox.run("mkdir", "/New"))
        let upgraded = String(decoding: try #require(sandbox.storeBytes), as: UTF8.self)
        #expect(upgraded.contains("\"version\": \(Document.currentVersion)"))
        #expect(sandbox.bytes(sandbox.storeFile + ".v2") == original)
        let after = try sandbox.run("find", "/", "--json")
        for line in before.stdout.split(separator: "\n") where line.contains("\"uuid\"") {
            #expect(after.stdout.contains(line), "lost or changed: \(line)")
        }
        expectSuccess(try sandbox.run("undo"))
        expectSuccess(try sandbox.run("trash", "restore", "/Old"))
        expectSuccess(try sandbox.run("mkdir", "/Newer"))
        #expect(sandbox.bytes(sandbox.storeFile + ".v2") == original)

        // Three recordings without analysis (the restored one too); --repair measures them.
        let check = try sandbox.run("fsck")
        #expect(check.stdout.contains("3 recordings have no stored levels"), "\(check.stdout)")
        let repair = try sandbox.run("fsck", "--repair")
        expectSuccess(repair)
        #expect(
            repair.stdout.contains("measured and stored the levels and waveform of 3 recordings"), "\(repair.stdout)")
        let repaired = String(decoding: try #require(sandbox.storeBytes), as: UTF8.self)
        #expect(repaired.components(separatedBy: "\"analysis\": {").count - 1 == 3, "\(repaired)")
        #expect(try sandbox.run("fsck").status == 0)
        // What info showed measured on the fly is what is now stored.
        let infoAfter = try sandbox.run("info", "/Ideas/café idea", "--json")
        #expect(infoAfter.stdout == infoBefore.stdout)
    }

    @Test("fsck --repair as the first write of a version-2 store keeps store.json.v2 too")
    func version2RepairKeepsOriginal() throws {
        let sandbox = try Self.sandbox(from: "store-v2")
        let original = try #require(sandbox.storeBytes)
        expectSuccess(try sandbox.run("fsck", "--repair"))
        #expect(sandbox.bytes(sandbox.storeFile + ".v2") == original)
        #expect(
            String(decoding: try #require(sandbox.storeBytes), as: UTF8.self).contains(
                "\"version\": \(Document.currentVersion)"))
        #expect(try sandbox.run("fsck").status == 0)
    }

    @Test(
        "a version-3 store reads unchanged; its first change writes the current version, keeps store.json.v3, and gives its markers ids"
    )
    func version3Upgrades() throws {
        let sandbox = try Self.sandbox(from: "store-v3")
        let original = try #require(sandbox.storeBytes)
        #expect(String(decoding: original, as: UTF8.self).contains("\"version\": 3"))
        let before = try sandbox.run("find", "/", "--json")
        let marks = try sandbox.run("marks", "/Work/Standups/monday", "--json")
        let text = try sandbox.run("marks", "/Work/Standups/monday")
        expectSuccess(marks)
        #expect(try sandbox.run("fsck").status == 0)
        #expect(sandbox.storeBytes == original, "reading must not rewrite a version-3 store")
        expectSuccess(try sandbox.run("mkdir", "/New"))
        let upgraded = String(decoding: try #require(sandbox.storeBytes), as: UTF8.self)
        #expect(upgraded.contains("\"version\": \(Document.currentVersion)"))
        #expect(sandbox.bytes(sandbox.storeFile + ".v3") == original)
        // Every marker has an id now; what the commands show is as it was.
        #expect(upgraded.components(separatedBy: "\"label\": \"budget\", \"id\": \"").count == 2, "\(upgraded)")
        #expect(try sandbox.run("marks", "/Work/Standups/monday", "--json").stdout == marks.stdout)
        #expect(try sandbox.run("marks", "/Work/Standups/monday").stdout == text.stdout)
        let after = try sandbox.run("find", "/", "--json")
        for line in before.stdout.split(separator: "\n") where line.contains("\"uuid\"") {
            #expect(after.stdout.contains(line), "lost or changed: \(line)")
        }
        expectSuccess(try sandbox.run("undo"))
        expectSuccess(try sandbox.run("trash", "restore", "/gone"))
        expectSuccess(try sandbox.run("unmark", "/Work/Standups/monday", "budget"))
        #expect(try sandbox.run("fsck").status == 0)
    }

    @Test("a version-4 store reads and works; a change keeps its marker ids and change times")
    func version4Reads() throws {
        let sandbox = try Self.sandbox(from: "store-v4")
        let original = String(decoding: try #require(sandbox.storeBytes), as: UTF8.self)
        #expect(original.contains("\"version\": 4"))
        let tree = try sandbox.run("tree", "/")
        expectSuccess(tree)
        #expect(tree.stdout.contains("keynote") && tree.stdout.contains("café idea"), "\(tree.stdout)")
        let marks = try sandbox.run("marks", "/Work/Standups/monday")
        #expect(marks.lines == ["#1  00:00:00.50  budget", "#2  00:00:01.50  action items"], "\(marks.stdout)")
        #expect(!marks.stdout.contains("-"), "marker ids are not shown")
        let check = try sandbox.run("fsck")
        #expect(check.status == 0 && check.lines.last == "fsck: 3 folders, 3 recordings, 0 problems", "\(check)")
        #expect(String(decoding: try #require(sandbox.storeBytes), as: UTF8.self) == original)
        expectSuccess(try sandbox.run("tag", "/Ideas/keynote", "+kept"))
        let changed = String(decoding: try #require(sandbox.storeBytes), as: UTF8.self)
        #expect(sandbox.bytes(sandbox.storeFile + ".v4") == Array(original.utf8), "a change upgrades it")
        for field in [
            #""id": "6c9ba07f-5fc6-8020-9213-33ebba5748ae""#, #""changed": {"name": "2026-11-25T08:17:14.204Z"}"#,
            #""changed": {"parent": "2026-11-25T08:17:14.241Z"}"#, #""changed": {"trim": "2026-11-25T08:17:14.278Z"}"#,
            #""changed": {"trash": "2026-11-25T08:17:20.931Z"}"#,
        ] {
            #expect(original.contains(field) && changed.contains(field), "\(field)")
        }
        // A rename sets the name's change time, and undo (a change too) sets it again.
        expectSuccess(try sandbox.run("mv", "/Ideas/keynote", "/Ideas/talk"))
        let renamed = String(decoding: try #require(sandbox.storeBytes), as: UTF8.self)
        #expect(!renamed.contains(#""changed": {"name": "2026-11-25T08:17:14.204Z"}"#))
        expectSuccess(try sandbox.run("undo"))
        expectSuccess(try sandbox.run("trash", "restore", "/gone"))
        #expect(try sandbox.run("fsck").status == 0)
    }

    @Test(
        "a version-4 store reads unchanged; fsck notes its recordings' loudness; fsck --repair measures it, as store-v5 holds it"
    )
    func version4Upgrades() throws {
        let sandbox = try Self.sandbox(from: "store-v4")
        let original = try #require(sandbox.storeBytes)
        let info = try sandbox.run("info", "/Work/Standups/monday")
        expectSuccess(info)
        #expect(!info.stdout.contains("loudness:"), "nothing stored, nothing measured: \(info.stdout)")
        #expect(try sandbox.run("info", "/Work/Standups/monday", "--json").stdout.contains("\"loudness\": null"))
        let check = try sandbox.run("fsck", "--json")
        #expect(check.status == 0, "\(check)")
        let report = try check.object()
        #expect(report["clean"] as? Bool == true && report["remaining"] as? Int == 0, "\(check.stdout)")
        let problems = report["problems"] as? [[String: Any]] ?? []
        #expect(problems.count == 1 && problems.first?["kind"] as? String == "missingLoudness", "\(check.stdout)")
        #expect(problems.first?["severity"] as? String == "information")
        #expect((problems.first?["message"] as? String)?.contains("3 recordings have no stored loudness") == true)
        #expect(sandbox.storeBytes == original, "reading and fsck never write")

        let repair = try sandbox.run("fsck", "--repair")
        expectSuccess(repair)
        #expect(repair.stdout.contains("measured and stored the loudness of 3 recordings"), "\(repair.stdout)")
        #expect(sandbox.bytes(sandbox.storeFile + ".v4") == original)
        let repaired = String(decoding: try #require(sandbox.storeBytes), as: UTF8.self)
        // store-v5 is what the version-5 binary wrote; this one writes the current version.
        let fixture = try String(contentsOfFile: Self.fixtures + "/store-v5/store.json", encoding: .utf8)
            .replacingOccurrences(of: "\"version\": 5,", with: "\"version\": \(Document.currentVersion),")
        #expect(repaired == fixture, "the same audio measures the same")
        let clean = try sandbox.run("fsck")
        #expect(clean.status == 0 && clean.lines == ["fsck: 3 folders, 3 recordings, 0 problems"], "\(clean)")
    }

    @Test("a version-5 store: info shows the stored loudness, info --json and ls -l --json have it, fsck is clean")
    func version5Reads() throws {
        let sandbox = try Self.sandbox(from: "store-v5")
        let original = try #require(sandbox.storeBytes)
        #expect(String(decoding: original, as: UTF8.self).contains("\"version\": 5"))
        let info = try sandbox.run("info", "/Ideas/keynote")
        expectSuccess(info)
        #expect(
            info.lines.contains {
                $0.hasPrefix("loudness: ") && $0.hasSuffix(" -20.6 LUFS, range 0.0 LU, true peak -2.0 dBTP")
            },
            "\(info.stdout)")
        let json = try sandbox.run("info", "/Ideas/keynote", "--json").object()
        let loudness = try #require(json["loudness"] as? [String: Double], "\(json)")
        #expect(loudness == ["integrated": -20.58, "range": 0, "truePeak": -1.97])
        #expect(json["loudnessLUFS"] as? Double == -20.58)
        let list = try sandbox.run("ls", "-l", "/Ideas", "--json")
        let items = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        #expect(items.first?["loudnessLUFS"] as? Double == -20.58, "\(list.stdout)")
        let check = try sandbox.run("fsck")
        #expect(check.status == 0 && check.lines == ["fsck: 3 folders, 3 recordings, 0 problems"], "\(check)")
        expectSuccess(try sandbox.run("mv", "/Ideas/keynote", "/Ideas/talk"))
        #expect(sandbox.bytes(sandbox.storeFile + ".v5") == original, "a change upgrades it")
        expectSuccess(try sandbox.run("undo"))
        #expect(
            sandbox.storeBytes.map { String(decoding: $0, as: UTF8.self) }?.contains(#""integrated": -20.58"#) == true)
    }

    @Test(
        "a version-5 store's recordings read as not enhanced; its first change writes the current version, keeps store.json.v5, and enhance works"
    )
    func version5Upgrades() throws {
        let sandbox = try Self.sandbox(from: "store-v5")
        let original = try #require(sandbox.storeBytes)
        let enhance = try sandbox.run("enhance", "-r", "/")
        #expect(
            enhance.lines == [
                "/Ideas/keynote: level off, denoise off", "/Work/café idea: level off, denoise off",
                "/Work/Standups/monday: level off, denoise off",
            ], "\(enhance)")
        let json = try sandbox.run("info", "/Ideas/keynote", "--json").object()
        #expect(json["enhance"] as? [String: Bool] == ["level": false, "denoise": false])
        #expect(sandbox.storeBytes == original, "reading never writes")
        expectSuccess(try sandbox.run("enhance", "/Ideas/keynote", "--level"))
        let upgraded = String(decoding: try #require(sandbox.storeBytes), as: UTF8.self)
        #expect(upgraded.contains("\"version\": \(Document.currentVersion)"))
        #expect(sandbox.bytes(sandbox.storeFile + ".v5") == original)
        #expect(upgraded.contains(#""enhance": {"level": true, "denoise": false}"#), "\(upgraded)")
        expectSuccess(try sandbox.run("undo"))
        #expect(!String(decoding: try #require(sandbox.storeBytes), as: UTF8.self).contains(#""enhance": {"#))
        #expect(try sandbox.run("fsck").status == 0)
    }

    @Test(
        "a version-6 store: its enhancements show in info, ls -l --json and enhance, play applies them, fsck is clean")
    func version6Reads() throws {
        let sandbox = try Self.sandbox(from: "store-v6")
        let original = try #require(sandbox.storeBytes)
        #expect(String(decoding: original, as: UTF8.self).contains("\"version\": 6"))
        let enhance = try sandbox.run("enhance", "/Ideas/keynote", "/Work/Standups/monday", "/Work/café idea")
        #expect(
            enhance.lines == [
                "/Ideas/keynote: level on, denoise off", "/Work/Standups/monday: level on, denoise on",
                "/Work/café idea: level off, denoise off",
            ], "\(enhance)")
        let info = try sandbox.run("info", "/Ideas/keynote")
        #expect(info.lines.contains { $0.hasPrefix("enhanced:") && $0.hasSuffix("level on, denoise off") }, "\(info)")
        let list = try sandbox.run("ls", "-l", "/Ideas", "--json")
        #expect(list.stdout.contains(#""enhance": {"level": true, "denoise": false}"#), "\(list.stdout)")
        let check = try sandbox.run("fsck")
        #expect(check.status == 0 && check.lines == ["fsck: 3 folders, 3 recordings, 0 problems"], "\(check)")
        #expect(sandbox.storeBytes == original)
        // The enhancement's change time stays through another change, and undo takes one back.
        expectSuccess(try sandbox.run("tag", "/Ideas/keynote", "+kept"))
        let changed = String(decoding: try #require(sandbox.storeBytes), as: UTF8.self)
        #expect(changed.contains(#""changed": {"name": "2026-11-25T08:17:14.204Z", "enhance": ""#), "\(changed)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.storeFile + ".v6"))
        expectSuccess(try sandbox.run("undo"))
        expectSuccess(try sandbox.run("undo"))
        #expect(
            try sandbox.run("enhance", "/Work/Standups/monday").stdout
                == "/Work/Standups/monday: level off, denoise off\n")
    }

    @Test("without libebur128 a recording is saved and analysed all the same; fsck notes its loudness and says why")
    func withoutTheMeter() throws {
        let sandbox = try Self.sandbox(from: "store-v5")
        let wav = sandbox.root + "/tone.wav"
        let sox = try Sandbox.execute(
            "/usr/bin/sox", ["-n", "-r", "16000", "-b", "16", wav, "synth", "2", "sine", "440", "vol", "0.25"],
            environment: [:])
        #expect(sox.status == 0, "\(sox)")
        let missing = ["RECNOTES_EBUR128": "/nonexistent/libebur128.so.1"]
        // Into the current folder, which the fixture's view state leaves at /Ideas.
        expectSuccess(try sandbox.run(["import", wav, "--name", "tone"], environment: missing))
        let info = try sandbox.run("info", "/Ideas/tone")
        #expect(info.stdout.contains("level:") && !info.stdout.contains("loudness:"), "\(info.stdout)")
        let check = try sandbox.run(["fsck"], environment: missing)
        #expect(
            check.status == 0 && check.lines.first?.hasPrefix("note: 1 recording has no stored loudness") == true,
            "\(check)")
        let before = sandbox.storeBytes
        let repair = try sandbox.run(["fsck", "--repair"], environment: missing)
        #expect(repair.status == 0, "information, not damage: \(repair)")
        #expect(sandbox.storeBytes == before, "nothing measured, nothing written")
        #expect(
            repair.lines.contains {
                $0.hasPrefix(
                    "not repaired: loudness not measured: cannot load the loudness meter (install libebur128-1)")
            },
            "\(repair)")
        // With the library, the same repair measures it.
        let measured = try sandbox.run("fsck", "--repair")
        #expect(measured.stdout.contains("measured and stored the loudness of 1 recording"), "\(measured)")
        #expect(try sandbox.run("info", "/Ideas/tone").stdout.contains("loudness:"))
    }

    @Test("a store newer than this recnotes is refused with one line and never written")
    func newerRefused() throws {
        let sandbox = try Self.sandbox(from: "store-v1")
        let text = String(decoding: try #require(sandbox.storeBytes), as: UTF8.self)
            .replacingOccurrences(of: "\"version\": 1", with: "\"version\": 99")
        try sandbox.write(sandbox.storeFile, Array(text.utf8))
        for arguments in [["ls"], ["mkdir", "/X"], ["fsck", "--repair"]] {
            let run = try sandbox.run(arguments)
            #expect(run.status == 1, "\(arguments): \(run)")
            #expect(run.stderr.contains("version 99 is newer than this recnotes understands"), "\(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        }
        #expect(sandbox.storeBytes == Array(text.utf8))
    }
}
