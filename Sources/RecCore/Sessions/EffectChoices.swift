import RecAudio
import RecStore
import RecValues

/// What play and export are asked to do to the audio on its way out (`--speed`, `--level`,
/// `--denoise`, `--gain`, `--original`), as one value from the command line to `AudioChain`.
/// An effect is a field here and a processor in the chain; the commands add its option.
package struct EffectChoices: Equatable, Sendable {
    /// `--speed`: the tempo, the pitch kept. nil is 1× for export, and the last playback's
    /// speed for play.
    package var speed: PlaybackSpeed?
    /// `--level`: the integrated loudness, LUFS, with true peaks at most -1 dBTP (`Leveller`);
    /// nil keeps the audio's own level.
    package var level: Double?
    /// `--denoise`: the noise suppressor (`Denoiser`), first in the chain.
    package var denoise: Bool
    /// `--gain`, dB: a fixed change of level, before the leveller's limiter when there is one.
    package var gain: Double?
    /// `--original`: the recording's stored enhancement is ignored.
    package var original: Bool

    package init(
        speed: PlaybackSpeed? = nil, level: Double? = nil, denoise: Bool = false, gain: Double? = nil,
        original: Bool = false
    ) {
        self.speed = speed
        self.level = level
        self.denoise = denoise
        self.gain = gain
        self.original = original
    }

    /// The choices with the recording's stored enhancement (`Item.enhancement`): `level` and
    /// `denoise` as typed win over it, and `original` ignores it.
    func applied(to item: Item, path: String) throws -> EffectChoices {
        var applied = self
        (applied.level, applied.denoise) = try item.enhancement(
            levelOption: level, denoiseOption: denoise, original: original, path: path)
        return applied
    }

    /// Whether a choice changes the samples: export then decodes, rather than copy the bytes.
    var changesSamples: Bool { !(speed ?? .normal).isNormal || level != nil || denoise || gain != nil }

    /// The chain they make, with the suppressor and the leveller made for the audio at hand.
    func chain(denoiser: Denoiser?, leveller: Leveller?) -> AudioEffects {
        AudioEffects(denoise: denoiser, speed: speed ?? .normal, gain: gain, level: leveller)
    }
}
