import CPocketSphinx
import RecAudio
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// The built-in engine: CMU PocketSphinx with the US English model Debian ships
/// (`pocketsphinx-en-us`). Fast and offline, and rough: its transcripts are drafts.
///
/// It decodes as `pocketsphinx_continuous -infile` does: the audio in blocks, the
/// library's voice-activity detector cutting it into utterances, one segment per
/// utterance, with word times from the segmentation (`ps_seg_iter`).
package struct PocketSphinxEngine: TranscriptionEngine {
    package static let modelDirectory = "/usr/share/pocketsphinx/model/en-us"

    package var name: String { "pocketsphinx" }
    /// Acoustic model directory (`-hmm`), language model (`-lm`), dictionary (`-dict`).
    package var acousticModel: String
    package var languageModel: String
    package var dictionary: String

    package init(
        acousticModel: String = modelDirectory + "/en-us",
        languageModel: String = modelDirectory + "/en-us.lm.bin",
        dictionary: String = modelDirectory + "/cmudict-en-us.dict"
    ) {
        self.acousticModel = acousticModel
        self.languageModel = languageModel
        self.dictionary = dictionary
    }

    package var needsLeadingSilenceCut: Bool { true }

    /// What the transcript names as its model: the acoustic model's directory.
    package var model: String { acousticModel }

    /// The shared object `transcribe` opens: `RECNOTES_POCKETSPHINX` names another (a build
    /// of its own, or one outside the library path); by default the system's.
    package static var libraryPath: String? { Environment.value("RECNOTES_POCKETSPHINX") }

    /// Opens PocketSphinx on first use (see CPocketSphinx.h for why it is not linked).
    static func loadLibrary(_ name: String) throws(RecError) {
        var why = [CChar](repeating: 0, count: 512)
        guard cps_load(libraryPath, &why, why.count) == 0 else {
            let reason = String(decoding: why.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .transcribe(
                name,
                "cannot load the PocketSphinx library (install libpocketsphinx3 and pocketsphinx-en-us): \(reason)")
        }
    }

    /// Samples handed to the decoder at a time, as pocketsphinx_continuous reads them.
    static let block = 2048

    package func transcribe(_ audio: SpeechAudio, cancel: CancelFlag, progress: (Double) -> Void) throws(RecError)
        -> Transcript
    {
        for (path, what) in [
            (acousticModel, "acoustic model"), (languageModel, "language model"), (dictionary, "dictionary"),
        ]
        where !FileSystem.exists(path) {
            throw .transcribe(name, "\(what) not found: \(path) (install pocketsphinx-en-us)")
        }
        try Self.loadLibrary(name)
        cps_silence()
        guard let config = cps_config_new(acousticModel, languageModel, dictionary) else {
            throw .transcribe(name, "the model configuration was refused")
        }
        guard let decoder = cps_init(config) else {
            cps_config_free(config)
            throw .transcribe(name, "cannot load the model \(acousticModel)")
        }
        // The decoder keeps its own reference to the configuration.
        cps_config_free(config)
        defer { cps_free(decoder) }
        let frameRate = Double(max(1, cps_config_int(cps_get_config(decoder), "-frate")))

        var segments: [Transcript.Segment] = []
        func finishUtterance() throws(RecError) {
            guard cps_end_utt(decoder) >= 0 else { throw .transcribe(name, "decoding failed") }
            if let segment = Self.segment(decoder, frameRate: frameRate) { segments.append(segment) }
        }
        guard cps_start_utt(decoder) >= 0 else { throw .transcribe(name, "cannot start decoding") }
        var inUtterance = false
        var offset = 0
        // The progress is told about once a second of audio; the stop is looked at every block
        // (0.128 s of audio, a few milliseconds of decoding).
        let reportEvery = 8 * Self.block
        while offset < audio.samples.count {
            if cancel.isCancelled { throw .transcriptionStopped }
            if offset % reportEvery == 0 { progress(Double(offset) / Double(audio.samples.count)) }
            let count = min(Self.block, audio.samples.count - offset)
            let searched = audio.samples.withUnsafeBufferPointer {
                cps_process_raw(decoder, $0.baseAddress! + offset, count, 0, 0)
            }
            guard searched >= 0 else { throw .transcribe(name, "decoding failed") }
            offset += count
            let speech = cps_get_in_speech(decoder) != 0
            if speech && !inUtterance {
                inUtterance = true
            } else if !speech && inUtterance {
                try finishUtterance()
                guard cps_start_utt(decoder) >= 0 else { throw .transcribe(name, "cannot start decoding") }
                inUtterance = false
            }
        }
        try finishUtterance()
        return Transcript(engine: name, model: model, quality: .draft, segments: segments)
    }

    /// The words of the utterance just ended, without silences, fillers and sentence marks.
    private static func segment(_ decoder: OpaquePointer, frameRate: Double) -> Transcript.Segment? {
        var words: [Transcript.Word] = []
        var iterator = cps_seg_iter(decoder)
        while let seg = iterator {
            if let cWord = cps_seg_word(seg), let word = spokenWord(String(cString: cWord)) {
                var first: Int32 = 0
                var last: Int32 = 0
                cps_seg_frames(seg, &first, &last)
                words.append(
                    Transcript.Word(start: Double(first) / frameRate, end: Double(last + 1) / frameRate, text: word))
            }
            iterator = cps_seg_next(seg)
        }
        guard let first = words.first, let last = words.last else { return nil }
        return Transcript.Segment(
            start: first.start, end: last.end, text: words.map(\.text).joined(separator: " "), words: words)
    }

    /// A dictionary word as spoken: nil for `<s>`, `</s>`, `<sil>` and fillers (`[NOISE]`,
    /// `++UH++`), and an alternative pronunciation's `(2)` taken off.
    static func spokenWord(_ word: String) -> String? {
        if word.hasPrefix("<") || word.hasPrefix("[") || word.hasPrefix("+") { return nil }
        if word.hasSuffix(")"), let open = word.lastIndex(of: "("), open > word.startIndex {
            return String(word[..<open])
        }
        return word.isEmpty ? nil : word
    }
}
