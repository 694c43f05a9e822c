import ArgumentParser
import RecCore

struct ChangeFolder: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cd",
        abstract: "Change the current folder.",
        discussion: "The folder stack is kept in viewstate.json, so the next command starts where this one left off."
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The folder to go to; the root by default.", completion: .storePath)
    var path: String?

    func run() throws {
        let library = try global.openLibrary()
        try library.changeFolder(to: path)
    }
}
