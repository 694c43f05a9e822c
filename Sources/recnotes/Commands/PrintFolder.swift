import ArgumentParser
import RecCore

struct PrintFolder: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pwd",
        abstract: "Print the current folder's path.",
        discussion: "With --json, the folder as an object with the keys ls --json prints."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    func run() throws {
        let library = try global.openLibrary(reading: [nil])
        let folder = library.state.currentFolder
        if output.json {
            print(ItemJSON.object(library.document[folder] ?? library.document.root, in: library))
        } else {
            print(library.document.path(of: folder))
        }
    }
}
