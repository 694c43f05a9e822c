import RecValues

/// A recording's analysis (`AudioAnalysis`: levels, waveform, speech) as one field of its
/// line in store.json, compact and still readable with jq:
///
///     "analysis": {"peak": -3.01, "rms": -20.3, "waveform": [-96, -41.2, -6.5, …], "speech": [[12000, 120480], …],
///                  "loudness": {"integrated": -18.2, "range": 6.1, "truePeak": -1.3}}
///
/// `peak` and `rms` are dBFS to 0.01 dB; `waveform` is `AudioAnalysis.waveformPoints` peaks
/// in dBFS to 0.1 dB (-96, `Level.floor`, is silence); `speech` is the regions as
/// [start, end) frame pairs; `loudness` (store version 5; absent in older stores, or where it
/// could not be measured) is EBU R128's integrated loudness (LUFS), loudness range (LU) and
/// true peak (dBTP), to 0.01. Frames and rate are the recording's own fields.
enum AnalysisCodec {
    static func write(_ analysis: AudioAnalysis?, to w: inout JSONWriter) {
        guard let analysis else { return }
        w.key("analysis")
        w.beginObject()
        w.field("peak", analysis.level.peak)
        w.field("rms", analysis.level.rms)
        w.field("waveform", analysis.peaks) { $0.double(Double(AudioAnalysis.tenthsOfDecibel($1)) / 10) }
        w.field("speech", analysis.speech) { $0.array([$1.lowerBound, $1.upperBound]) { $0.int($1) } }
        if let loudness = analysis.loudness {
            w.key("loudness")
            w.beginObject()
            w.field("integrated", loudness.integrated)
            w.field("range", loudness.range)
            w.field("truePeak", loudness.truePeak)
            w.endObject()
        }
        w.endObject()
    }

    /// Reads the object `write` wrote. `frames` and `sampleRate` are filled in by the caller
    /// from the recording's fields.
    static func read(_ r: inout JSONReader) throws -> AudioAnalysis {
        let start = r.position
        var peak: Double?
        var rms: Double?
        var waveform: [Double]?
        var speech: [Range<Int64>] = []
        var loudness: Loudness?
        try r.beginObject()
        var first = true
        while let key = try r.nextKey(first: &first) {
            if key.equals("peak") {
                peak = try r.readDouble()
            } else if key.equals("rms") {
                rms = try r.readDouble()
            } else if key.equals("waveform") {
                var values: [Double] = []
                try r.beginArray()
                var firstValue = true
                while try r.nextElement(first: &firstValue) {
                    values.append(AudioAnalysis.linear(tenthsOfDecibel: Int((try r.readDouble() * 10).rounded())))
                }
                waveform = values
            } else if key.equals("speech") {
                try r.beginArray()
                var firstRegion = true
                while try r.nextElement(first: &firstRegion) {
                    let at = r.position
                    try r.beginArray()
                    var firstBound = true
                    var bounds: [Int64] = []
                    while try r.nextElement(first: &firstBound) { bounds.append(try r.readInt()) }
                    guard bounds.count == 2, bounds[0] >= 0, bounds[0] <= bounds[1] else {
                        throw r.failure("a speech region is a pair of frames [start, end]", at: at)
                    }
                    speech.append(bounds[0]..<bounds[1])
                }
            } else if key.equals("loudness") {
                loudness = try readLoudness(&r)
            } else {
                try r.skipValue()
            }
        }
        guard let peak, let rms, let waveform, peak.isFinite, rms.isFinite else {
            throw r.failure("analysis needs peak, rms and waveform", at: start)
        }
        return AudioAnalysis(
            frames: 0, sampleRate: 0, level: Level(peak: peak, rms: rms), peaks: waveform, speech: speech,
            loudness: loudness)
    }

    /// `{"integrated": …, "range": …, "truePeak": …}`, all three finite.
    private static func readLoudness(_ r: inout JSONReader) throws -> Loudness {
        let start = r.position
        var integrated: Double?
        var range: Double?
        var truePeak: Double?
        try r.beginObject()
        var first = true
        while let key = try r.nextKey(first: &first) {
            if key.equals("integrated") {
                integrated = try r.readDouble()
            } else if key.equals("range") {
                range = try r.readDouble()
            } else if key.equals("truePeak") {
                truePeak = try r.readDouble()
            } else {
                try r.skipValue()
            }
        }
        guard let integrated, let range, let truePeak, integrated.isFinite, range.isFinite, truePeak.isFinite else {
            throw r.failure("loudness needs integrated, range and truePeak", at: start)
        }
        return Loudness(integrated: integrated, range: range, truePeak: truePeak)
    }
}
