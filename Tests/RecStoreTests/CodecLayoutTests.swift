import Testing

@testable import RecStore

/// The on-disk layouts byte for byte: files with every field of store.json and of
/// viewstate.json in them, as recnotes writes them (the build before the keyed JSONWriter,
/// efd6083, writes these bytes but for version 5's loudness and version 6's enhancement;
/// bench's `recnotes-encode` checks
/// a file against any build).
/// Decoding then encoding must give the same bytes, so that a writer that moves a comma or a
/// space fails here.
@Suite("Codec layouts")
struct CodecLayoutTests {
    static let store = """
        {
        "version": 6,
        "items": [
        {"uuid": "00000000-0000-0000-0000-000000000000", "type": "folder", "name": "Recordings", "parent": null, "created": "2023-11-14T22:13:20.000Z", "children": ["3f2a1111-0000-4000-8000-000000000001"]},
        {"uuid": "3f2a1111-0000-4000-8000-000000000001", "type": "folder", "name": "Work \\"Q4\\"", "parent": "00000000-0000-0000-0000-000000000000", "created": "2023-11-14T22:13:20.000Z", "children": ["beef0000-0000-4000-8000-000000000004"], "tags": ["plans", "work"], "note": "line one\\nsays \\"hi\\"\\tand \\\\ \\u0001", "changed": {"name": "2024-01-02T03:04:05.678Z"}},
        {"uuid": "beef0000-0000-4000-8000-000000000004", "type": "recording", "name": "standup 🎙", "parent": "3f2a1111-0000-4000-8000-000000000001", "created": "2023-11-14T22:13:20.000Z", "duration": 12.5, "frames": 600000, "sampleRate": 48000, "channels": 1, "format": "opus", "file": "beef0000-0000-4000-8000-000000000004.opus", "analysis": {"peak": -3.01, "rms": -20.3, "waveform": [-96, -41.2, -6.5], "speech": [[12000, 120480], [200000, 300000]], "loudness": {"integrated": -18.25, "range": 6.1, "truePeak": -1.3}}, "tags": ["urgent"], "markers": [{"frame": 48000, "id": "cafe0000-0000-4000-8000-000000000001"}, {"frame": 96000, "label": "budget", "id": "cafe0000-0000-4000-8000-000000000002"}], "trim": {"in": 4800, "out": 96000}, "enhance": {"level": true, "denoise": false}, "changed": {"name": "2024-01-02T03:04:05.678Z", "parent": "2024-01-02T03:04:06.000Z", "trim": "2024-01-02T03:04:07.000Z", "enhance": "2024-01-02T03:04:08.000Z"}}
        ],
        "trash": [
        {"uuid": "dead0000-0000-4000-8000-000000000005", "parent": "3f2a1111-0000-4000-8000-000000000001", "path": "/Work \\"Q4\\"/old", "removed": "2024-02-03T04:05:06.007Z", "items": [
          {"uuid": "dead0000-0000-4000-8000-000000000005", "type": "folder", "name": "old", "parent": "3f2a1111-0000-4000-8000-000000000001", "created": "2023-11-14T22:13:20.000Z", "children": ["dead0000-0000-4000-8000-000000000006"], "changed": {"trash": "2024-02-03T04:05:06.007Z"}},
          {"uuid": "dead0000-0000-4000-8000-000000000006", "type": "recording", "name": "take 2", "parent": "dead0000-0000-4000-8000-000000000005", "created": "2023-11-14T22:13:20.000Z", "duration": 0.25, "frames": 11025, "sampleRate": 44100, "channels": 2, "format": "wav", "file": "dead0000-0000-4000-8000-000000000006.wav"}]}
        ]
        }

        """

    @Test("store.json: every field of an item, the trash, escapes")
    func store() throws {
        let bytes = Array(Self.store.utf8)
        let (document, problems) = try bytes.withUnsafeBufferPointer { try DocumentCodec.decode($0) }
        #expect(problems.isEmpty)
        #expect(document.items.count == 3 && document.trash.count == 1)
        let encoded = DocumentCodec.encode(document)
        #expect(encoded == bytes, "\(String(decoding: encoded, as: UTF8.self))")
    }

    static let viewState = """
        {
          "version": 1,
          "folderStack": ["00000000-0000-0000-0000-000000000000", "3f2a1111-0000-4000-8000-000000000001"],
          "selection": {"recording": "beef0000-0000-4000-8000-000000000004", "position": 1.5},
          "recording": {"uuid": "cafe0000-0000-4000-8000-000000000009", "parent": "3f2a1111-0000-4000-8000-000000000001", "name": "live", "file": "", "output": "/tmp/out.flac", "pid": 4242, "started": "2024-01-02T03:04:05.678Z", "format": "flac", "sampleRate": 48000, "channels": 2, "position": 3.25, "markers": [{"frame": 4800, "label": "start"}], "control": {"paused": true, "lastSequence": 13, "reportedAt": "2024-01-02T03:04:09.000Z", "pending": [{"sequence": 8, "action": "pause"}, {"sequence": 9, "action": "seek", "seconds": 2.5}, {"sequence": 10, "action": "skip", "seconds": -5}, {"sequence": 11, "action": "mark", "label": "here"}, {"sequence": 12, "action": "nextMark", "frames": [4800, 96000]}, {"sequence": 13, "action": "stop"}]}},
          "speed": 1.5,
          "playing": {"uuid": "beef0000-0000-4000-8000-000000000004", "pid": 4343, "started": "2024-01-02T03:04:05.000Z", "control": {"paused": false, "lastSequence": 2, "pending": [{"sequence": 1, "action": "speed", "factor": 1.75}, {"sequence": 2, "action": "speedBy", "factor": -0.25}]}}
        }

        """

    @Test("viewstate.json: one key a line, every field of a recording and a playback")
    func viewState() throws {
        let bytes = Array(Self.viewState.utf8)
        let state = try bytes.withUnsafeBufferPointer { try ViewStateCodec.decode($0) }
        #expect(state.recording?.control.pending.count == 6 && state.playing?.control.pending.count == 2)
        #expect(state.speed.factor == 1.5)
        let encoded = ViewStateCodec.encode(state)
        #expect(encoded == bytes, "\(String(decoding: encoded, as: UTF8.self))")
        let empty = ViewStateCodec.encode(ViewState())
        #expect(
            String(decoding: empty, as: UTF8.self)
                == "{\n  \"version\": 1,\n  \"folderStack\": [\"00000000-0000-0000-0000-000000000000\"],\n  \"selection\": null,\n  \"recording\": null,\n  \"speed\": 1,\n  \"playing\": null\n}\n"
        )
    }
}
