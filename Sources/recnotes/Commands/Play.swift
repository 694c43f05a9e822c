import ArgumentParser
import RecCore
import RecStore
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        _superCommandName: Recnotes.leafParent,
        abstract: "Play a recording through an ALSA device.",
        discussion: """
            Times (--seek, --until) are written 90, 90s, 1:30, 1:02:03.5, 2m30s, 1h2m3s, 50% or \
            -10s (from the end; one longer than the recording starts at the beginning), or as a \
            marker of the recording: '#3' by its number ('marks' lists them) or 'mark:LABEL' by \
            its label (exactly, else ignoring case and accents). Seeking is sample-accurate and \
            does not decode what comes before.

            On a terminal: space pauses and resumes, the left and right arrows seek 5 s back and \
            forward, m marks the moment (M also asks for its label, the audio going on), ] and [ \
            go to the next and previous marker, } and { raise and lower the speed by 0.25 and \
            = returns to normal speed, q quits; Ctrl-Z suspends it with the terminal given \
            back, and 'fg' takes the keys again. From any shell: 'recnotes pause', 'resume', 'toggle', 'seek', \
            'speed' and 'stop' (with --background the playback runs detached). A recording with trim points \
            ('recnotes trim') plays between them unless --untrimmed is given: a --seek before the in \
            point starts at the in point, and one at or past the out point is refused (exit 64), \
            as one past the end of the file is. The recording and position are kept in the view state: 'play' \
            with no PATH resumes the last recording where it stopped. One playback runs at a \
            time: a new 'play' stops the running one first, and says so.

            --speed plays faster or slower with the pitch kept (a voice at 1.5 sounds like the \
            same person talking faster), through the SoundTouch library (libsoundtouch1, opened \
            only then; $RECNOTES_SOUNDTOUCH names another libSoundTouchDll.so). Times, markers, trim \
            points, --skip-silence, remote 'seek' and the saved position stay in the recording's \
            own time: 'play --seek 1 --until 3 --speed 2' plays its seconds 1 to 3 in one second. \
            The progress line shows the speed when it is not 1. At 1 the stretcher is not used \
            (until the speed changes while playing). The speed is kept: 'play' without --speed \
            plays at the last playback's speed (as changed by keys or 'recnotes speed'), and \
            --speed 1 puts it back to 1.

            --level plays at a loudness (EBU R128; alone, -16 LUFS, the spoken-word norm of \
            podcast platforms), as 'export --level' writes it: one gain from the loudness stored \
            with the recording, and a look-ahead limiter that keeps true peaks at or below -1 dBTP.

            --denoise lowers steady background noise (fans, hum, hiss) under the speech, as \
            'export --denoise' does (speexdsp, libspeexdsp1, opened only then): first in the chain, \
            before --speed and --level. \
            --gain DB changes the level by that many dB, as 'export --gain' does: after --speed, \
            before --level's limiter; alone, what would pass full scale is clipped. \
            A recording enhanced with 'recnotes enhance' plays as if --level (and --denoise) were \
            given; an option typed here wins, and --original plays the file as it is. --original \
            leaves the trim points alone (--untrimmed is theirs): the two go together.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The recording to play; the last one played by default.", completion: .storePath)
    var path: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Start here; -10s counts from the end, #3 and mark:LABEL are markers.", valueName: "time"))
    var seek: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Stop here (the same forms).", valueName: "time"))
    var until: String?

    @Flag(help: "Start from the beginning instead of the saved position.")
    var fromStart = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("The ALSA PCM to play to; defaults to $RECNOTES_DEVICE, then 'default'.", valueName: "name"))
    var device: String?

    @Option(
        parsing: .unconditional,
        help:
            "tty (a live line on stderr), json (NDJSON events on stdout) or none. Default: tty on a terminal, else none."
    )
    var progress: ProgressMode?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Jump over silences longer than this (alone: 1 s), found by the voice-activity detector; positions stay in the recording's own time.",
            valueName: "time"))
    var skipSilence: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "With --skip-silence: a fixed level (dBFS, e.g. -45) below which the audio is silence, instead of the adaptive noise floor.",
            valueName: "dB"))
    var silenceThreshold: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Play at this tempo, the pitch kept: 0.25 to 4, as 1.5, 1.5x or 150%; positions stay in the recording's own time. Default: the last playback's speed.",
            valueName: "speed"))
    var speed: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Play at this loudness, -60 to -5 LUFS (alone: -16, the podcast norm), true peaks at most -1 dBTP.",
            valueName: "LUFS"))
    var level: Double?

    @Flag(help: "Lower steady background noise (fans, hum, hiss) under the speech (speexdsp).")
    var denoise = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Change the level by this much, -40 to 40 dB; what would pass full scale is clipped (with --level, the limiter holds it).",
            valueName: "dB"))
    var gain: Double?

    @Flag(help: "Play all of the audio, ignoring the recording's trim points ('recnotes trim').")
    var untrimmed = false

    @Flag(help: "Play the file as it is, ignoring the recording's enhancement ('recnotes enhance').")
    var original = false

    @Flag(help: "Start paused; 'recnotes resume' (or space) starts it.")
    var paused = false

    @OptionGroup var detached: BackgroundOptions

    /// `play` as people type it, read without argument-parser (`QuickArguments` says why and
    /// what it reads); nil for anything else, which argument-parser then parses. Each property
    /// is set here: a new option goes into `quickFlags`/`quickValued` and below
    /// (`QuickParseTests` compares with argument-parser's parse and with the help's options).
    static func parsedQuickly(_ arguments: [String]) -> Play? {
        guard arguments.first == "play",
            let words = QuickArguments(arguments.dropFirst(), flags: quickFlags, valued: quickValued)
        else { return nil }
        var play = Play()
        play.global = words.global
        play.path = words.positional
        play.seek = words.value("--seek")
        play.until = words.value("--until")
        play.fromStart = words.flag("--from-start")
        play.device = words.value("--device")
        // The values argument-parser converts, converted as it does; one it would refuse is its to report.
        guard let progress: ProgressMode? = words.converted("--progress"),
            let level: Double? = words.converted("--level"), let gain: Double? = words.converted("--gain")
        else { return nil }
        play.progress = progress
        play.skipSilence = words.value("--skip-silence")
        play.silenceThreshold = words.value("--silence-threshold")
        play.speed = words.value("--speed")
        play.level = level
        play.denoise = words.flag("--denoise")
        play.gain = gain
        play.untrimmed = words.flag("--untrimmed")
        play.original = words.flag("--original")
        play.paused = words.flag("--paused")
        play.detached = words.background
        return QuickArguments.validated(play) {
            try $0.global.validate()
            try $0.detached.validate()
        }
    }

    static let quickFlags = [
        "--quiet", "--from-start", "--denoise", "--untrimmed", "--original", "--paused", "--background", "--json",
        "--background-child",
    ]
    static let quickValued = [
        "--store", "--seek", "--until", "--device", "--progress", "--skip-silence", "--silence-threshold", "--speed",
        "--level", "--gain", "--log",
    ]

    func run() throws {
        if let seek { _ = try TimeSpec.parse(seek, option: "--seek") }
        if let until { _ = try TimeSpec.parse(until, option: "--until") }
        let skip = try skipSilence.map { try TimeSpec.length($0, option: "--skip-silence") }
        if silenceThreshold != nil && skip == nil {
            throw RecError.usage("--silence-threshold", "goes with --skip-silence")
        }
        let threshold = try silenceThreshold.map(VoiceOptions.decibels)
        try Export.checkLevel(level)
        try Export.checkGain(gain)
        let chosen = try speed.map { try PlaybackSpeed.parse($0) }
        if try detached.detachIfAsked(command: "play") { return }
        let signals = SignalWatcher()
        let library = try global.openLibrary()
        if detached.child && library.isReadOnly {
            throw RecError.failure(
                "play --background",
                "the store is read-only, so a detached player could not be reached; play it in the foreground")
        }
        let session = try PlaybackSession(
            library: library, path: path, seek: seek, until: until,
            fromStart: fromStart, untrimmed: untrimmed, skipSilence: skip, silenceThreshold: threshold,
            effects: EffectChoices(speed: chosen, level: level, denoise: denoise, gain: gain, original: original),
            device: audioDevice(device))
        for note in session.notes { Terminal.note("play: \(note)") }
        if let replaced = session.replaced {
            Terminal.note("play: stopped the playback of \(replaced.path) (pid \(replaced.pid))")
        }
        let player = session.player
        signals.onSignal { _ in player.stop() }
        let renderer = ProgressRenderer(mode: ProgressMode.resolved(progress), screen: .play)
        let prompt = LabelPrompt(renderer: renderer) { label, frame in player.mark(label: label, at: frame) }
        let keys = KeyReader { key in
            if prompt.handle(key) { return true }
            switch key {
            case .character("M"): prompt.open(at: player.controls.state.frames)
            case .space: player.togglePause()
            case .left: player.seek(by: -5)
            case .right: player.seek(by: 5)
            case .character("m"): player.mark()
            case .character("]"): player.seekMark(forward: true, frames: session.markerFrames)
            case .character("["): player.seekMark(forward: false, frames: session.markerFrames)
            // mpv's keys for speed where they are free: `[` and `]` are the markers' here, and
            // `=` for 1× (mpv's Backspace goes up a folder in browse, which has the same keys).
            case .character("}"): player.changeSpeed(by: 1)
            case .character("{"): player.changeSpeed(by: -1)
            case .character("="): player.changeSpeed(by: nil)
            case .interrupt:
                player.stop()
                return false
            default:
                if key.isQuit {
                    player.stop()
                    return false
                }
            }
            return true
        }
        defer { keys?.stop() }
        signals.suspends(keys, renderer)
        renderer.title = session.item.name
        renderer.keysActive = keys != nil
        try session.register(paused: paused)
        detached.registered(.playback, in: library)
        // Only the JSON events show the level (the live line shows the time alone).
        try session.play(levels: renderer.mode == .json, onEvent: renderer.handle)
    }
}
