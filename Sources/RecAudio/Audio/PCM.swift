import CAudio

#if canImport(Glibc)
    import Glibc
#endif

/// One ALSA PCM opened for interleaved signed 16-bit frames, playback or capture.
///
/// The device is asked for the format, rate and channels the caller wants; when it cannot
/// give them itself, the PCM is reopened through ALSA's `plug` layer, which converts. Xruns
/// (and suspends) are recovered with `snd_pcm_recover` and counted. The handle is closed on
/// every path: when opening fails half-way, and when the object goes away.
package final class PCM {
    package enum Direction: Sendable {
        case playback, capture

        var stream: snd_pcm_stream_t { self == .playback ? SND_PCM_STREAM_PLAYBACK : SND_PCM_STREAM_CAPTURE }
        var word: String { self == .playback ? "playback" : "capture" }
    }

    package let name: String
    package let direction: Direction
    package let rate: Int
    package let channels: Int
    package private(set) var periodFrames: Int
    package private(set) var bufferFrames: Int
    /// Underruns, overruns and suspends recovered from so far.
    package var recoveries: Int { _recoveries.load() }
    private let _recoveries = AtomicCounter()
    private var handle: OpaquePointer?
    private var nonblocking = false

    /// Opens `name` (`default`, `hw:0`, `pulse`, a name from `.asoundrc`) and configures it.
    /// `configuration`, when given, is ALSA configuration text used instead of the system's
    /// (for tests that define their own devices).
    package init(
        name: String, direction: Direction, rate: Int, channels: Int,
        bufferMicroseconds: Int = 500_000, periodMicroseconds: Int = 50_000,
        configuration: String? = nil
    ) throws {
        caudio_silence_alsa_errors()
        self.name = name
        self.direction = direction
        self.rate = rate
        self.channels = channels
        periodFrames = 0
        bufferFrames = 0
        let config = try configuration.map { try PCM.loadConfiguration($0, device: name) }
        defer { if let config { snd_config_delete(config) } }

        // A device that cannot take the format itself gets a second try through the plug
        // layer, which converts.
        let quoted = "plug:\"\(name.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\""))\""
        let candidates = name.hasPrefix("plug") ? [name] : [name, quoted]
        for (i, device) in candidates.enumerated() {
            do {
                try openAndConfigure(device, config, bufferMicroseconds, periodMicroseconds)
                return
            } catch let refusal as FormatRefused {
                if i == candidates.count - 1 { throw refusal.error }
            }
        }
    }

    /// Opens `device` and sets it up; on any failure the handle is closed again, so that a
    /// second try (or the caller) starts clean.
    private func openAndConfigure(
        _ device: String, _ config: OpaquePointer?, _ bufferMicroseconds: Int,
        _ periodMicroseconds: Int
    ) throws {
        do {
            handle = try PCM.open(device, direction, config)
            try configure(bufferMicroseconds: bufferMicroseconds, periodMicroseconds: periodMicroseconds)
        } catch {
            closeHandle()
            throw error
        }
    }

    /// A format, access, channel count or rate the device itself does not offer: what ALSA
    /// reports as EINVAL from a `snd_pcm_hw_params_set_*` call. Only this one is worth a
    /// second try through the plug layer; chosen by where and with which code it failed,
    /// never by the message's words.
    private struct FormatRefused: Error {
        let error: AudioError
    }

    /// As `check`, for the calls that ask the device for a format.
    private func checkFormat(_ result: Int32, _ operation: String) throws {
        guard result < 0 else { return }
        let error = AudioError.alsa(name, operation, result)
        if result == -EINVAL { throw FormatRefused(error: error) }
        throw error
    }

    deinit { closeHandle() }

    /// Closes the device at once, dropping anything still buffered. Safe to call twice.
    package func close() { closeHandle() }

    private func closeHandle() {
        if let handle { snd_pcm_close(handle) }
        handle = nil
    }

    private static func open(_ name: String, _ direction: Direction, _ config: OpaquePointer?) throws -> OpaquePointer {
        var pcm: OpaquePointer?
        let result =
            config.map { snd_pcm_open_lconf(&pcm, name, direction.stream, 0, $0) }
            ?? snd_pcm_open(&pcm, name, direction.stream, 0)
        guard result >= 0, let pcm else { throw AudioError.alsa(name, "cannot open for \(direction.word)", result) }
        return pcm
    }

    private static func loadConfiguration(_ text: String, device: String) throws -> OpaquePointer {
        var top: OpaquePointer?
        var result = snd_config_top(&top)
        guard result >= 0, let top else { throw AudioError.alsa(device, "cannot load configuration", result) }
        var input: OpaquePointer?
        result = text.withCString { snd_input_buffer_open(&input, $0, -1) }
        guard result >= 0, let input else {
            snd_config_delete(top)
            throw AudioError.alsa(device, "cannot load configuration", result)
        }
        result = snd_config_load(top, input)
        snd_input_close(input)
        guard result >= 0 else {
            snd_config_delete(top)
            throw AudioError.alsa(device, "cannot load configuration", result)
        }
        return top
    }

    private func check(_ result: Int32, _ operation: String) throws {
        if result < 0 { throw AudioError.alsa(name, operation, result) }
    }

    private func configure(bufferMicroseconds: Int, periodMicroseconds: Int) throws {
        guard let handle else { return }
        var hw: OpaquePointer?
        try check(snd_pcm_hw_params_malloc(&hw), "cannot allocate parameters")
        defer { snd_pcm_hw_params_free(hw) }
        try check(snd_pcm_hw_params_any(handle, hw), "cannot read its parameters")
        try check(snd_pcm_hw_params_set_rate_resample(handle, hw, 1), "cannot enable resampling")
        try checkFormat(
            snd_pcm_hw_params_set_access(handle, hw, SND_PCM_ACCESS_RW_INTERLEAVED),
            "device cannot do interleaved access")
        try checkFormat(
            snd_pcm_hw_params_set_format(handle, hw, SND_PCM_FORMAT_S16_LE), "device cannot do signed 16-bit samples")
        try checkFormat(
            snd_pcm_hw_params_set_channels(handle, hw, UInt32(channels)), "device cannot do \(channels) channel(s)")
        try checkFormat(snd_pcm_hw_params_set_rate(handle, hw, UInt32(rate), 0), "device cannot do \(rate) Hz")
        var bufferTime = UInt32(bufferMicroseconds)
        var dir: Int32 = 0
        try check(snd_pcm_hw_params_set_buffer_time_near(handle, hw, &bufferTime, &dir), "cannot set the buffer size")
        var periodTime = UInt32(periodMicroseconds)
        dir = 0
        try check(snd_pcm_hw_params_set_period_time_near(handle, hw, &periodTime, &dir), "cannot set the period size")
        try check(snd_pcm_hw_params(handle, hw), "cannot apply its parameters")

        var period = snd_pcm_uframes_t(0)
        var buffer = snd_pcm_uframes_t(0)
        dir = 0
        try check(snd_pcm_hw_params_get_period_size(hw, &period, &dir), "cannot read the period size")
        try check(snd_pcm_hw_params_get_buffer_size(hw, &buffer), "cannot read the buffer size")
        periodFrames = max(Int(period), 1)
        bufferFrames = max(Int(buffer), periodFrames)

        var sw: OpaquePointer?
        try check(snd_pcm_sw_params_malloc(&sw), "cannot allocate parameters")
        defer { snd_pcm_sw_params_free(sw) }
        try check(snd_pcm_sw_params_current(handle, sw), "cannot read its parameters")
        // Playback starts once the buffer is full, so it does not underrun at once;
        // capture starts with the first read.
        let threshold = direction == .playback ? snd_pcm_uframes_t(bufferFrames) : 1
        try check(snd_pcm_sw_params_set_start_threshold(handle, sw, threshold), "cannot set the start threshold")
        try check(
            snd_pcm_sw_params_set_avail_min(handle, sw, snd_pcm_uframes_t(periodFrames)), "cannot set the wake-up size")
        // No snd_pcm_prepare() here: snd_pcm_hw_params() has prepared the device already, and
        // preparing ALSA's pulse plugin a second time leaves its poll descriptor always ready,
        // which made every blocking read spin in poll() (1.2 CPU s per minute of audio).
        try check(snd_pcm_sw_params(handle, sw), "cannot apply its parameters")
    }

    /// Recovers from an xrun, a suspend or an interrupted call; anything else is an error.
    private func recover(_ code: Int32, _ operation: String) throws {
        guard let handle else { throw AudioError(.device(name), operation, reason: "device is closed") }
        if code == -EPIPE || code == -ESTRPIPE { _recoveries.increment() }
        let result = snd_pcm_recover(handle, code, 1)
        if result < 0 { throw AudioError.alsa(name, operation, code) }
    }

    /// Reads up to `frames` frames; blocks until at least some are there. Returns how many
    /// were read (0 only after an xrun was recovered).
    ///
    /// The buffer is silenced first: a plugin may count frames it never stored. ALSA's `file`
    /// plugin returns what its slave counted, but copies into the buffer only what its
    /// infile still had; after the infile's end the buffer would keep an earlier read's audio
    /// and that audio would be recorded again.
    package func read(into buffer: UnsafeMutablePointer<Int16>, frames: Int) throws -> Int {
        guard let handle else { throw AudioError(.device(name), "read failed", reason: "device is closed") }
        buffer.update(repeating: 0, count: frames * channels)
        let result = snd_pcm_readi(handle, buffer, snd_pcm_uframes_t(frames))
        if result < 0 {
            try recover(Int32(result), "read failed")
            return 0
        }
        return Int(result)
    }

    /// Writes up to `frames` frames and returns how many it wrote: all of them, unless
    /// `interrupted()` turns true first.
    ///
    /// While the device's buffer is full it calls `wait` with about the time the missing
    /// room takes to play out (5 ms to one period), then asks `interrupted()`: a caller
    /// whose wait ends early when a command arrives is never stuck behind a sound server
    /// that takes data in large blocks (the PulseAudio null sink asks for about half a
    /// second at a time). The device's poll descriptor is not used for this: the pulse
    /// plugin's fires only once a whole period is free, so short polls woke the player
    /// some 22 times a second for nothing.
    package func write(
        _ buffer: UnsafePointer<Int16>, frames: Int, interrupted: () -> Bool = { false },
        wait: (_ milliseconds: Int) -> Void = { usleep(UInt32($0) * 1000) }
    ) throws -> Int {
        guard let handle else { throw AudioError(.device(name), "write failed", reason: "device is closed") }
        if !nonblocking {
            try check(snd_pcm_nonblock(handle, 1), "cannot switch to non-blocking writes")
            nonblocking = true
        }
        var done = 0
        while done < frames {
            let result = snd_pcm_writei(handle, buffer + done * channels, snd_pcm_uframes_t(frames - done))
            if result == -Int(EAGAIN) {
                if interrupted() { break }
                let missing = max(min(frames - done, periodFrames) - available(), 0)
                let periodMilliseconds = max(periodFrames * 1000 / rate, 5)
                wait(min(max(missing * 1000 / rate, 5), periodMilliseconds))
                continue
            }
            if result < 0 {
                try recover(Int32(result), "write failed")
                continue
            }
            done += Int(result)
            if done < frames && interrupted() { break }
        }
        return done
    }

    /// Frames that can be read (capture) or written (playback) without waiting; 0 when
    /// the device cannot say.
    package func available() -> Int {
        guard let handle else { return 0 }
        return max(Int(snd_pcm_avail_update(handle)), 0)
    }

    /// Frames written but not yet heard (playback) or captured but not yet read.
    package func delay() -> Int {
        guard let handle else { return 0 }
        var frames = snd_pcm_sframes_t(0)
        guard snd_pcm_delay(handle, &frames) >= 0 else { return 0 }
        return max(Int(frames), 0)
    }

    /// Plays out what is buffered, then stops: the last frames are heard.
    package func drain() throws {
        guard let handle else { return }
        // Non-blocking, snd_pcm_drain would return at once with -EAGAIN.
        if nonblocking {
            snd_pcm_nonblock(handle, 0)
            nonblocking = false
        }
        let result = snd_pcm_drain(handle)
        if result < 0 && result != -EPIPE { throw AudioError.alsa(name, "cannot drain", result) }
    }

    /// Throws away what is buffered and makes the device ready to start again.
    package func restart() throws {
        guard let handle else { return }
        snd_pcm_drop(handle)
        try check(snd_pcm_prepare(handle), "cannot prepare")
    }
}

extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        for c in self { if c == target { result += replacement } else { result.append(c) } }
        return result
    }
}
