import ArgumentParser
import RecCore

struct Undo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Take back the last change to your recordings and folders.",
        discussion: "Undoes mkdir, mv, rm, record, import and trash restore, newest first. Removed items come back from the trash with their audio. Refused, changing nothing, when a later change conflicts (the trash was emptied, an item was moved since)."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    func run() throws {
        let library = try global.openLibrary()
        let renderer = ChangeRenderer(library: library)
        let entry = try library.documents.undo()
        if output.json {
            renderer.finish(json: true)
        } else if Terminal.isTTY(2) {
            Terminal.writeStderr("undid: \(entry.summary)\n")
        }
    }
}
