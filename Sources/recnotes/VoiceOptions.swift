import ArgumentParser
import RecAudio
import RecCore
import RecStore
import RecSystem

/// `record`'s voice-activity options: start on the first speech, stop on a long silence.
struct VoiceOptions: ParsableArguments {
    @Flag(
        help:
            "Wait for speech: nothing is written until the detector hears some; the file then starts --pre-roll before it."
    )
    var startOnVoice = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "With --start-on-voice: audio kept from before the speech (default 0.5 s).", valueName: "time"))
    var preRoll: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Stop after this long of continuous silence. The silence stays in the file; an out point ('recnotes trim') hides all but 0.3 s of it.",
            valueName: "time"))
    var stopOnSilence: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "A fixed level (dBFS, e.g. -45) below which the audio counts as silence, instead of the adaptive noise floor.",
            valueName: "dB"))
    var silenceThreshold: String?

    var isSet: Bool { startOnVoice || preRoll != nil || stopOnSilence != nil || silenceThreshold != nil }

    /// What the options ask of the recorder; nil when none is given.
    func trigger() throws -> VoiceTrigger? {
        guard isSet else { return nil }
        if preRoll != nil && !startOnVoice { throw RecError.usage("--pre-roll", "goes with --start-on-voice") }
        if silenceThreshold != nil && !startOnVoice && stopOnSilence == nil {
            throw RecError.usage("--silence-threshold", "goes with --start-on-voice or --stop-on-silence")
        }
        var trigger = VoiceTrigger(startOnVoice: startOnVoice)
        if let preRoll { trigger.preRoll = try TimeSpec.length(preRoll, option: "--pre-roll", allowingZero: true) }
        if let stopOnSilence { trigger.stopOnSilence = try TimeSpec.length(stopOnSilence, option: "--stop-on-silence") }
        if let silenceThreshold { trigger.detector.silenceThreshold = try Self.decibels(silenceThreshold) }
        return trigger
    }

    /// A level in dBFS: a number from -120 to 0, with or without "dB".
    static func decibels(_ text: String) throws -> Double {
        var body = Substring(text)
        for suffix in ["dBFS", "dbfs", "dB", "db"] where body.hasSuffix(suffix) {
            body = body.dropLast(suffix.count)
            break
        }
        guard let value = Double(body), value.isFinite, (-120...0).contains(value) else {
            throw RecError.usage("--silence-threshold \(text)", "must be a level in dBFS from -120 to 0, such as -45")
        }
        return value
    }
}
