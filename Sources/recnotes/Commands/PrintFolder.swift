import ArgumentParser
import RecCore

struct PrintFolder: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pwd",
        abstract: "Print the current folder's path."
    )

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let library = try global.openLibrary()
        print(library.document.path(of: library.state.currentFolder))
    }
}
