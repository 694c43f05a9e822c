import ArgumentParser
import RecCore

struct MakeFolder: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mkdir",
        abstract: "Create folders.",
        discussion: "All folders are created, or none: a command that fails changes nothing."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Flag(name: .customShort("p"), help: "Create missing parent folders; an existing folder is not an error.")
    var parents = false

    @Argument(help: "The folders to create.", completion: .storePath)
    var paths: [String]

    func validate() throws {
        if paths.isEmpty { throw ValidationError("Missing expected argument '<paths> ...'") }
    }

    func run() throws {
        let library = try global.openLibrary()
        let renderer = ChangeRenderer(library: library)
        let current = library.state.currentFolder
        try library.documents.transaction { tx in
            try paths.flatMap { try tx.makeFolder(at: $0, from: current, createParents: parents) }
        }
        renderer.finish(json: output.json)
    }
}
