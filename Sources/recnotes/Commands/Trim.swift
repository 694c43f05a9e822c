import ArgumentParser
import RecCore
import RecStore
import RecSystem
import RecValues

struct Trim: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trim",
        abstract: "Show or set where a recording starts and stops playing.",
        discussion: """
            Trim points are document data: the audio file is never cut, 'undo' takes a change \
            back, and 'play --untrimmed' or a plain 'export' still reach all of the audio. \
            --auto puts them at the first and last speech the voice-activity detector finds, \
            --margin before and after (default 0.3 s). --in and --out set them by hand (TIME \
            as play --seek takes it: 90, 1:30, 50%, -10s); a point not given stays where it \
            was. --clear removes them. With no option, prints them. 'play' honours them, \
            'export --trimmed' writes only what lies between them, and 'info' and 'ls -l' \
            show the trimmed duration.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Argument(help: "The recording.", completion: .storePath)
    var path: String

    @Flag(help: "Set the points around the speech the detector finds.")
    var auto = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "With --auto: audio kept before the first and after the last speech (default 0.3 s).", valueName: "time"))
    var margin: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "With --auto: a fixed level (dBFS, e.g. -45) below which the audio is silence, instead of the adaptive noise floor.",
            valueName: "dB"))
    var silenceThreshold: String?

    @Option(
        name: .customLong("in"), parsing: .unconditional, help: ArgumentHelp("Start playing here.", valueName: "time"))
    var inPoint: String?

    @Option(
        name: .customLong("out"), parsing: .unconditional, help: ArgumentHelp("Stop playing here.", valueName: "time"))
    var outPoint: String?

    @Flag(help: "Remove the trim points.")
    var clear = false

    func run() throws {
        let byHand = inPoint != nil || outPoint != nil
        if [auto, byHand, clear].filter({ $0 }).count > 1 {
            throw RecError.usage("trim", "give one of --auto, --in/--out and --clear")
        }
        if !auto, margin != nil { throw RecError.usage("--margin", "only goes with --auto") }
        if !auto, silenceThreshold != nil { throw RecError.usage("--silence-threshold", "only goes with --auto") }
        if let silenceThreshold { _ = try VoiceOptions.decibels(silenceThreshold) }
        let marginSeconds =
            try margin.map { try TimeSpec.length($0, option: "--margin", allowingZero: true) }
            ?? TrimPoints.defaultMargin
        if let inPoint { _ = try TimeSpec.parse(inPoint, option: "--in") }
        if let outPoint { _ = try TimeSpec.parse(outPoint, option: "--out") }
        let library = try global.openLibrary()
        let item = try library.item(at: path)
        guard let info = item.recording else {
            throw RecError.usage(path, "is a folder; only recordings have trim points")
        }
        let current = library.state.currentFolder
        if !auto && !byHand && !clear {
            show(item, info, library: library)
            return
        }
        let renderer = ChangedItems(library: library)
        var trim: TrimPoints?
        if auto {
            let regions = try info.speechRegions(
                in: library.location, silenceThreshold: try silenceThreshold.map(VoiceOptions.decibels))
            guard
                let found = TrimPoints.around(
                    speech: regions, margin: marginSeconds, sampleRate: info.sampleRate, length: info.frames)
            else {
                throw RecError.failure(path, "no speech found; the trim points are unchanged")
            }
            trim = found
        }
        let changed = try library.documents.transaction { tx in
            byHand
                ? try tx.setTrim(at: path, in: inPoint, out: outPoint, from: current)
                : try tx.setTrim(trim, at: path, from: current)
        }
        if output.json {
            renderer.finish(json: true)
        } else if !global.quiet {
            show(changed, info, library: library)
        }
    }

    private func show(_ item: Item, _ info: RecordingInfo, library: Library) {
        if output.json {
            print(ItemJSON.object(item, in: library))
        } else if let trim = item.annotations.trim {
            print("\(library.document.path(of: item.id)): \(Format.trim(trim, info: info))")
        } else {
            print("\(library.document.path(of: item.id)): no trim points; all \(Format.duration(info.duration)) play")
        }
    }
}
