import ArgumentParser
import RecAudio
import RecCore
import RecStore
import RecValues

// How RecCore's values are typed on the command line, in one place.

extension AudioFormat: ExpressibleByArgument {
    /// Names and aliases (`ogg` for vorbis), in any case.
    package init?(argument: String) { self.init(name: argument) }
}

extension RawEncoding: ExpressibleByArgument {}
extension SortKey: ExpressibleByArgument {}
extension ItemKind: ExpressibleByArgument {}
extension ProgressMode: ExpressibleByArgument {}
extension MarkerExport: ExpressibleByArgument {}
extension TranscriptFormat: ExpressibleByArgument {}
