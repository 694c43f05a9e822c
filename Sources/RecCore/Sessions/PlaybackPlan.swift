import RecAudio
import RecStore
import RecSystem
import RecValues

/// What a playback will do, resolved before anything is touched: the recording (PATH, or the
/// selected one), its open file, and the frames to play. Making it changes no file and opens no
/// device; `PlaybackSession` acts on it.
package struct PlaybackPlan {
    package let library: Library
    package let item: Item
    package let file: SoundFile
    /// The frames to play: `start..<end`.
    package let start: Int64
    package let end: Int64
    /// The first frame a seek can reach: the in point, unless `--untrimmed`.
    package let floor: Int64
    /// `--skip-silence`: the silences jumped over, in frames of the file.
    package var skips: [Range<Int64>] = []
    /// The recording's markers' frames.
    package let markerFrames: [Int64]
    /// Things the user should know that are not errors (a --seek before the beginning).
    package var notes: [String] = []
    /// `--speed`: the tempo (pitch kept); positions stay in the recording's own time.
    package let speed: PlaybackSpeed
    /// `--level`, or the recording's stored enhancement: the leveller to the target loudness
    /// (`RecordingInfo.leveller`), for the stretch between the trim points (or all of it); nil
    /// plays the audio at its own level.
    package let leveller: Leveller?
    /// `--denoise`, or the recording's stored enhancement: the noise suppressor (`Denoiser`),
    /// first in the player's chain; nil plays the audio as recorded.
    package let denoiser: Denoiser?
    /// What was asked for, the speed and the recording's stored enhancement applied.
    package let choices: EffectChoices
    /// What the player does to the audio between the file and the device, in `AudioChain`'s
    /// order.
    package var effects: AudioEffects { choices.chain(denoiser: denoiser, leveller: leveller) }

    /// Picks the recording (PATH, or the selected one), opens its file, resolves `--seek`
    /// and `--until` against its real length, without touching the device or the view state. Time specs are
    /// checked for syntax before anything is opened.
    ///
    /// The recording's trim points bound what plays unless `untrimmed`: it starts at the in
    /// point (or the saved position or `--seek`, if between them) and stops at the out point
    /// (or `--until`, if before it). Positions stay in the file's own time.
    ///
    /// `skipSilence` (seconds): silences longer than that, between the speech regions stored
    /// with the recording (or, with `silenceThreshold`, a fixed level instead of the
    /// detector's adaptive floor, found in the file before playing), are jumped over.
    ///
    /// The recording's stored enhancement applies (`EffectChoices.applied`), unless
    /// `effects.original` (as `untrimmed` ignores trim points; the two are independent).
    package init(
        library: Library, path: String?, seek: String?, until: String?, fromStart: Bool,
        untrimmed: Bool = false, skipSilence: Double? = nil, silenceThreshold: Double? = nil,
        effects: EffectChoices = EffectChoices()
    ) throws {
        self.library = library
        // Without a speed asked for, the one the last playback had (kept in the view state).
        self.speed = effects.speed ?? library.viewState.state.speed
        // The stretcher's library, opened now: missing, it refuses before another playback stops.
        if !self.speed.isNormal {
            if effects.speed != nil {
                try TimeStretch.load(for: "--speed")
            } else {
                try TimeStretch.load(for: "play", kept: self.speed)
            }
        }
        let seekSpec = try seek.map { try TimeSpec.parse($0, option: "--seek") }
        let untilSpec = try until.map { try TimeSpec.parse($0, option: "--until") }
        let resumeAt: Double?
        if let path {
            item = try library.resolver.resolve(path)
            resumeAt = nil
        } else {
            guard let selection = library.state.selection, let selected = library.document[selection.recording] else {
                throw RecError.usage("play", "no recording is selected; give the PATH of one to play")
            }
            item = selected
            resumeAt = fromStart ? nil : selection.position
        }
        guard let info = item.recording else {
            throw RecError.failure(path ?? library.document.path(of: item.id), "is a folder, not a recording")
        }
        let shownPath = path ?? library.document.path(of: item.id)
        var applied = try effects.applied(to: item, path: shownPath)
        applied.speed = self.speed
        choices = applied
        try library.requireAudioHere(item)
        let opened = try SoundFile.open(path: library.location.audioPath(info.file))
        file = opened
        let rate = Double(opened.sampleRate)
        let length = opened.duration
        let frameCount = opened.frames
        func frame(_ seconds: Double) -> Int64 { min(Int64((seconds * rate).rounded()), frameCount) }
        let bounds = untrimmed ? 0..<frameCount : item.playedRange.clamped(to: 0..<frameCount)
        var from = bounds.lowerBound
        floor = bounds.lowerBound
        // A marker (#3, mark:LABEL) is its exact frame: no round trip through seconds.
        let markers = item.annotations.markers
        markerFrames = markers.map(\.frame)
        if let seekSpec, let text = seek {
            if let markerFrame = try seekSpec.markerFrame(
                in: markers, frames: frameCount, option: "--seek", path: shownPath)
            {
                from = markerFrame
            } else {
                let (seconds, note) = try seekSpec.resolveStart(duration: length, spec: text)
                if let note { notes.append(note) }
                from = frame(seconds)
            }
            if from >= bounds.upperBound {
                // Nothing is left to play there: refused, as a seek past the end of the file is,
                // rather than quietly starting again from the in point.
                let subject = TimeSpec.typed(text, option: "--seek")
                let at = Format.preciseClock(Double(from) / rate)
                let end = Format.preciseClock(Double(bounds.upperBound) / rate)
                if bounds.upperBound < frameCount {
                    throw RecError.usage(
                        subject, "\(at) is at or past the out point (\(end)); --untrimmed plays past it")
                }
                throw RecError.usage(subject, "\(at) is at the end of the recording (\(end)); nothing is left to play")
            }
            if !bounds.contains(from) {
                notes.append(
                    "--seek \(text) is outside the trim points; playing from \(Format.clock(Double(bounds.lowerBound) / rate)) (--untrimmed plays it all)"
                )
                from = bounds.lowerBound
            }
        } else if let resumeAt, resumeAt < length - 0.05, bounds.contains(frame(resumeAt)) {
            from = frame(resumeAt)
        }
        var to = bounds.upperBound
        if let untilSpec, let text = until {
            to = min(
                try untilSpec.markerFrame(in: markers, frames: frameCount, option: "--until", path: shownPath)
                    ?? frame(try untilSpec.resolve(duration: length, spec: text, option: "--until")), bounds.upperBound)
            guard to > from else {
                throw RecError.usage(
                    TimeSpec.typed(text, option: "--until"),
                    "must come after the start (\(Format.preciseClock(Double(from) / rate)))")
            }
        }
        start = from
        end = to
        leveller = try applied.level.map {
            try info.leveller(
                target: $0, path: library.location.audioPath(info.file), range: bounds == 0..<frameCount ? nil : bounds,
                rate: opened.sampleRate)
        }
        // Made here, so that without the library it refuses before another playback stops.
        denoiser = applied.denoise ? try Denoiser(rate: opened.sampleRate, channels: opened.channels) : nil
        if let skipSilence {
            let regions = try info.speechRegions(in: library.location, silenceThreshold: silenceThreshold)
            skips = SpeechRegions.silences(between: regions, in: from..<to, longerThan: Int64(skipSilence * rate))
        }
    }
}
