import RecSystem
// recnotes-transcribe FILE [txt|srt|vtt|json] [--raw]: the engine layer alone, for
// bench/transcribe.sh (timing against pocketsphinx_continuous, word error rate) until the
// CLI wires it in. The engine is $RECNOTES_TRANSCRIBER's command, or PocketSphinx.
import RecTranscripts
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

func printError(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

var arguments = Array(CommandLine.arguments.dropFirst())
let raw = arguments.contains("--raw")
arguments.removeAll { $0 == "--raw" }
guard let path = arguments.first, arguments.count <= 2,
    let format = TranscriptFormat(rawValue: arguments.count == 2 ? arguments[1] : "txt")
else {
    printError("usage: recnotes-transcribe FILE [txt|srt|vtt|json] [--raw]")
    exit(ExitStatus.usage)
}
do {
    let engine = try Transcription.engine()
    let audio = try raw ? SpeechAudio.readRaw(path: path) : SpeechAudio.decode(path: path)
    print(format.render(try engine.transcribe(audio), duration: audio.duration), terminator: "")
} catch {
    printError("recnotes: \(error)")
    exit(error.exitCode)
}
