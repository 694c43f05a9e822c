import ArgumentParser
import RecCore

struct State: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "state",
        abstract: "Print the view state as JSON.",
        discussion:
            "The book's state logging: the folder stack, the selected recording and its play position, and any recording in progress, as they apply to the current store."
    )

    @OptionGroup var global: GlobalOptions
    /// Accepted for symmetry with every other data command: state is always JSON.
    @OptionGroup var output: JSONOption

    func run() throws {
        let library = try global.openLibrary()
        print(ItemJSON.viewState(library.state, in: library))
    }
}
