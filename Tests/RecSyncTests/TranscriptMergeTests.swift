import RecStore
import RecSystem
import RecTestSupport
import RecValues
import Testing

@testable import RecSync

private func transcript(_ engine: String, _ quality: Transcript.Quality, at ms: Int64, _ text: String = "x")
    -> Transcript
{
    Transcript(
        engine: engine, model: "m", created: Timestamp(millisecondsSinceEpoch: ms), quality: quality,
        segments: [.init(start: 0, end: 1, text: text)])
}

@Test func anEnginesTranscriptBeatsTheBuiltInDraftOtherwiseTheNewer() {
    let draft = transcript("pocketsphinx", .draft, at: 3000)
    let engine = transcript("whisper-cli", .good, at: 1000)
    #expect(!TranscriptMerge.oursIsBetter(draft, engine))
    #expect(TranscriptMerge.oursIsBetter(engine, draft))
    let newer = transcript("whisper-cli", .good, at: 2000)
    #expect(TranscriptMerge.oursIsBetter(newer, engine) && !TranscriptMerge.oursIsBetter(engine, newer))
    // The same rank and time: the same choice whichever side merges.
    let a = transcript("whisper-cli", .good, at: 1000, "a")
    #expect(TranscriptMerge.oursIsBetter(a, engine) != TranscriptMerge.oursIsBetter(engine, a))
    // Corrected by hand: it beats a newer engine's; of two corrections, the newer.
    var corrected = transcript("pocketsphinx", .draft, at: 500)
    corrected.corrected = true
    #expect(TranscriptMerge.oursIsBetter(corrected, newer) && !TranscriptMerge.oursIsBetter(newer, corrected))
    var later = corrected
    later.created = Timestamp(millisecondsSinceEpoch: 900)
    #expect(TranscriptMerge.oursIsBetter(later, corrected) && !TranscriptMerge.oursIsBetter(corrected, later))
}

@Test func transcriptsChangedOnOneSideOrBothMergeByTheRule() throws {
    let dir = try TemporaryDirectory()
    func file(_ t: Transcript?) -> [UInt8] {
        t.map { Array(TranscriptFormat.json.render($0, duration: nil).utf8) } ?? []
    }
    let base = transcript("pocketsphinx", .draft, at: 1000, "base")
    let draft = transcript("pocketsphinx", .draft, at: 3000, "draft")
    let engine = transcript("whisper-cli", .good, at: 2000, "engine")
    let path = "transcripts/4fcf17e2-9df3-4eca-b8c9-34b9bc281c6a.json"
    for (b, o, t, expected, reported) in [
        (base, draft, engine, engine, true), (base, engine, draft, engine, true), (base, base, engine, engine, false),
        (base, draft, base, draft, false), (nil, draft, engine, engine, true),
    ] {
        try dir.write("base", file(b))
        try dir.write("ours", file(o))
        try dir.write("theirs", file(t))
        let conflict = try TranscriptMerge.run(
            base: dir.path + "/base", ours: dir.path + "/ours", theirs: dir.path + "/theirs", repositoryPath: path,
            report: nil, oursName: "laptop", theirsName: "desktop")
        #expect(try TranscriptCodec.decode(dir.bytes("ours")!) == expected)
        #expect((conflict != nil) == reported)
        #expect(
            conflict.map { $0.kind == .transcript && $0.item == ItemID("4fcf17e2-9df3-4eca-b8c9-34b9bc281c6a") }
                != false)
    }
    // Not a transcript: refused, nothing written.
    try dir.write("theirs", Array("garbage".utf8))
    try dir.write("ours", file(draft))
    #expect(throws: RecError.self) {
        try TranscriptMerge.run(
            base: dir.path + "/base", ours: dir.path + "/ours", theirs: dir.path + "/theirs", repositoryPath: path,
            report: nil, oursName: "laptop", theirsName: "desktop")
    }
    #expect(dir.bytes("ours") == file(draft))
}
