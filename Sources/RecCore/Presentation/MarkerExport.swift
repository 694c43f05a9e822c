import RecStore
import RecValues

/// A recording's markers as other programs read chapters (`export --markers FORMAT`).
/// Each marker starts a chapter that runs to the next marker or the end; a recording whose
/// first marker is later than its start gets a first chapter, "Start", so that the
/// chapters cover all of it.
package enum MarkerExport: String, CaseIterable, Sendable {
    /// A cue sheet (CDRWIN): one TRACK per chapter, INDEX 01 in minutes:seconds:frames
    /// (75 a second), as shntool and cuetools read it.
    case cue
    /// WebVTT chapters: one cue per chapter.
    case vtt
    /// FFmpeg's metadata file: `ffmpeg -i audio -i chapters.txt -map_metadata 1 ...`.
    case ffmetadata
    /// `{"name", "sampleRate", "duration", "markers": [{"index", "frame", "seconds", "label"}]}`.
    case json

    package struct Chapter: Equatable, Sendable {
        package var start: Int64
        package var end: Int64
        package var title: String
    }

    /// The chapters the markers of a recording of `frames` frames make.
    package static func chapters(_ markers: [Marker], frames: Int64) -> [Chapter] {
        var starts = markers.enumerated().map {
            (
                frame: min($0.element.frame, frames),
                title: $0.element.label.isEmpty ? "Marker \($0.offset + 1)" : $0.element.label
            )
        }
        if starts.first.map({ $0.frame > 0 }) ?? true { starts.insert((frame: 0, title: "Start"), at: 0) }
        return starts.enumerated().map { i, start in
            Chapter(start: start.frame, end: i + 1 < starts.count ? starts[i + 1].frame : frames, title: start.title)
        }
    }

    /// The file's text. `audioFile` is what a cue sheet's FILE line names.
    package func render(name: String, info: RecordingInfo, markers: [Marker], audioFile: String) -> String {
        let chapters = Self.chapters(markers, frames: info.frames)
        let rate = Int64(max(info.sampleRate, 1))
        switch self {
        case .cue:
            var text = "TITLE \(Self.cueQuoted(name))\nFILE \(Self.cueQuoted(audioFile)) WAVE\n"
            for (i, chapter) in chapters.enumerated() {
                let cueFrames = chapter.start * 75 / rate
                let (minutes, seconds, frames) = (cueFrames / 75 / 60, cueFrames / 75 % 60, cueFrames % 75)
                text += "  TRACK \(Self.pad(Int64(i + 1), 2)) AUDIO\n    TITLE \(Self.cueQuoted(chapter.title))\n"
                text += "    INDEX 01 \(Self.pad(minutes, 2)):\(Self.pad(seconds, 2)):\(Self.pad(frames, 2))\n"
            }
            return text
        case .vtt:
            var text = "WEBVTT\n"
            for (i, chapter) in chapters.enumerated() {
                text +=
                    "\n\(i + 1)\n\(Self.vttTime(chapter.start, rate: rate)) --> \(Self.vttTime(chapter.end, rate: rate))\n"
                text += Self.vttEscaped(chapter.title) + "\n"
            }
            return text
        case .ffmetadata:
            var text = ";FFMETADATA1\ntitle=\(Self.ffEscaped(name))\n"
            for chapter in chapters {
                text +=
                    "\n[CHAPTER]\nTIMEBASE=1/\(rate)\nSTART=\(chapter.start)\nEND=\(chapter.end)\ntitle=\(Self.ffEscaped(chapter.title))\n"
            }
            return text
        case .json:
            var w = JSONWriter()
            w.beginObject()
            w.field("name", name)
            w.field("sampleRate", info.sampleRate)
            w.field("duration", info.duration)
            w.key("markers")
            Self.writeList(markers, sampleRate: info.sampleRate, to: &w)
            w.endObject()
            w.raw("\n")
            return String(decoding: w.bytes, as: UTF8.self)
        }
    }

    /// `{"index": 1, "frame": 48000, "seconds": 1.0, "label": "budget"}`: how every JSON
    /// output names a marker.
    /// The markers as `marks --json` and `export --markers json` list them, numbered from 1.
    /// A loop, not `JSONWriter.array` of the numbered markers: that copied them into an
    /// array of pairs and ran the generic `array` unspecialised (a fifth of writing
    /// `find --json`'s hits, five markers each).
    static func writeList(_ markers: [Marker], sampleRate: Int, to w: inout JSONWriter) {
        w.raw("[")
        for i in markers.indices {
            if i > 0 { w.raw(", ") }
            writeMarker(markers[i], index: i + 1, sampleRate: sampleRate, to: &w)
        }
        w.raw("]")
    }

    static func writeMarker(_ marker: Marker, index: Int, sampleRate: Int, to w: inout JSONWriter) {
        w.beginObject()
        w.field("index", index)
        w.field("frame", marker.frame)
        w.field("seconds", (marker.seconds(sampleRate: sampleRate) * 1000).rounded() / 1000)
        w.field("label", marker.label)
        w.endObject()
    }

    private static func pad(_ n: Int64, _ width: Int) -> String {
        let digits = String(n)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// `HH:MM:SS.mmm`, the frame's time in whole milliseconds (rounded down).
    private static func vttTime(_ frame: Int64, rate: Int64) -> String {
        TranscriptFormat.clock(milliseconds: frame * 1000 / rate, vtt: true)
    }

    /// WebVTT cue text escapes `&`, `<` and `>` as HTML does (so "-->" cannot read as a
    /// timing line); titles are one line already (labels and names have no line breaks).
    private static func vttEscaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case _ where character.isNewline: out += " "
            default: out.append(character)
            }
        }
        return out
    }

    /// Cue sheets have no escapes: a double quote becomes a single one, a line break a space.
    private static func cueQuoted(_ text: String) -> String {
        "\"" + text.map { $0 == "\"" ? "'" : $0.isNewline ? " " : $0 }.map(String.init).joined() + "\""
    }

    /// FFmpeg metadata escapes `=`, `;`, `#`, `\` and line breaks with a backslash.
    private static func ffEscaped(_ text: String) -> String {
        var out = ""
        for character in text {
            if "=;#\\".contains(character) || character.isNewline { out.append("\\") }
            out.append(character)
        }
        return out
    }
}
