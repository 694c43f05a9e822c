import Foundation
import RecTestSupport
import RecValues
import Testing

@testable import RecStore

func decode(_ text: String, strict: Bool = true) throws -> (Document, [DocumentCodec.LinkProblem]) {
    try decode(Array(text.utf8), strict: strict)
}

func decode(_ bytes: [UInt8], strict: Bool = true) throws -> (Document, [DocumentCodec.LinkProblem]) {
    try bytes.withUnsafeBufferPointer { try DocumentCodec.decode($0, strict: strict) }
}

/// The 1-based line and column of the first occurrence of `needle` in `text`.
func lineAndColumn(of needle: String, in text: String) -> (Int, Int) {
    let prefix = text.components(separatedBy: needle)[0]
    let lines = prefix.split(separator: "\n", omittingEmptySubsequences: false)
    return (lines.count, lines.last!.utf8.count + 1)
}

let rootID = "00000000-0000-0000-0000-000000000000"
let childID = "11111111-2222-4333-8444-555555555555"

/// A one-folder store with a placeholder for the child's fields.
func store(child: String, rootChildren: String = "[\"\(childID)\"]", version: String = "1") -> String {
    """
    {
    "version": \(version),
    "items": [
    {"uuid": "\(rootID)", "type": "folder", "name": "Recordings", "parent": null, "created": "2023-11-14T22:13:20.000Z", "children": \(rootChildren)},
    \(child)
    ]
    }
    """
}

@Suite("Document codec")
struct DocumentCodecTests {
    static func richDocument() throws -> Document {
        var tx = DocumentStore.Transaction(document: Document())
        try Fixture.build(into: &tx)
        let names = [
            "quote \" and backslash \\", "tab-free ünïcödé", "🎙 emoji", "中文", "a\u{A0}b", "slash-free \u{2028} sep",
        ]
        for (i, name) in names.enumerated() {
            try tx.add(
                .folder(
                    name: name, parent: Fixture.home,
                    created: Timestamp(millisecondsSinceEpoch: Int64(i) * 1_234_567_891)))
        }
        let durations: [Double] = [0, 0.1, 1.0 / 3.0, 12.5, 3600.000001, 1e-7, 1e16, 123456789.123]
        for (i, duration) in durations.enumerated() {
            let id = ItemID.random()
            try tx.add(
                .recording(
                    id: id, name: "rec \(i)", parent: Fixture.ideas,
                    created: Timestamp(millisecondsSinceEpoch: -86_400_000 * Int64(i) - 1),
                    info: RecordingInfo(
                        duration: duration, frames: Int64(i) * 1_000_003, sampleRate: 8000 + i,
                        channels: 1 + i % 2, format: [AudioFormat.opus, .flac, .wav][i % 3], file: "\(id).x")))
        }
        var annotated = Item.recording(
            name: "annotated", parent: Fixture.home, created: Fixture.created, info: Fixture.info(.random()))
        annotated.annotations = Annotations(
            note: "line one\nline \"two\" é 🎙", tags: TagRules.normalized(["work", "émoji🎙", "a"]),
            markers: [Marker(frame: 0), Marker(frame: 48000, label: "budget, \"q3\"")])
        try tx.add(annotated)
        // An analysis as a save measures it: every waveform level, and speech regions.
        let peaks = (0..<AudioAnalysis.waveformPoints).map { $0 == 0 ? 0 : pow(10, -Double($0) / 7.3) }
        let analysis = AudioAnalysis(
            frames: 96_000, sampleRate: 48000, level: Level(peak: -3.2149, rms: -18.5),
            peaks: peaks + [1], speech: [0..<4800, 9600..<96_000]
        ).compacted()
        try tx.add(
            .recording(
                name: "measured", parent: Fixture.home, created: Fixture.created,
                info: RecordingInfo(
                    duration: 2, frames: 96_000, sampleRate: 48000, channels: 1, format: .flac,
                    file: "m.flac", analysis: analysis)))
        var noted = Item.folder(name: "noted", parent: .root, created: Fixture.created)
        noted.annotations = Annotations(note: "a folder's note", tags: ["x"])
        try tx.add(noted)
        return tx.document
    }

