import RecStore
import RecSync

extension Library {
    /// Refuses a recording whose audio sync left on other machines in one line that names
    /// where it is and the `recnotes get` command: never a libsndfile error about a broken link.
    package func requireAudioHere(_ item: Item) throws {
        guard let file = item.recording?.file, location.audioIsElsewhere(file) else { return }
        throw Annex.notHere(location, file: file, path: document.path(of: item.id))
    }
}
