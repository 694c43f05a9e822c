import ArgumentParser
import RecCore
import RecSync

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show everything known about a folder or recording."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Argument(help: "The item to describe.", completion: .storePath)
    var path: String

    func run() throws {
        let library = try global.openLibrary()
        let item = try library.item(at: path)
        var analysis: AudioAnalysis?
        // A missing file already shows as size "missing" (null in JSON); only a file that is
        // there but unreadable is worth a warning.
        if let info = item.recording, library.audioSize(of: item) != nil {
            let path = library.location.audioPath(info.file)
            do {
                if let stored = info.analysis {
                    // Measured when the audio was saved. Opening reads only the header, so
                    // that damaged audio is still warned about rather than described.
                    _ = try SoundFile.open(path: path)
                    analysis = stored
                } else {
                    // An older store's recording: measured now and not written back (reading
                    // never writes; fsck --repair stores it).
                    analysis = try info.measureAnalysis(path: path)
                }
            } catch {
                // The store's own facts are still worth showing; the audio's are not there.
                Terminal.warning("\(library.inUserTerms(error))")
            }
        }
        var transcript: Transcript?
        if item.recording != nil {
            do {
                transcript = try TranscriptFiles(location: library.location).read(item.id)
            } catch {
                // The rest is still worth showing; `fsck` reports and repairs the file.
                Terminal.warning("\(error)")
            }
        }
        if output.json {
            print(
                ItemJSON.object(
                    item, in: library, analysis: analysis, transcript: item.recording != nil ? .some(transcript) : nil))
            return
        }
        let document = library.document
        var rows: [[String]] = [
            ["name:", item.name],
            ["type:", item.kind.rawValue],
            ["path:", document.path(of: item.id)],
            ["uuid:", item.id.description],
            ["created:", "\(Format.date(item.created)) (\(item.created.iso8601))"],
        ]
        if let info = item.recording {
            rows +=
                [
                    ["duration:", "\(Format.duration(info.duration)) (\(info.duration) s, \(info.frames) frames)"]
                ] + trimRows(item, info) + [
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
            if Annex.isSetUp(library.location),
                let copies = (try? Annex.copies(library.location, files: [info.file]))?[info.file]
            {
                rows.append(["copies:", copies.isEmpty ? "none known" : copies.joined(separator: ", ")])
            }
            if let analysis {
                rows += [
                    [
                        "level:",
                        "peak \(Format.decibels(analysis.level.peak)), RMS \(Format.decibels(analysis.level.rms))",
                    ],
                    ["waveform:", "▕" + Sparkline.render(analysis.peaks) + "▏"],
                    // Under the waveform: where the speech is, then how much.
                    [
                        "speech:",
                        " "
                            + Sparkline.speechMarks(
                                analysis.speech, frames: analysis.frames, buckets: analysis.peaks.count)
                            + "  " + Format.speech(analysis),
                    ],
                ]
            }
        } else {
            let all = document.subtree(of: item.id).dropFirst()
            let recordings = all.compactMap(\.recording)
            let total = recordings.reduce(0) { $0 + $1.duration }
            rows += [
                [
                    "contains:",
                    "\(Format.count(item.children.count, "item")) (\(all.count - recordings.count) folders and \(recordings.count) recordings in all)",
                ],
                ["total:", Format.duration(total)],
            ]
        }
        if let transcript {
            let quality = transcript.quality == .draft ? ", draft" : ""
            rows.append([
                "transcript:",
                "\(transcript.engine)\(transcript.model.isEmpty ? "" : " (\(transcript.model))")\(quality), \(Format.date(transcript.created)), \(Format.count(transcript.segments.count, "segment"))",
            ])
            for segment in transcript.segments.prefix(TranscriptJSON.previewLines) {
                rows.append(["", "\(segment.start.map(Format.clock) ?? "")  \(segment.text)"])
            }
            if transcript.segments.count > TranscriptJSON.previewLines {
                rows.append(["", "… (recnotes transcript PATH)"])
            }
        }
        rows += annotationRows(item)
        for line in Terminal.table(rows) { print(line) }
    }

    /// The trim points and what plays between them.
    private func trimRows(_ item: Item, _ info: RecordingInfo) -> [[String]] {
        guard let trim = item.annotations.trim else { return [] }
        return [["trimmed:", Format.trim(trim, info: info)]]
    }

    /// Tags, the note's first lines and the markers.
    private func annotationRows(_ item: Item) -> [[String]] {
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
