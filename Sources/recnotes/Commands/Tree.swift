import ArgumentParser
import RecCore
import RecStore
import RecValues

struct Tree: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tree",
        abstract: "Show a folder and everything under it as a tree."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Argument(help: "The folder to start from; the current folder by default.", completion: .storePath)
    var path: String?

    func run() throws {
        let library = try global.openLibrary()
        let top = try library.item(at: path)
        if output.json {
            Output.json { ItemJSON.writeTree(top, in: library, to: &$0) }
            return
        }
        let renderer = ItemRenderer(library: library, markFolders: true)
        print(renderer.displayName(top))
        draw(top, prefix: "", library: library, renderer: renderer)
    }

    private func draw(_ folder: Item, prefix: String, library: Library, renderer: ItemRenderer) {
        let children = library.document.children(of: folder.id).sorted(by: displayOrder)
        for (i, child) in children.enumerated() {
            let last = i == children.count - 1
            var line = prefix + (last ? "└── " : "├── ") + renderer.displayName(child)
            if let info = child.recording {
                line += "  " + Terminal.styled(Format.duration(info.duration), .dim, enabled: renderer.color)
            }
            print(line)
            if child.isFolder {
                draw(child, prefix: prefix + (last ? "    " : "│   "), library: library, renderer: renderer)
            }
        }
    }
}
