import RecStore
import RecSystem
import RecValues

/// What `/api/events` tells an open page: the store's document or a transcript
/// changed, seen by inotify on the store directory and on transcripts/ (`DirectoryWatch`).
/// Any write of the library, by any process, is an atomic rename of store.json or of a
/// transcript, so these two directories see every change a page could show. A recording in
/// progress with live words adds to its words file in cache/live/, watched too.
package final class StoreEvents {
    package enum Event: Equatable, Sendable {
        /// store.json was replaced: folders, names, tags, notes, markers, anything.
        case store
        /// transcripts/UUID.json was written or replaced.
        case transcript(String)
        /// A recording in progress heard more: all its words so far.
        case words(uuid: String, text: String)

        /// The event as Server-Sent Events text: `event: store` or `event: transcript` with
        /// the recording's UUID as its data, then the blank line that ends it.
        package var text: String {
            switch self {
            case .store: return "event: store\ndata: store.json\n\n"
            case .transcript(let uuid): return "event: transcript\ndata: \(uuid)\n\n"
            case .words(let uuid, let text):
                var w = JSONWriter()
                w.beginObject()
                w.field("uuid", uuid)
                w.field("text", text)
                w.endObject()
                return "event: words\ndata: \(String(decoding: w.bytes, as: UTF8.self))\n\n"
            }
        }
    }

    private let location: StoreLocation
    private let store: DirectoryWatch?
    /// transcripts/ is made by the first transcription: watched from when it exists.
    private var transcripts: DirectoryWatch?
    /// cache/live/, made by the first recording with live words: the same.
    private var live: DirectoryWatch?
    private let liveFiles: LiveWordsFiles

    /// Watches from now on; nil when inotify cannot be had (no instances left).
    package init?(_ location: StoreLocation) {
        guard let store = DirectoryWatch(location.directory) else { return nil }
        self.location = location
        self.store = store
        self.transcripts = DirectoryWatch(location.transcriptsDirectory)
        liveFiles = LiveWordsFiles(location: location)
        live = DirectoryWatch(liveFiles.directory)
    }

    /// The changes since the last call (never blocks): one `.store` however many times
    /// store.json was replaced, one `.transcript` for each recording whose transcript was.
    /// Without `transcripts`, store.json's alone (transcripts/'s wait for the next call that
    /// looks: a look costs three system calls more while transcripts/ does not exist).
    package func poll(transcripts lookAtTranscripts: Bool = true) -> [Event] {
        var events: [Event] = []
        let names = store?.drain() ?? []
        if names.contains(FileSystem.baseName(of: location.storeFile)) || names.contains(DirectoryWatch.overflowName) {
            events.append(.store)
        }
        guard lookAtTranscripts else { return events }
        var transcribed = transcripts?.drain() ?? []
        if transcripts == nil {
            transcripts = DirectoryWatch(location.transcriptsDirectory)
            // Made since the last poll: the transcripts it holds already are news.
            if transcripts != nil { transcribed = Set(FileSystem.entries(of: location.transcriptsDirectory)) }
        }
        let suffix = ".json"
        for name in transcribed.sorted() where name.hasSuffix(suffix) {
            events.append(.transcript(String(name.dropLast(suffix.count))))
        }
        var written = live?.drain() ?? []
        if live == nil {
            live = DirectoryWatch(liveFiles.directory)
            // Made since the last poll: the words it holds already are news.
            if live != nil { written = Set(FileSystem.entries(of: liveFiles.directory)) }
        }
        let words = ".words"
        for name in written.sorted() where name.hasSuffix(words) {
            let uuid = String(name.dropLast(words.count))
            if let id = ItemID(uuid), let text = liveFiles.text(of: id) {
                events.append(.words(uuid: uuid, text: text))
            }
        }
        return events
    }
}
