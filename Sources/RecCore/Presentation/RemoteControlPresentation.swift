extension RemoteControl.Status {
    /// `recording  /Ideas/standup  00:00:12  paused  pid 4242`
    public var line: String {
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
    public static func status(_ statuses: [RemoteControl.Status]) -> String {
        var w = JSONWriter()
        w.raw("{")
        for (i, job) in ViewState.Job.allCases.enumerated() {
            if i > 0 { w.raw(", ") }
            w.raw(job == .recording ? "\"recording\": " : "\"playing\": ")
            if let s = statuses.first(where: { $0.job == job }) {
                writeStatus(s, to: &w)
            } else {
                w.raw("null")
            }
        }
        w.raw("}")
        return String(decoding: w.bytes, as: UTF8.self)
    }

    public static func status(_ s: RemoteControl.Status) -> String {
        var w = JSONWriter()
        writeStatus(s, to: &w)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// What a remote `mark --json` prints: the job's status, and under `marker` the marker
    /// it added, as `marks --json` names one.
    public static func marked(_ s: RemoteControl.Status, _ added: RemoteControl.AddedMarker?) -> String {
        var w = JSONWriter()
        writeStatus(s, to: &w) { w in
            w.raw(", \"marker\": ")
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
        w.raw("{\"state\": ")
        w.string(s.job == .recording ? "recording" : "playing")
        w.raw(", \"uuid\": ")
        w.id(s.id)
        w.raw(", \"path\": ")
        w.string(s.path)
        w.raw(", \"position\": ")
        w.double((s.position * 1000).rounded() / 1000)
        if let duration = s.duration {
            w.raw(", \"duration\": ")
            w.double(duration)
        }
        if let speed = s.speed {
            w.raw(", \"speed\": ")
            w.double(speed.factor)
        }
        w.raw(", \"paused\": ")
        w.bool(s.paused)
        w.raw(", \"suspended\": ")
        w.bool(s.suspended)
        w.raw(", \"pid\": ")
        w.int(s.pid)
        w.raw(", \"pending\": ")
        w.int(s.pending)
        extra(&w)
        w.raw("}")
    }
}

extension ItemJSON {
    /// What `stop --json` prints once the job is over.
    public static func stopped(_ job: ViewState.Job, id: ItemID, path: String) -> String {
        var w = JSONWriter()
        w.raw("{\"stopped\": ")
        w.string(job == .recording ? "recording" : "playing")
        w.raw(", \"uuid\": ")
        w.id(id)
        w.raw(", \"path\": ")
        w.string(path)
        w.raw("}")
        return String(decoding: w.bytes, as: UTF8.self)
    }
}
