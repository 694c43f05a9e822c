import ArgumentParser
import RecCore

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fsck",
        abstract: "Check the store against its audio files and view state; repair what is safe.",
        discussion: """
        Finds recordings whose audio is missing or unreadable, audio files that belong to no \
        recording, broken parent/child links, duplicate names, a recording left in progress by \
        a process that died, and a view state that points at items that are gone. One line per \
        problem; exit status 1 when any problem is found (with --repair: when any remains).

        --repair never deletes: orphan audio is adopted into /Recovered, links are rebuilt from \
        the items' parent pointers, duplicates get a " (2)" suffix, an interrupted recording is \
        recovered, and the view state is trimmed. Missing or unreadable audio is only reported.
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
            // The store is sound now; the view state is repaired through the stores themselves.
            let library = try global.openLibrary(recover: false)
            report.repairs += try StoreCheck.repairViewState(library)
            report.remaining = try check.run(repair: false).problems
        }
        if output.json {
            print(CheckJSON.report(report, repaired: repair))
        } else {
            for problem in report.problems { print(problem.description) }
            for line in report.repairs { print("repaired: \(line)") }
            if report.problems.isEmpty && Terminal.isTTY(1) { print("no problems found") }
        }
        if !report.remaining.isEmpty { throw ExitCode(ExitStatus.failure) }
    }
}
