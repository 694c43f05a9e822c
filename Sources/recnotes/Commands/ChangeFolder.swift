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
        let resolver = library.resolver
        let target = try resolver.resolveFolder(path ?? "/")
        let route = library.document.ancestry(of: target.id).map(\.id)
        try library.viewState.transaction { state in
            // Pops and pushes are computed against the restored stack, as the user sees it.
            let visible = state.state.restored(against: library.document).folderStack
            if visible != state.state.folderStack { state.navigate(to: visible) }
            state.navigate(to: route)
        }
    }
}
