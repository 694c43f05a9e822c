import ArgumentParser
import RecCore
import RecStore
import RecSystem

struct Enhance: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enhance",
        abstract: "Show or set how recordings are enhanced when played, exported and transcribed.",
        discussion: """
            Enhancement is document data, like trim points: the audio file is never rewritten, \
            'undo' takes a change back, and fsck and sync carry it. --level plays and writes a \
            recording at -16 LUFS, as 'play --level' alone does; --denoise reduces its steady \
            background noise, as 'play --denoise' does. --no-level and --no-denoise turn them off; \
            a flag not given stays as it was. 'play', 'export' and 'transcribe' apply the \
            settings; an option typed there wins, and --original plays or exports the file as it \
            is. With no option, prints each recording's settings. A folder is refused unless -r \
            is given, which enhances every recording in it. 'record --enhance' and 'import \
            --enhance' turn both on for the new recording.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Argument(help: "The recordings (folders with -r).", completion: .storePath)
    var paths: [String] = []

    @Flag(
        inversion: .prefixedNo, exclusivity: .exclusive,
        help: "Play and write at -16 LUFS (EBU R128), true peaks at most -1 dBTP.")
    var level: Bool?

    @Flag(inversion: .prefixedNo, exclusivity: .exclusive, help: "Reduce steady background noise (fans, hum, hiss).")
    var denoise: Bool?

    @Flag(name: [.customShort("r"), .customLong("recursive")], help: "Every recording in the folders given.")
    var recursive = false

    func run() throws {
        if paths.isEmpty { throw RecError.usage("enhance", "needs at least one PATH") }
        if level == nil && denoise == nil {
            let library = try global.openLibrary()
            let recordings = try library.document.recordings(
                at: paths.map { (path: $0, item: try library.item(at: $0)) }, recursive: recursive)
            show(recordings, library: library)
            return
        }
        let library = try global.openLibrary()
        let renderer = ChangedItems(library: library)
        let current = library.state.currentFolder
        let recordings = try library.documents.transaction { tx in
            try tx.enhance(paths, level: level, denoise: denoise, recursive: recursive, from: current)
        }
        if output.json {
            renderer.finish(json: true)
        } else if !global.quiet {
            show(recordings, library: library)
        }
    }

    private func show(_ recordings: [Item], library: Library) {
        if output.json {
            print(ItemJSON.array(recordings, in: library))
        } else {
            for item in recordings {
                print("\(library.document.path(of: item.id)): \(item.annotations.enhance)")
            }
        }
    }
}
