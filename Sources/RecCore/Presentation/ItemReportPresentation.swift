import RecStore
import RecValues

/// `info`'s two forms of an `ItemReport`: the JSON object, and the label-and-value rows of
/// its table.
extension ItemReport {
    /// `info --json`: `ItemJSON.object` with the analysis, and for a recording the
    /// transcript's summary (null when there is none) and, in a store that syncs, its copies
    /// (the key is left out elsewhere).
    package func json(in library: Library) -> String {
        ItemJSON.object(
            item, in: library, analysis: analysis, transcript: item.recording != nil ? .some(transcript) : nil,
            copies: copies)
    }

    /// `["name:", "standup"]`, … : what the item is, its audio or its contents, its
    /// transcript's first lines, then tags, note and markers.
    package func rows(in library: Library) -> [[String]] {
        let document = library.document
        var rows: [[String]] = [
            ["name:", item.name],
            ["type:", item.kind.rawValue],
            ["path:", document.path(of: item.id)],
            ["uuid:", item.id.description],
            ["created:", "\(Format.date(item.created)) (\(item.created.iso8601))"],
        ]
        if let info = item.recording {
            rows.append(["duration:", "\(Format.duration(info.duration)) (\(info.duration) s, \(info.frames) frames)"])
            if let trim = item.annotations.trim {
                // The trim points and what plays between them.
                rows.append(["trimmed:", Format.trim(trim, info: info)])
            }
            if !item.annotations.enhance.isOff {
                // As `play` and `export` apply it ('recnotes enhance').
                rows.append(["enhanced:", item.annotations.enhance.description])
            }
            rows += [
                [
                    "format:",
                    "\(info.format.rawValue), \(info.sampleRate) Hz, \(info.channels) channel\(info.channels == 1 ? "" : "s")",
                ],
                ["file:", library.location.audioPath(info.file)],
                [
                    "size:",
                    library.audioSize(of: item).map { "\(Format.size($0)) (\($0) bytes)" }
                        ?? (library.location.audioIsElsewhere(info.file) ? "not here" : "missing"),
                ],
            ]
            // Where the audio is, in a store that syncs: `copies: here, hub, desktop`.
            if let copies {
                rows.append(["copies:", copies.isEmpty ? "none known" : copies.joined(separator: ", ")])
            }
            if let analysis { rows += Self.analysisRows(analysis) }
        } else {
            let all = library.contents(of: item)
            rows += [
                [
                    "contains:",
                    "\(Format.count(item.children.count, "item")) (\(all.folders) folders and \(all.recordings) recordings in all)",
                ],
                ["total:", Format.duration(all.duration)],
            ]
        }
        if let transcript { rows += Self.transcriptRows(transcript) }
        return rows + Self.annotationRows(item)
    }

    /// Level, loudness (when measured), waveform, and under the waveform where the speech is,
    /// then how much.
    private static func analysisRows(_ analysis: AudioAnalysis) -> [[String]] {
        [
            ["level:", "peak \(Format.decibels(analysis.level.peak)), RMS \(Format.decibels(analysis.level.rms))"]
        ] + (analysis.loudness.map { [["loudness:", Format.loudness($0)]] } ?? []) + [
            ["waveform:", "▕" + Sparkline.render(analysis.peaks) + "▏"],
            [
                "speech:",
                " " + Sparkline.speechMarks(analysis.speech, frames: analysis.frames, buckets: analysis.peaks.count)
                    + "  " + Format.speech(analysis),
            ],
        ]
    }

    /// Engine, model, quality, date and size, then the first segments.
    private static func transcriptRows(_ transcript: Transcript) -> [[String]] {
        let quality = transcript.quality == .draft ? ", draft" : ""
        var rows = [
            [
                "transcript:",
                "\(transcript.engine)\(transcript.model.isEmpty ? "" : " (\(transcript.model))")\(quality), \(Format.date(transcript.created)), \(Format.count(transcript.segments.count, "segment"))",
            ]
        ]
        for segment in transcript.segments.prefix(TranscriptJSON.previewLines) {
            rows.append(["", "\(segment.start.map(Format.clock) ?? "")  \(segment.text)"])
        }
        if transcript.segments.count > TranscriptJSON.previewLines {
            rows.append(["", "… (recnotes transcript PATH)"])
        }
        return rows
    }

    /// Tags, the note's first lines and the markers.
    private static func annotationRows(_ item: Item) -> [[String]] {
        var rows: [[String]] = []
        let a = item.annotations
        if !a.tags.isEmpty { rows.append(["tags:", a.tags.map { "+" + $0 }.joined(separator: " ")]) }
        let noteLines = a.note.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (i, line) in noteLines.prefix(5).enumerated() where !a.note.isEmpty {
            rows.append([i == 0 ? "note:" : "", line])
        }
        if noteLines.count > 5 { rows.append(["", "… (\(noteLines.count - 5) more lines; recnotes note PATH)"]) }
        let rate = item.recording?.sampleRate ?? 1
        for (i, marker) in a.markers.enumerated() {
            rows.append([
                i == 0 ? "markers:" : "",
                "#\(i + 1)  \(Format.preciseClock(marker.seconds(sampleRate: rate)))  \(marker.label)",
            ])
        }
        return rows
    }
}
