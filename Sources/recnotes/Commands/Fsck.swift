import ArgumentParser
import RecCore
import RecStore
import RecSync
import RecSystem
import RecValues

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fsck",
        abstract: "Check the store against its audio files and view state; repair what is safe.",
        discussion: """
            Finds recordings whose audio is missing or unreadable, audio files that belong to no \
            recording, broken parent/child links, duplicate names, a recording left in progress by \
            a process that died, a view state that points at items that are gone, temporary files \
            of a process that is gone, and a store.json lost beside its audio and journal or \
            no longer readable as JSON. One line per problem; exit status 1 when any problem is \
            found (with --repair: when any remains). What a store from an older version lacks \
            (the levels and waveform measured once; the loudness, before version 5) is not a problem: a 'note:' line says what \
            --repair would add, and the exit status stays 0. When no problem is left it says so \
            in one line: 'fsck: 12 folders, 40 recordings, 0 problems'.

            --repair never deletes audio: orphan audio is adopted into /Recovered, links are rebuilt \
            from the items' parent pointers, duplicates get a " (2)" suffix, an interrupted \
            recording is recovered, and the view state is trimmed. A lost store.json is rebuilt \
            from the journal (names and folders) and the audio files; what the journal does not \
            know goes into /Recovered. A store.json that no longer decodes (cut short, damaged) \
            is moved aside as store.json.broken-<time>, kept, and rebuilt the same way, with the \
            items and trash entries of its lines that are still whole; what could not be \
            recovered is said in 'not repaired:' lines. Empty orphan audio files and temporary files of a dead \
            process hold nothing and are removed. Missing or unreadable audio is only reported; in a sync repository, an audio \
            link that git once had is restored (the content is here, or 'get' brings it). \
            A read-only store is checked without taking its lock, and --repair is refused.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Flag(help: "Fix what is safe to fix.")
    var repair = false

    func run() throws {
        let location = try global.location()
        let check = StoreCheck(location: location)
        var report = try check.run(repair: repair)
        if repair && !report.problems.isEmpty {
            // A missing audio file that git-annex tracks: its link comes back from git.
            let links = try FileLock.withLock(location.storeLockFile) { try AudioLinks.restoreMissing(location) }
            report.repairs += links.map { link in
                let copies = link.copies.isEmpty ? "no copy is known" : "copies: \(link.copies.joined(separator: ", "))"
                return "audio/\(link.file): link restored from git (\(copies))"
            }
            // The store is sound now; the view state is repaired through the stores themselves.
            let library = try global.openLibrary(recover: false)
            try StoreCheck.repairViewState(library, into: &report)
            let after = try check.run(repair: false)
            report.remaining = after.remaining
            (report.folders, report.recordings) = (after.folders, after.recordings)
        }
        if output.json {
            print(CheckJSON.report(report, repaired: repair))
        } else {
            for problem in report.problems { print(problem.isDamage ? problem.description : "note: \(problem)") }
            for line in report.repairs { print("repaired: \(line)") }
            for line in report.notRepaired { print("not repaired: \(line)") }
            if report.remaining.isEmpty {
                print(
                    "fsck: \(plural(report.folders, "folder")), \(plural(report.recordings, "recording")), 0 problems")
            }
        }
        if !report.remaining.isEmpty { throw ExitCode(ExitStatus.failure) }
    }

    private func plural(_ count: Int, _ noun: String) -> String { Format.count(count, noun) }
}
