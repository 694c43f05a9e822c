/// A transcript as a file: plain text, subtitles (SRT, WebVTT) or JSON. Segments without
/// times (an engine that printed plain text) get none in JSON, and in subtitles run from
/// the end of the previous segment to `duration`, when it is known.
package enum TranscriptFormat: String, CaseIterable, Sendable {
    case txt
    case srt
    case vtt
    /// The stored form (`TranscriptCodec`): `{"engine", "model", "created", "quality", "segments": [{"start", "end", "text",
    /// "words": [{"start", "end", "text"}]}]}`; times in seconds, "start"/"end" null when unknown.
    case json

    package func render(_ transcript: Transcript, duration: Double? = nil) -> String {
        switch self {
        case .txt:
            return transcript.segments.map { $0.text + "\n" }.joined()
        case .srt, .vtt:
            var text = self == .vtt ? "WEBVTT\n" : ""
            var previousEnd = 0.0
            for (i, segment) in transcript.segments.enumerated() {
                let start = segment.start ?? previousEnd
                let end = max(start, segment.end ?? duration ?? start)
                previousEnd = end
                if self == .vtt { text += "\n" }
                text += "\(i + 1)\n\(Self.clock(start, vtt: self == .vtt)) --> \(Self.clock(end, vtt: self == .vtt))\n"
                // A cue ends at a blank line, and "-->" would read as a timing line.
                text += segment.text.pieces(separatedBy: "-->").joined(separator: "->") + "\n"
                if self == .srt { text += "\n" }
            }
            return text
        case .json:
            return TranscriptCodec.encode(transcript)
        }
    }

    /// A segment a line, each after its start as `[01:23]` (`[--:--]` when it has none): what
    /// `transcript --edit` shows in the editor and what a summarizer reads on its input.
    package static func timedLines(_ transcript: Transcript) -> String {
        transcript.segments.map { "[\($0.start.map(Format.duration) ?? "--:--")] \($0.text)\n" }.joined()
    }

    /// `00:01:02,345` (SRT) or `00:01:02.345` (WebVTT).
    static func clock(_ seconds: Double, vtt: Bool) -> String {
        clock(milliseconds: Int64((max(0, seconds) * 1000).rounded()), vtt: vtt)
    }

    /// The same clock of a time in whole milliseconds (`MarkerExport`'s chapters, from frames).
    package static func clock(milliseconds ms: Int64, vtt: Bool) -> String {
        func pad(_ v: Int64, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return
            "\(pad(ms / 3_600_000, 2)):\(pad(ms / 60_000 % 60, 2)):\(pad(ms / 1000 % 60, 2))\(vtt ? "." : ",")\(pad(ms % 1000, 3))"
    }
}
