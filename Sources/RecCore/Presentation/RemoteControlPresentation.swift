import RecStore
import RecValues

extension RemoteControl.Status {
    /// `recording  /Ideas/standup  00:00:12  paused  pid 4242`
    package var line: String {
        var position = Format.clock(self.position)
        if let duration { position += " / " + Format.clock(duration) }
        if let speed, !speed.isNormal { position += "  " + speed.description }
        return [
            job == .recording ? "recording" : "playing", path, position,
            suspended ? "suspended" : paused ? "paused" : "running", "pid \(pid)",
        ]
        .joined(separator: "  ")
    }
}

extension ItemJSON {
    /// `{"recording": {...} | null, "playing": {...} | null}`: always both keys, so a
    /// script can ask for either without testing the shape.
    package static func status(_ statuses: [RemoteControl.Status]) -> String {
        var w = JSONWriter()
        w.beginObject()
        for job in ViewState.Job.allCases {
            w.key(job == .recording ? "recording" : "playing")
            if let s = statuses.first(where: { $0.job == job }) {
                writeStatus(s, to: &w)
            } else {
                w.raw("null")
            }
        }
        w.endObject()
        return String(decoding: w.bytes, as: UTF8.self)
    }

    package static func status(_ s: RemoteControl.Status) -> String {
        var w = JSONWriter()
        writeStatus(s, to: &w)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// What a remote `mark --json` prints: the job's status, and under `marker` the marker
    /// it added, as `marks --json` names one.
    package static func marked(_ s: RemoteControl.Status, _ added: RemoteControl.AddedMarker?) -> String {
        var w = JSONWriter()
        writeStatus(s, to: &w) { w in
            w.key("marker")
            if let added {
                MarkerExport.writeMarker(added.marker, index: added.number, sampleRate: added.sampleRate, to: &w)
            } else {
                w.raw("null")
            }
        }
        return String(decoding: w.bytes, as: UTF8.self)
    }

    static func writeStatus(
        _ s: RemoteControl.Status, to w: inout JSONWriter, extra: (inout JSONWriter) -> Void = { _ in }
    ) {
        w.beginObject()
        w.field("state", s.job == .recording ? "recording" : "playing")
        w.field("uuid", s.id)
        w.field("path", s.path)
        w.field("position", (s.position * 1000).rounded() / 1000)
        if let duration = s.duration { w.field("duration", duration) }
        if let speed = s.speed { w.field("speed", speed.factor) }
        w.field("paused", s.paused)
        w.field("suspended", s.suspended)
        w.field("pid", s.pid)
        w.field("pending", s.pending)
        if let words = s.words { w.field("words", words) }
        extra(&w)
        w.endObject()
    }
}

extension ItemJSON {
    /// What `stop --json` prints once the job is over.
    package static func stopped(_ job: ViewState.Job, id: ItemID, path: String) -> String {
        var w = JSONWriter()
        w.beginObject()
        w.field("stopped", job == .recording ? "recording" : "playing")
        w.field("uuid", id)
        w.field("path", path)
        w.endObject()
        return String(decoding: w.bytes, as: UTF8.self)
    }
}
