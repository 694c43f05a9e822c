import RecAudio
import RecValues
import Testing

@Suite("Audio format names")
struct AudioFormatTests {
    @Test("names, aliases and any case parse; the store's names stay canonical")
    func names() {
        #expect(AudioFormat(name: "opus") == .opus)
        #expect(AudioFormat(name: "FLAC") == .flac)
        #expect(AudioFormat(name: "ogg") == .vorbis)
        #expect(AudioFormat(name: "Ogg") == .vorbis)
        #expect(AudioFormat(name: "aiff") == nil)
        #expect(AudioFormat(name: "") == nil)
        // An alias is for typing only: what a store holds is the canonical name.
        #expect(AudioFormat(rawValue: "ogg") == nil)
        #expect(AudioFormat.vorbis.rawValue == "vorbis")
    }
}
