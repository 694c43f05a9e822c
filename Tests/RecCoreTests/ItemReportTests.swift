import RecStore
import RecTestSupport
import Testing

@testable import RecCore

/// `info`'s report and rows, without the CLI: the fixture store (Work/Ideas/standup, a
/// 12.5 s recording whose audio is not here, and Home).
@Suite("Item report")
struct ItemReportTests {
    let dir: TemporaryDirectory

    init() throws {
        dir = try TemporaryDirectory()
        let store = try DocumentStore(location: dir.location)
        try store.transaction { tx in
            try Fixture.build(into: &tx)
            try tx.setTrim(at: "/Work/Ideas/standup", in: "1.5", out: "-2s", from: .root)
            try tx.addMarker(at: "/Work/Ideas/standup", time: "2.25", label: "budget", from: .root)
            try tx.addMarker(at: "/Work/Ideas/standup", time: "1", label: "", from: .root)
        }
    }

    /// The value of the row labelled `label`, and of the unlabelled rows after it.
    func values(_ rows: [[String]], _ label: String) -> [String] {
        guard let start = rows.firstIndex(where: { $0.first == label }) else { return [] }
        return [rows[start][1]] + rows[(start + 1)...].prefix { $0.first == "" }.map { $0[1] }
    }

    @Test("a folder's rows count what it holds, in all, and their total duration")
    func folder() throws {
        let library = try Library(location: dir.location)
        let report = library.report(on: try library.item(at: "/Work"), copies: true)
        #expect(report.analysis == nil && report.transcript == nil && report.copies == nil)
        #expect(report.warnings.isEmpty)
        let rows = report.rows(in: library)
        #expect(rows.first == ["name:", "Work"])
        #expect(values(rows, "type:") == ["folder"])
        #expect(values(rows, "path:") == ["/Work"])
        #expect(values(rows, "contains:") == ["1 item (1 folders and 1 recordings in all)"])
        #expect(values(rows, "total:") == ["00:12"])
        #expect(values(rows, "duration:").isEmpty && values(rows, "markers:").isEmpty)
    }

    @Test("a recording's rows: trim points and what plays, missing audio, markers in time order")
    func recording() throws {
        let library = try Library(location: dir.location)
        let item = try library.item(at: "/Work/Ideas/standup")
        let report = library.report(on: item, copies: false)
        // The audio is not here: what store.json keeps of its analysis, and no warning (the
        // size row says so).
        #expect(report.analysis == item.recording?.analysis && report.warnings.isEmpty)
        let rows = report.rows(in: library)
        #expect(values(rows, "duration:") == ["00:12 (12.5 s, 600000 frames)"])
        #expect(values(rows, "trimmed:") == ["00:00:01.50 to 00:00:10.50, 00:09 of 00:12"])
        #expect(values(rows, "size:") == ["missing"])
        #expect(values(rows, "markers:") == ["#1  00:00:01.00  ", "#2  00:00:02.25  budget"])
        #expect(values(rows, "contains:").isEmpty && values(rows, "copies:").isEmpty)
        // The trim row follows the duration's, as `info` has always shown them.
        let labels = rows.map { $0[0] }
        #expect(labels.firstIndex(of: "trimmed:") == labels.firstIndex(of: "duration:").map { $0 + 1 })
    }
}
