import RecValues

/// A conflict as the merge driver reports it and `sync` shows it: every field text, so that a
/// report written by another release (a kind this one does not know) still reads.
package struct ReportedConflict: Equatable, Sendable {
    package var kind: String
    package var item: String
    package var path: String
    package var kept: String
    package var other: String

    package init(kind: String, item: String, path: String, kept: String, other: String) {
        (self.kind, self.item, self.path, self.kept, self.other) = (kind, item, path, kept, other)
    }

    package init(_ conflict: MergeConflict) {
        self.init(
            kind: conflict.kind.rawValue, item: "\(conflict.item)", path: conflict.path, kept: conflict.kept,
            other: conflict.other)
    }
}

/// The merge report's form, one home for it: `$GIT_DIR/recnotes/merge-report.jsonl` holds one
/// `{"kind", "item", "path", "kept", "other"}` object a line, and `sync --json` lists the same
/// objects under "conflicts".
package enum MergeReportCodec {
    static func write(_ conflict: ReportedConflict, to w: inout JSONWriter) {
        w.beginObject()
        w.field("kind", conflict.kind)
        w.field("item", conflict.item)
        w.field("path", conflict.path)
        w.field("kept", conflict.kept)
        w.field("other", conflict.other)
        w.endObject()
    }

    /// The report's lines for `conflicts`.
    static func encode(_ conflicts: [MergeConflict]) -> [UInt8] {
        var w = JSONWriter()
        for conflict in conflicts {
            write(ReportedConflict(conflict), to: &w)
            w.raw("\n")
        }
        return w.bytes
    }

    /// Every line that parses; a damaged one (a killed writer's) is skipped.
    static func decode(_ bytes: [UInt8]) -> [ReportedConflict] {
        var conflicts: [ReportedConflict] = []
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            var fields: [String: String] = [:]
            let parsed: Void? = Array(line).withUnsafeBufferPointer { buffer in
                var reader = JSONReader(buffer)
                do {
                    try reader.beginObject()
                    var first = true
                    while let key = try reader.nextKey(first: &first) {
                        let name = String(decoding: key, as: UTF8.self)
                        if reader.peek() == UInt8(ascii: "\"") {
                            fields[name] = try reader.readString()
                        } else {
                            try reader.skipValue()
                        }
                    }
                    return ()
                } catch { return nil }
            }
            guard parsed != nil, let kind = fields["kind"] else { continue }
            conflicts.append(
                ReportedConflict(
                    kind: kind, item: fields["item"] ?? "", path: fields["path"] ?? "", kept: fields["kept"] ?? "",
                    other: fields["other"] ?? ""))
        }
        return conflicts
    }
}
