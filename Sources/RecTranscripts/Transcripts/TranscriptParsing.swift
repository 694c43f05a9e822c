import RecValues

/// What an external engine printed, read back as segments. The format is detected from
/// the text itself, so that any command that prints one of these works:
///
/// - whisper.cpp's JSON (`-oj`'s file, or on stdout): `transcription[].offsets.from/to`
///   in milliseconds and `text`;
/// - WebVTT (`WEBVTT` first) and SRT (a cue number, then a `-->` timing line);
/// - whisper.cpp's console lines, `[00:00:01.000 --> 00:00:03.500]  text`;
/// - plain text: one segment without times.
///
/// Anything else, and any text that is not valid UTF-8 or holds control characters, is
/// refused as garbage rather than stored as a transcript.
package enum TranscriptOutput: String, Sendable, CaseIterable {
    case whisperJSON = "whisper-json"
    case vtt
    case srt
    case whisperConsole = "whisper-console"
    case plain

    /// Why the output could not be read, in a few words for `recnotes: transcribe: <engine>: <why>`.
    package struct Unreadable: Error, Equatable, Sendable {
        package var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// The format of `bytes`, detected from its first non-blank line.
    package static func detect(_ text: String) -> TranscriptOutput {
        let lines = text.split(omittingEmptySubsequences: true) { $0 == "\n" || $0 == "\r\n" }
            .map { $0.trimmingBlanks() }.filter { !$0.isEmpty }
        guard let first = lines.first else { return .plain }
        if first.hasPrefix("{") { return .whisperJSON }
        if first == "WEBVTT" || first.hasPrefix("WEBVTT ") || first.hasPrefix("WEBVTT\t") { return .vtt }
        if first.hasPrefix("["), first.contains("-->") { return .whisperConsole }
        if Int(first) != nil, lines.count > 1, lines[1].contains("-->") { return .srt }
        return .plain
    }

    /// Detects the format and reads the segments.
    package static func parse(_ bytes: [UInt8]) throws(Unreadable) -> (
        format: TranscriptOutput, segments: [Transcript.Segment]
    ) {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        guard let text = String(validating: body, as: UTF8.self) else { throw Unreadable("output is not UTF-8 text") }
        if text.unicodeScalars.contains(where: {
            ($0.value < 0x20 && $0 != "\n" && $0 != "\r" && $0 != "\t") || $0.value == 0x7F
        }) {
            throw Unreadable("output holds control characters (not a transcript)")
        }
        guard text.contains(where: { !$0.isWhitespace }) else { throw Unreadable("no output") }
        let format = detect(text)
        let segments: [Transcript.Segment]
        switch format {
        case .whisperJSON: segments = try parseWhisperJSON(Array(body))
        case .vtt: segments = try parseCues(text, vtt: true)
        case .srt: segments = try parseCues(text, vtt: false)
        case .whisperConsole: segments = try parseConsole(text)
        case .plain: segments = [Transcript.Segment(start: nil, end: nil, text: collapse(text))]
        }
        return (format, segments)
    }

    // MARK: whisper.cpp JSON

    static func parseWhisperJSON(_ bytes: [UInt8]) throws(Unreadable) -> [Transcript.Segment] {
        do {
            return try bytes.withUnsafeBufferPointer { buffer in
                var r = JSONReader(buffer)
                var segments: [Transcript.Segment]?
                try r.beginObject()
                var first = true
                while let key = try r.nextKey(first: &first) {
                    guard String(decoding: key, as: UTF8.self) == "transcription" else {
                        try r.skipValue()
                        continue
                    }
                    segments = try readTranscription(&r)
                }
                try r.finish()
                guard let segments else {
                    throw Unreadable("JSON without a \"transcription\" array (not whisper.cpp's output)")
                }
                return segments
            }
        } catch let error as Unreadable {
            throw error
        } catch let error as JSONReader.Failure {
            throw Unreadable("bad JSON at line \(error.line), column \(error.column): \(error.message)")
        } catch {
            throw Unreadable("bad JSON")
        }
    }

    private static func readTranscription(_ r: inout JSONReader) throws -> [Transcript.Segment] {
        var segments: [Transcript.Segment] = []
        try r.beginArray()
        var firstElement = true
        while try r.nextElement(first: &firstElement) {
            var from: Double?
            var to: Double?
            var text: String?
            try r.beginObject()
            var first = true
            while let key = try r.nextKey(first: &first) {
                switch String(decoding: key, as: UTF8.self) {
                case "text": text = try r.readString()
                case "offsets":
                    try r.beginObject()
                    var firstOffset = true
                    while let offsetKey = try r.nextKey(first: &firstOffset) {
                        switch String(decoding: offsetKey, as: UTF8.self) {
                        case "from": from = try r.readDouble() / 1000
                        case "to": to = try r.readDouble() / 1000
                        default: try r.skipValue()
                        }
                    }
                default: try r.skipValue()
                }
            }
            guard let text else { throw Unreadable("a transcription entry has no \"text\"") }
            guard let from, let to, from >= 0, to >= from else {
                throw Unreadable("a transcription entry has no valid \"offsets\"")
            }
            let trimmed = collapse(text)
            if !trimmed.isEmpty { segments.append(Transcript.Segment(start: from, end: to, text: trimmed)) }
        }
        return segments
    }

    // MARK: WebVTT and SRT

    /// Cues: a timing line `start --> end [settings]`, then text lines up to a blank line.
    /// WebVTT's NOTE, STYLE and REGION blocks and cue identifiers are skipped, as are SRT's numbers.
    static func parseCues(_ text: String, vtt: Bool) throws(Unreadable) -> [Transcript.Segment] {
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }.map {
            $0.trimmingBlanks()
        }
        var segments: [Transcript.Segment] = []
        var i = vtt ? 1 : 0  // WebVTT's header line
        let name = vtt ? "WebVTT" : "SRT"
        while i < lines.count {
            // One block: the lines up to the next blank one.
            var block: [Substring] = []
            while i < lines.count, !lines[i].isEmpty {
                block.append(lines[i])
                i += 1
            }
            while i < lines.count, lines[i].isEmpty { i += 1 }
            guard let first = block.first else { continue }
            if vtt, first.hasPrefix("NOTE") || first == "STYLE" || first == "REGION" { continue }
            guard let timing = block.firstIndex(where: { $0.contains("-->") }), timing <= 1 else {
                if vtt && segments.isEmpty && block.allSatisfy({ !$0.contains("-->") }) { continue }  // header metadata
                throw Unreadable("\(name) block without a timing line: \"\(first.prefix(40))\"")
            }
            let parts = block[timing].pieces(separatedBy: "-->")
            guard parts.count == 2, let start = clockTime(parts[0].trimmingBlanks()),
                let end = clockTime(parts[1].trimmingBlanks().split(separator: " ").first ?? ""), end >= start
            else {
                throw Unreadable("bad \(name) timing line: \"\(block[timing].prefix(60))\"")
            }
            let words = collapse(block[(timing + 1)...].map { stripTags($0) }.joined(separator: " "))
            if !words.isEmpty { segments.append(Transcript.Segment(start: start, end: end, text: words)) }
        }
        guard !segments.isEmpty else { throw Unreadable("\(name) without cues") }
        return segments
    }

    // MARK: whisper.cpp console

    static func parseConsole(_ text: String) throws(Unreadable) -> [Transcript.Segment] {
        var segments: [Transcript.Segment] = []
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = line.trimmingBlanks()
            if line.isEmpty { continue }
            guard line.hasPrefix("["), let close = line.firstIndex(of: "]") else {
                throw Unreadable("a line without a [start --> end] time: \"\(line.prefix(40))\"")
            }
            let parts = line[line.index(after: line.startIndex)..<close].pieces(separatedBy: "-->")
            guard parts.count == 2, let start = clockTime(parts[0].trimmingBlanks()),
                let end = clockTime(parts[1].trimmingBlanks()), end >= start
            else {
                throw Unreadable("bad time: \"\(line[...close])\"")
            }
            let words = collapse(String(line[line.index(after: close)...]))
            if !words.isEmpty { segments.append(Transcript.Segment(start: start, end: end, text: words)) }
        }
        return segments
    }

    // MARK: Pieces

    /// `hh:mm:ss.mmm`, `mm:ss.mmm` (WebVTT) or `hh:mm:ss,mmm` (SRT), in seconds.
    static func clockTime(_ text: some StringProtocol) -> Double? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 2 || fields.count == 3 else { return nil }
        var seconds = 0.0
        for (k, field) in fields.enumerated() {
            if k < fields.count - 1 {
                guard let whole = Int(field), whole >= 0, k == 0 || whole < 60 else { return nil }
                seconds = seconds * 60 + Double(whole)
            } else {
                let parts = field.split(omittingEmptySubsequences: false) { $0 == "." || $0 == "," }
                guard parts.count <= 2, let whole = Int(parts[0]), whole >= 0, whole < 60,
                    parts[0].count == 2, parts[0].allSatisfy(\.isASCII)
                else { return nil }
                var fraction = 0.0
                if parts.count == 2 {
                    guard !parts[1].isEmpty, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }),
                        let digits = Double("0." + parts[1])
                    else { return nil }
                    fraction = digits
                }
                seconds = seconds * 60 + Double(whole) + fraction
            }
        }
        return seconds
    }

    /// Cue text without WebVTT/SRT markup (`<i>`, `<v Speaker>`, `<00:00:01.000>`).
    static func stripTags(_ line: Substring) -> String {
        var out = ""
        var inTag = false
        for c in line {
            if c == "<" { inTag = true } else if c == ">" && inTag { inTag = false } else if !inTag { out.append(c) }
        }
        return out.replacingAll("&amp;", with: "&").replacingAll("&lt;", with: "<").replacingAll("&gt;", with: ">")
    }

    /// Runs of whitespace (newlines included) made one space, and none at the ends.
    static func collapse(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}