    @Test("notes, tags and markers are written only where there are some, and read back")
    func annotations() throws {
        let document = try Self.richDocument()
        let text = String(decoding: DocumentCodec.encode(document), as: UTF8.self)
        #expect(
            text.contains(
                #""tags": ["a", "work", "émoji🎙"], "note": "line one\nline \"two\" é 🎙", "markers": [{"frame": 0, "id": ""#
            ), "\(text)")
        #expect(text.components(separatedBy: "\"tags\"").count == 3)
        let decoded = try decode(text).0
        let item = try #require(decoded.items.values.first { $0.name == "annotated" })
        #expect(item.annotations.markers.map(\.frame) == [0, 48000])
        #expect(text.contains(#"{"frame": 48000, "label": "budget, \"q3\"", "id": ""#))
        #expect(item.annotations.markers.allSatisfy { $0.id != Marker.unassigned })
        #expect(decoded == document)
    }

    @Test("bad notes, tags and markers are refused with their position")
    func badAnnotations() throws {
        let base =
            #"{"uuid": "\#(childID)", "type": "recording", "name": "r", "parent": "\#(rootID)", "created": "2023-11-14T22:13:20Z", "duration": 1.5, "frames": 72000, "sampleRate": 48000, "channels": 1, "format": "opus", "file": "x.opus", "tags": ["ok"], "markers": [{"frame": 5, "label": "x"}]}"#
        let markers = try #require(
            try decode(store(child: base, version: "2")).0[ItemID(childID)!]?.annotations.markers)
        #expect(markers.map { [$0.frame: $0.label] } == [[5: "x"]])
        // A marker from before version 4 gets an id derived from what it is: the same at
        // every reading, on every machine.
        #expect(markers[0].id != Marker.unassigned)
        #expect(try decode(store(child: base, version: "2")).0[ItemID(childID)!]?.annotations.markers == markers)
        for (from, to, message) in [
            (#""tags": ["ok"]"#, #""tags": ["has space"]"#, "invalid tag: a tag cannot contain whitespace"),
            (#""tags": ["ok"]"#, #""tags": [""]"#, "invalid tag: a tag cannot be empty"),
            (#"{"frame": 5, "label": "x"}"#, #"{"frame": -5}"#, "a marker needs a \"frame\" of 0 or more"),
            (#"{"frame": 5, "label": "x"}"#, #"{"label": "x"}"#, "a marker needs a \"frame\" of 0 or more"),
        ] {
            let reason = corruptReason(store(child: base.replacingOccurrences(of: from, with: to), version: "2"))
            #expect(reason?.hasSuffix(message) == true, "\(to): \(reason ?? "")")
        }
        let folder =
            #"{"uuid": "\#(childID)", "type": "folder", "name": "f", "parent": "\#(rootID)", "created": "2023-11-14T22:13:20Z", "children": [], "markers": [{"frame": 1}]}"#
        #expect(
            corruptReason(store(child: folder, version: "2"))?.hasSuffix(
                "folder \(childID) has markers; only recordings do") == true)
    }

    @Test("encode then decode gives the same document, and encoding again the same bytes")
    func roundTrip() throws {
        let document = try Self.richDocument()
        let bytes = DocumentCodec.encode(document)
        let (decoded, problems) = try decode(bytes)
        #expect(problems.isEmpty)
        #expect(decoded == document)
        #expect(DocumentCodec.encode(decoded) == bytes)
        let empty = Document()
        #expect(try decode(DocumentCodec.encode(empty)).0 == empty)
    }

    @Test("the encoding is JSON that any parser reads, one item per line, parents first")
    func readableByOthers() throws {
        let document = try Self.richDocument()
        let bytes = DocumentCodec.encode(document)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(json["version"] as? Int == Document.currentVersion)
        let items = try #require(json["items"] as? [[String: Any]])
        #expect(items.count == document.count)
        #expect(items.first?["uuid"] as? String == rootID)
        #expect(items.first?["name"] as? String == "Recordings")
        #expect(items.first?["parent"] is NSNull)
        let names = Set(items.compactMap { $0["name"] as? String })
        #expect(names.contains("quote \" and backslash \\"))
        #expect(names.contains("🎙 emoji"))
        let recording = try #require(
            items.first { $0["type"] as? String == "recording" && $0["name"] as? String == "rec 3" })
        #expect(recording["duration"] as? Double == 12.5)
        #expect(
            Set(recording.keys) == [
                "uuid", "type", "name", "parent", "created", "duration", "frames", "sampleRate", "channels", "format",
                "file",
            ])
        let folder = try #require(items.first { $0["name"] as? String == "Work" })
        #expect(Set(folder.keys) == ["uuid", "type", "name", "parent", "created", "children"])
        #expect(folder["created"] as? String == "2023-11-14T22:13:20.000Z")
        // Parents come before their children.
        var seen = Set<String>()
        for item in items {
            if let parent = item["parent"] as? String { #expect(seen.contains(parent)) }
            seen.insert(item["uuid"] as! String)
        }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == document.count + 5)
    }

    @Test("hand-formatted JSON: other key order, whitespace, escapes, surrogate pairs, unknown keys")
    func handFormatted() throws {
        let text =
            "\u{FEFF}" + """
                {
                  "comment": {"nested": [1, 2.5e3, true, false, null, {"deep": ["x\\/y"]}]},
                  "items" : [
                    {
                      "children" : [ "\(childID.uppercased())" ],
                      "created"  : "2023-11-14T23:13:20+01:00",
                      "parent"   : null,
                \t"name"     : "Recordings",
                      "type"     : "folder",
                      "uuid"     : "\(rootID)"
                    } ,
                \t{"extra": {"a": [[]]}, "file": "\\u0031.opus", "format": "opus", "channels": 2, "sampleRate": 48000,
                     "frames": 96000, "duration": 2.0E0, "created": "2023-11-14t22:13:20.5z",
                     "parent": "\(rootID)", "name": "Caf\\u00e9 \\"q\\" \\\\ \\ud83c\\udf99\\u0041-\\u20ac",
                     "type": "recording", "uuid": "\(childID)"}\r
                  ],
                  "version" : 1
                }

                """
        let (document, problems) = try decode(text)
        #expect(problems.isEmpty)
        #expect(document.count == 2)
        #expect(document.root.created == Timestamp(millisecondsSinceEpoch: 1_700_000_000_000))
        let child = try #require(document[ItemID(childID)!])
        #expect(child.name == "Café \"q\" \\ 🎙A-€")
        #expect(child.created == Timestamp(millisecondsSinceEpoch: 1_700_000_000_500))
        #expect(
            child.recording
                == RecordingInfo(
                    duration: 2, frames: 96000, sampleRate: 48000, channels: 2, format: .opus, file: "1.opus"))
        #expect(document.children(of: .root).map(\.id) == [child.id])
    }

    @Test("jq-style compact output decodes too")
    func compact() throws {
        let text =
            #"{"version":1,"items":[{"uuid":"\#(rootID)","type":"folder","name":"Recordings","parent":null,"created":"2023-11-14T22:13:20.000Z","children":[]}]}"#
        #expect(try decode(text).0.count == 1)
    }

    @Test("a truncated store is refused with the line and column where it ends")
    func truncated() throws {
        let bytes = DocumentCodec.encode(try Self.richDocument())
        for cut in stride(from: 1, to: bytes.count - 2, by: 97) {
            let reason = corruptReason(Array(bytes[..<cut]))
            #expect(reason?.hasPrefix("corrupt JSON at line ") == true, "cut at \(cut): \(reason ?? "")")
        }
        let text = store(
            child:
                #"{"uuid": "\#(childID)", "type": "folder", "name": "A", "parent": "\#(rootID)", "created": "2023-11-14T22:13:20.000Z", "children": []}"#
        )
        let cut = String(text.prefix(while: { $0 != "]" }) + "]")  // ends inside the root's children... then stops
        let reason = corruptReason(cut)
        let lines = cut.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(
            reason
                == "corrupt JSON at line \(lines.count), column \(lines.last!.utf8.count + 1): unexpected end of file inside an object"
        )
    }

    @Test("a value of the wrong type is refused with its line and column")
    func wrongTypes() throws {
        let cases: [(String, String, String)] = [
            (#""name": 5"#, "5", "expected a string, found '5'"),
            (#""children": {}"#, "{}", "expected '[', found '{'"),
            (#""created": "yesterday""#, "\"yesterday\"", "created is not an ISO 8601 time"),
            (#""type": "folderish""#, "\"folderish\"", "type must be \"folder\" or \"recording\""),
            (#""parent": "\#(rootID.dropLast())""#, "\"\(rootID.dropLast())\"", "parent is not a UUID"),
            (#""parent": 0"#, "0", "expected a string, found '0'"),
        ]
        for (field, marker, message) in cases {
            var fields = [
                #""uuid": "\#(childID)""#, #""type": "folder""#, #""name": "A""#, #""parent": "\#(rootID)""#,
                #""created": "2023-11-14T22:13:20.000Z""#, #""children": []"#,
            ]
            let key = field.split(separator: ":")[0]
            fields = fields.map { $0.hasPrefix(key) ? field : $0 }
            let text = store(child: "{" + fields.joined(separator: ", ") + "}")
            let (line, column) = lineAndColumn(of: field, in: text)
            let markerColumn = column + field.utf8.count - marker.utf8.count
            #expect(
                corruptReason(text) == "corrupt JSON at line \(line), column \(markerColumn): \(message)", "\(field)")
        }
    }

    @Test("a recording with a wrong-typed or out-of-range audio field is refused")
    func recordingFields() throws {
        let base =
            #"{"uuid": "\#(childID)", "type": "recording", "name": "r", "parent": "\#(rootID)", "created": "2023-11-14T22:13:20Z", "duration": 1.5, "frames": 72000, "sampleRate": 48000, "channels": 1, "format": "opus", "file": "x.opus"}"#
        #expect(try decode(store(child: base)).0[ItemID(childID)!]?.recording?.frames == 72000)
        for (from, to, message) in [
            ("\"frames\": 72000", "\"frames\": 1.5", "expected a whole number"),
            ("\"duration\": 1.5", "\"duration\": \"1.5\"", "expected a number, found '\"'"),
            ("\"channels\": 1", "\"channels\": 0", "recording \(childID) has out-of-range audio fields"),
            ("\"duration\": 1.5", "\"duration\": -1", "recording \(childID) has out-of-range audio fields"),
            ("\"file\": \"x.opus\"", "\"file\": \"../x.opus\"", "recording \(childID) has an invalid file name"),
            ("\"frames\": 72000", "\"frames\": 99999999999999999999", "number out of range"),
            (
                "\"format\": \"opus\"", "\"format\": \"aiff\"",
                "unknown audio format \"aiff\" (known: opus, flac, wav, vorbis, mp3)"
            ),
        ] {
            let reason = corruptReason(store(child: base.replacingOccurrences(of: from, with: to)))
            #expect(reason?.hasPrefix("corrupt JSON at line 5, column ") == true, "\(to): \(reason ?? "")")
            #expect(reason?.hasSuffix(message) == true, "\(to): \(reason ?? "")")
        }
    }

    @Test(
        "invalid UTF-8 is refused",
        arguments: [
            [0xFF], [0xC3], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xC0, 0xAF], [0x80],
            [0xE0, 0x80, 0xAF], [0xF0, 0x80, 0x80, 0xAF], [0xF4, 0x90, 0x80, 0x80],
            [0xF5, 0x80, 0x80, 0x80], [0xF0, 0x9F, 0x8E],
        ] as [[UInt8]])
    func invalidUTF8(sequence: [UInt8]) throws {
        let prefix = Array(#"{"version": 1, "items": [{"uuid": "\#(rootID)", "type": "folder", "name": "R"#.utf8)
        let suffix = Array(#"", "parent": null, "created": "2023-11-14T22:13:20Z", "children": []}]}"#.utf8)
        let reason = corruptReason(prefix + sequence + suffix)
        let column = prefix.lastIndex(of: UInt8(ascii: "\""))! + 2
        #expect(reason == "corrupt JSON at line 1, column \(column): invalid UTF-8 in a string")
        // Outside a string too.
        #expect(
            corruptReason(sequence + Array("{}".utf8))
                == "corrupt JSON at line 1, column 1: expected '{', found byte 0x\(String(sequence[0], radix: 16))")
    }

    @Test(
        "a name is read right whatever its length and wherever an escape, a control character or a non-ASCII letter falls"
    )
    func stringScanning() throws {
        // The reader looks at eight bytes at a time: every length and position around that.
        for length in 1..<20 {
            for at in 0..<length {
                let before = String(repeating: "a", count: at)
                let after = String(repeating: "b", count: length - at - 1)
                for (written, read) in [
                    (#"\""#, "\""), (#"\\"#, "\\"), (#"\u00e9"#, "é"), ("é", "é"), ("🎙", "🎙"), ("ß", "ß"),
                ] {
                    let text = store(
                        child:
                            #"{"uuid": "\#(childID)", "type": "folder", "name": "\#(before + written + after)", "parent": "\#(rootID)", "created": "2023-11-14T22:13:20Z", "children": []}"#
                    )
                    let name = try decode(text).0[ItemID(childID)!]?.name
                    #expect(name == before + read + after, "\(written) at \(at) of \(length)")
                }
                let control = store(
                    child:
                        #"{"uuid": "\#(childID)", "type": "folder", "name": "\#(before)\#u{01}\#(after)", "parent": "\#(rootID)", "created": "2023-11-14T22:13:20Z", "children": []}"#
                )
                let (line, column) = lineAndColumn(of: "\u{01}", in: control)
                #expect(
                    corruptReason(control)
                        == "corrupt JSON at line \(line), column \(column): control character in a string")
            }
        }
    }

    @Test(
        "bad escapes are refused", arguments: [#"\x"#, #"\u12"#, #"\ud800"#, #"\ud800\u0041"#, #"\udc00"#, #"\u00zz"#])
    func badEscapes(escape: String) throws {
        let text = store(
            child:
                #"{"uuid": "\#(childID)", "type": "folder", "name": "a\#(escape)b", "parent": "\#(rootID)", "created": "2023-11-14T22:13:20Z", "children": []}"#
        )
        let reason = corruptReason(text)
        #expect(reason?.hasPrefix("corrupt JSON at line 5, column ") == true, "\(reason ?? "")")
    }

    @Test("deep nesting is refused without exhausting the stack")
    func deeplyNested() throws {
        let depth = 100_000
        let unknown =
            "{\"version\": 1, \"x\": " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            + ", \"items\": []}"
        #expect(corruptReason(unknown)?.hasSuffix("nested too deeply") == true)
        let objects =
            "{\"version\": 1, \"x\": " + String(repeating: "{\"a\":", count: depth) + "1"
            + String(repeating: "}", count: depth) + "}"
        #expect(corruptReason(objects)?.hasSuffix("nested too deeply") == true)
        let inItems = "{\"version\": 1, \"items\": " + String(repeating: "[", count: depth)
        #expect(corruptReason(inItems) == "corrupt JSON at line 1, column 26: expected '{', found '['")
    }

    @Test("missing fields are refused", arguments: ["uuid", "type", "name", "parent", "created"])
    func missingItemField(field: String) throws {
        let all: [(String, String)] = [
            ("uuid", "\"\(childID)\""), ("type", "\"folder\""), ("name", "\"A\""),
            ("parent", "\"\(rootID)\""), ("created", "\"2023-11-14T22:13:20Z\""), ("children", "[]"),
        ]
        let child = "{" + all.filter { $0.0 != field }.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
        #expect(corruptReason(store(child: child)) == "corrupt JSON at line 5, column 1: item has no \"\(field)\"")
    }

    @Test(
        "a recording's missing audio field is refused",
        arguments: ["duration", "frames", "sampleRate", "channels", "format", "file"])
    func missingRecordingField(field: String) throws {
        let all: [(String, String)] = [
            ("uuid", "\"\(childID)\""), ("type", "\"recording\""), ("name", "\"r\""),
            ("parent", "\"\(rootID)\""), ("created", "\"2023-11-14T22:13:20Z\""), ("duration", "1"),
            ("frames", "48000"), ("sampleRate", "48000"), ("channels", "1"), ("format", "\"wav\""),
            ("file", "\"f.wav\""),
        ]
        let child = "{" + all.filter { $0.0 != field }.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
        #expect(corruptReason(store(child: child)) == "corrupt JSON at line 5, column 1: item has no \"\(field)\"")
    }

    @Test("a store without version or items is not a store")
    func notAStore() throws {
        #expect(corruptReason(#"{"items": []}"#) == "not a recnotes store: no \"version\" field")
        #expect(corruptReason(#"{"version": 1}"#) == "not a recnotes store: no \"items\" array")
        #expect(corruptReason(#"[]"#) == "corrupt JSON at line 1, column 1: expected '{', found '['")
        #expect(corruptReason("") == "corrupt JSON at line 1, column 1: expected '{', found end of file")
        #expect(
            corruptReason(#"{"version": 0, "items": []}"#)
                == "corrupt JSON at line 1, column 13: version must be 1 or more")
        #expect(
            corruptReason(#"{"version": 1, "items": []} x"#)
                == "corrupt JSON at line 1, column 29: unexpected 'x' after the end of the document")
        #expect(
            corruptReason(#"{"version": 1, "items": [],}"#)
                == "corrupt JSON at line 1, column 28: expected a string, found '}'")
    }

    @Test("a newer version is refused with a clear message, wherever the key is")
    func newerVersion() throws {
        let next = Document.currentVersion + 1
        #expect(
            corruptReason(store(child: "", rootChildren: "[]", version: "\(next)"))
                == "version \(next) is newer than this recnotes understands (\(next - 1)); upgrade recnotes")
        #expect(
            corruptReason(#"{"version": 70, "items": [{"whatever": 1}]}"#)
                == "version 70 is newer than this recnotes understands (\(next - 1)); upgrade recnotes")
    }

    @Test("broken links are refused in strict mode and reported otherwise")
    func brokenLinks() throws {
        let ghost = "99999999-0000-4000-8000-000000000009"
        // The child's parent does not exist.
        let orphan = store(
            child:
                #"{"uuid": "\#(childID)", "type": "folder", "name": "A", "parent": "\#(ghost)", "created": "2023-11-14T22:13:20Z", "children": []}"#,
            rootChildren: "[]")
        #expect(
            corruptReason(orphan)
                == "broken links: item \(childID) has parent \(ghost), which does not exist; run recnotes fsck")
        let (lenient, problems) = try decode(orphan, strict: false)
        #expect(problems == [.missingParent(ItemID(childID)!, parent: ItemID(ghost)!)])
        #expect(lenient.count == 2)

        // The root does not list its child.
        let unlisted = store(
            child:
                #"{"uuid": "\#(childID)", "type": "folder", "name": "A", "parent": "\#(rootID)", "created": "2023-11-14T22:13:20Z", "children": []}"#,
            rootChildren: "[]")
        #expect(
            corruptReason(unlisted)
                == "broken links: folder \(rootID) lists children that do not match its items' parent links; run recnotes fsck"
        )
        let (rebuilt, _) = try decode(unlisted, strict: false)
        #expect(rebuilt.root.children == [ItemID(childID)!])

        // The root lists a child that does not exist.
        let phantom = store(
            child:
                #"{"uuid": "\#(childID)", "type": "folder", "name": "A", "parent": "\#(rootID)", "created": "2023-11-14T22:13:20Z", "children": []}"#,
            rootChildren: "[\"\(childID)\", \"\(ghost)\"]")
        #expect(corruptReason(phantom)?.hasPrefix("broken links: folder \(rootID) lists children") == true)

        // A parent that is a recording.
        let underRecording = store(
            child:
                #"{"uuid": "\#(childID)", "type": "recording", "name": "r", "parent": "\#(rootID)", "created": "2023-11-14T22:13:20Z", "duration": 1, "frames": 1, "sampleRate": 8000, "channels": 1, "format": "wav", "file": "r.wav"}, {"uuid": "\#(ghost)", "type": "folder", "name": "A", "parent": "\#(childID)", "created": "2023-11-14T22:13:20Z", "children": []}"#
        )
        #expect(
            corruptReason(underRecording)
                == "broken links: item \(ghost) has parent \(childID), which is not a folder; run recnotes fsck")

        // No root at all.
        #expect(
            corruptReason(#"{"version": 1, "items": []}"#)
                == "broken links: the root folder \(rootID) is missing; run recnotes fsck")

        // The root with a parent, or another item without one.
        #expect(
            corruptReason(
                store(
                    child:
                        #"{"uuid": "\#(childID)", "type": "folder", "name": "A", "parent": null, "created": "2023-11-14T22:13:20Z", "children": []}"#
                ))
                == "corrupt JSON at line 5, column 1: item \(childID) has no parent")
    }

    @Test("a parent cycle is refused as unreachable items")
    func cycle() throws {
        let a = "aaaaaaaa-0000-4000-8000-000000000001"
        let b = "bbbbbbbb-0000-4000-8000-000000000002"
        let text = store(
            child:
                #"{"uuid": "\#(a)", "type": "folder", "name": "A", "parent": "\#(b)", "created": "2023-11-14T22:13:20Z", "children": ["\#(b)"]}, {"uuid": "\#(b)", "type": "folder", "name": "B", "parent": "\#(a)", "created": "2023-11-14T22:13:20Z", "children": ["\#(a)"]}"#,
            rootChildren: "[]")
        let reason = try #require(corruptReason(text))
        #expect(reason.hasPrefix("broken links: item "))
        #expect(
            reason.contains("cannot be reached from the root (a parent cycle) (and 1 more problem; run recnotes fsck)"))
    }

    @Test("two items with the same name in one folder, or the same UUID, are refused")
    func duplicates() throws {
        let other = "aaaaaaaa-0000-4000-8000-000000000001"
        let text = store(
            child:
                #"{"uuid": "\#(childID)", "type": "folder", "name": "Same", "parent": "\#(rootID)", "created": "2023-11-14T22:13:20Z", "children": []}, {"uuid": "\#(other)", "type": "folder", "name": "Same", "parent": "\#(rootID)", "created": "2023-11-14T22:13:20Z", "children": []}"#,
            rootChildren: "[\"\(childID)\", \"\(other)\"]")
        #expect(
            corruptReason(text)
                == "broken links: folder \(rootID) holds more than one item named \"Same\"; run recnotes fsck")
        // Different case is a different name.
        let cased = text.replacingOccurrences(
            of: #""uuid": "\#(other)", "type": "folder", "name": "Same""#,
            with: #""uuid": "\#(other)", "type": "folder", "name": "same""#)
        #expect(cased != text)
        #expect(try decode(cased).0.children(of: .root).map(\.name) == ["Same", "same"])
        let sameID = store(
            child:
                #"{"uuid": "\#(childID)", "type": "folder", "name": "A", "parent": "\#(rootID)", "created": "2023-11-14T22:13:20Z", "children": []}, {"uuid": "\#(childID)", "type": "folder", "name": "B", "parent": "\#(rootID)", "created": "2023-11-14T22:13:20Z", "children": []}"#
        )
        #expect(corruptReason(sameID)?.hasPrefix("broken links: uuid \(childID) is used by more than one item") == true)
    }

    @Test("an invalid name in the file is refused with the rule")
    func invalidStoredName() throws {
        let text = store(
            child:
                #"{"uuid": "\#(childID)", "type": "folder", "name": "a/b", "parent": "\#(rootID)", "created": "2023-11-14T22:13:20Z", "children": []}"#
        )
        #expect(
            corruptReason(text)
                == "corrupt JSON at line 5, column 1: item \(childID) has an invalid name: a name cannot contain '/'")
    }
}
