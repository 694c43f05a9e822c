import RecAudio
import RecStore
import RecValues

/// How audio values read to a person: level bars, progress bars, decibels. The terminal
/// renderer decides where they go; these decide the text.
extension Format {
    /// `-12.3 dBFS`; silence reads `-inf dBFS`.
    package static func decibels(_ db: Double) -> String {
        if db <= Level.floor { return "-inf dBFS" }
        let tenths = Int((db * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        return "\(sign)\(abs(tenths) / 10).\(abs(tenths) % 10) dBFS"
    }

    /// `-18.2 LUFS, range 6.1 LU, true peak -1.3 dBTP` (`info`): EBU R128's three figures to
    /// 0.1, as meters show them; a recording with nothing above R128's gate reads `below -70
    /// LUFS`.
    package static func loudness(_ loudness: Loudness) -> String {
        func tenths(_ value: Double) -> String {
            let tenths = Int((value * 10).rounded())
            return "\(tenths < 0 ? "-" : "")\(abs(tenths) / 10).\(abs(tenths) % 10)"
        }
        let integrated =
            loudness.integrated <= Loudness.gate
            ? "below \(tenths(Loudness.gate)) LUFS" : "\(tenths(loudness.integrated)) LUFS"
        let peak = loudness.truePeak <= Level.floor ? "-inf" : tenths(loudness.truePeak)
        return "\(integrated), range \(tenths(loudness.range)) LU, true peak \(peak) dBTP"
    }

    /// `00:00:01.25 to 00:00:42.50, 00:41 of 00:50`: trim points to the hundredth (`info`,
    /// `trim`), and how much of the recording plays between them.
    package static func trim(_ trim: TrimPoints, info: RecordingInfo) -> String {
        let rate = Double(max(info.sampleRate, 1))
        let kept = Double(trim.frames) / rate
        return "\(preciseClock(Double(trim.inFrame) / rate)) to \(preciseClock(Double(trim.outFrame) / rate)), "
            + "\(duration(kept)) of \(duration(info.duration))"
    }

    /// What the record line says of a gated recording: `waiting for voice`, or
    /// `silence 00:03 / 00:05` once a silence has lasted a second; nil otherwise.
    package static func voice(_ state: VoiceState) -> String? {
        if state.waiting { return "waiting for voice" }
        guard let limit = state.silenceLimit, state.silence >= 1 else { return nil }
        return "silence \(duration(state.silence)) / \(duration(limit))"
    }

    /// `02:31 of 05:00, 14 regions`: how much of a recording is speech (`info`).
    package static func speech(_ analysis: AudioAnalysis) -> String {
        let rate = Double(max(analysis.sampleRate, 1))
        let count = analysis.speech.count
        return "\(duration(Double(analysis.speechFrames) / rate)) of \(duration(Double(analysis.frames) / rate)), "
            + Format.count(count, "region")
    }

    /// A level meter `width` cells wide over -60...0 dBFS: `███████▌░░░░░░░░`. Each cell is
    /// 60/width dB; the last partial cell is drawn with a half block.
    package static func levelBar(_ db: Double, width: Int = 20) -> String {
        guard width > 0 else { return "" }
        let fraction = min(max((db + 60) / 60, 0), 1)
        let halves = Int((fraction * Double(width * 2)).rounded(.down))
        let full = halves / 2
        var text = String(repeating: "█", count: full)
        if halves % 2 == 1 { text += "▌" }
        text += String(repeating: "░", count: width - full - (halves % 2))
        return text
    }

    /// `[======>-----]`: how far through something we are, `width` cells inside the brackets.
    package static func progressBar(_ fraction: Double, width: Int = 30) -> String {
        guard width > 0 else { return "[]" }
        let f = fraction.isFinite ? min(max(fraction, 0), 1) : 0
        let done = Int((f * Double(width)).rounded(.down))
        if done >= width { return "[" + String(repeating: "=", count: width) + "]" }
        return "[" + String(repeating: "=", count: done) + ">" + String(repeating: "-", count: width - done - 1) + "]"
    }

    /// `Recording 2026-11-22 03.06.52`, in local time: the name a recording gets when none is given.
    package static func defaultRecordingName(_ t: Timestamp) -> String {
        let c = t.localComponents
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "Recording \(c.year)-\(two(c.month))-\(two(c.day)) \(two(c.hour)).\(two(c.minute)).\(two(c.second))"
    }
}

/// The NDJSON that `--progress json` writes: one object per event, one event per line.
/// Keys: `event`, then `frames` and `seconds` (the position), and per event
/// `peakDBFS`/`rmsDBFS`/`bytes`/`totalFrames`/`totalSeconds` (progress; a recording with
/// `--start-on-voice` or `--stop-on-silence` adds `voice` ("waiting" or "listening"),
/// `silenceSeconds` and `silenceLimitSeconds`), `fromFrames`/
/// `fromSeconds` (seeked), `count` (xrun), `xruns`/`overruns` (finished), `message` (failed),
/// `device`/`file`/`sampleRate`/`channels` (started). Import and export (`transcoding`)
/// name `source`/`destination` instead of `device`/`file`, and leave out the device's
/// `xruns`/`overruns`.
package enum AudioEventJSON {
    /// `time`, when given, is when the event was sent (seconds since the Unix epoch): with
    /// it a listener can measure how soon a remote command showed in the stream.
    package static func line(_ event: AudioEvent, time: Double? = nil, transcoding: Bool = false) -> String {
        var w = JSONWriter()
        w.beginObject()
        w.field("event", event.name)
        if let time { w.field("time", (time * 1000).rounded() / 1000) }
        func position(_ p: AudioPosition, _ frames: StaticString = "frames", _ seconds: StaticString = "seconds") {
            w.field(frames, p.frames)
            w.field(seconds, (p.seconds * 1000).rounded() / 1000)
        }
        func level(_ l: Level) {
            w.field("peakDBFS", (l.peak * 100).rounded() / 100)
            w.field("rmsDBFS", (l.rms * 100).rounded() / 100)
        }
        switch event {
        case .started(let s):
            position(s.position)
            if let total = s.total { position(total, "totalFrames", "totalSeconds") }
            if transcoding {
                w.field("source", s.device)
                w.field("destination", s.file)
            } else {
                w.field("device", s.device)
                w.field("file", s.file)
            }
            w.field("sampleRate", s.sampleRate)
            w.field("channels", s.channels)
            if let speed = s.speed { w.field("speed", speed.factor) }
        case .progress(let p):
            position(p.position)
            if let total = p.total { position(total, "totalFrames", "totalSeconds") }
            level(p.level)
            if let bytes = p.bytes { w.field("bytes", bytes) }
            if let voice = p.voice {
                w.field("voice", voice.waiting ? "waiting" : "listening")
                w.field("silenceSeconds", (voice.silence * 1000).rounded() / 1000)
                if let limit = voice.silenceLimit { w.field("silenceLimitSeconds", limit) }
            }
        case .paused(let p), .resumed(let p):
            position(p)
        case .seeked(let from, let to):
            position(to)
            position(from, "fromFrames", "fromSeconds")
        case .xrun(let p, let count):
            position(p)
            w.field("count", count)
        case .finished(let f):
            position(f.position)
            level(f.level)
            if !transcoding {
                w.field("xruns", f.xruns)
                w.field("overruns", f.overruns)
            }
        case .failed(let p, let message):
            position(p)
            w.field("message", message)
        case .marked(let p, let label):
            position(p)
            w.field("label", label)
        case .speedChanged(let p, let speed):
            position(p)
            w.field("speed", speed.factor)
        case .words(let segment):
            // Seconds to the millisecond, as the transcript keeps them; each sent once, final.
            w.field("start", ((segment.start ?? 0) * 1000).rounded() / 1000)
            w.field("end", ((segment.end ?? 0) * 1000).rounded() / 1000)
            w.field("text", segment.text)
            w.field("final", true)
        }
        w.endObject()
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// The last line `record --progress json` writes once the recording is in the store.
    package static func saved(_ item: Item, in library: Library) -> String {
        var w = JSONWriter()
        w.beginObject()
        w.field("event", "saved")
        w.key("item")
        ItemJSON.write(item, in: library, to: &w)
        w.endObject()
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// The line `record --progress json` writes when the recording was discarded at the
    /// name prompt: it went to the trash, under `trashPath`.
    package static func discarded(trashPath: String) -> String {
        var w = JSONWriter()
        w.beginObject()
        w.field("event", "discarded")
        w.field("trashPath", trashPath)
        w.endObject()
        return String(decoding: w.bytes, as: UTF8.self)
    }
}
