import RecCore
import RecStore
import RecValues

/// Draws items as text. What each value reads as comes from RecCore's `Format`.
struct ItemRenderer {
    let library: Library
    var color = Terminal.colorOnStdout
    var markFolders = Terminal.isTTY(1)

    func displayName(_ item: Item) -> String {
        guard item.isFolder, markFolders else { return item.name }
        return Terminal.styled(item.name + "/", .folder, enabled: color)
    }

    func printNames(_ items: [Item]) {
        for item in items { print(displayName(item)) }
    }

    func longRow(_ item: Item) -> [String] {
        // Tags follow the name, written as `tag` takes them.
        let name = displayName(item) + item.annotations.tags.map { "  +" + $0 }.joined()
        if let info = item.recording {
            let size =
                library.audioSize(of: item).map(Format.size)
                ?? (library.location.audioIsElsewhere(info.file) ? "not here" : "missing")
            // Trimmed recordings show what plays, marked: 0:42✂.
            let duration =
                item.annotations.trim == nil
                ? Format.duration(info.duration) : Format.duration(item.trimmedDuration) + "✂"
            return ["recording", duration, info.format.rawValue, size, Format.date(item.created), name]
        }
        let count = item.children.count
        return ["folder", "-", Format.count(count, "item"), "-", Format.date(item.created), name]
    }

    func printLong(_ items: [Item]) {
        for line in Terminal.table(items.map(longRow), rightAligned: [1, 3]) { print(line) }
    }
}
