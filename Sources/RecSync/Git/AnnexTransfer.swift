import RecSystem

/// How far the audio being moved has got: what `sync` and `get` show on a terminal
/// (`audio: 3/12 files, 1.2 MB / 4.5 MB  →hub`). One value per git-annex command, renewed as
/// its progress records come in.
package struct TransferProgress: Equatable, Sendable {
    package enum Direction: Equatable, Sendable {
        case receiving, sending
    }

    package var direction: Direction
    /// The remote the audio comes from or goes to; for `get`, where git-annex chose to take
    /// the file under way from (nil until it says).
    package var remote: String?
    /// Files done so far (moved, or given up on: the summary counts those), and how many
    /// there are to move.
    package var files = 0
    package var totalFiles = 0
    /// Bytes moved so far, the file under way's part included, and how many there are.
    package var bytes: Int64 = 0
    package var totalBytes: Int64 = 0

    package init(direction: Direction, remote: String?) {
        self.direction = direction
        self.remote = remote
    }
}

/// Told each new `TransferProgress`, on the thread that runs the transfer.
package typealias TransferObserver = (TransferProgress) -> Void

/// One git-annex transfer (`get`, `copy`, `drop`) run with `--json`, its records read as they
/// come: the one reader of them, for `sync` and for `get` and `drop`. With an observer it adds
/// `--json-progress` and reports how far it has got; the totals come first from
/// `git annex find` with the same matching options, since git-annex names no total itself.
enum AnnexTransfer {
    struct Tally {
        var count = 0
        var bytes: Int64 = 0
        /// The files (as git-annex names them, `audio/…`) it could not move.
        var failed: [String] = []
        /// Why, in git-annex's words (a full disk: `not enough free space, need 98.8 MB more
        /// (…)`), each reason once, in the order met.
        var reasons: [String] = []
    }

    /// Runs `git annex <command> --json [-- files…]`. `plan` is the matching options that
    /// choose, among `files` (all files when none are named), what the command will move
    /// (`--not --in here`): what `git annex find` counts for the totals. A command that fails
    /// having reported no file is one line, `<what>: <git-annex's why>`.
    static func run(
        _ git: Git, _ command: [String], files: [String] = [], plan: [String] = [], what: String,
        progress start: TransferProgress? = nil, observer: TransferObserver? = nil
    ) throws -> Tally {
        let paths = files.isEmpty ? [] : ["--"] + files
        var progress = start
        let observing = observer != nil && start != nil
        // The totals before the move starts: asked for only once something moved, `find`
        // would race git-annex, which may have moved several small files before their records
        // are read. `plan` chooses what the command would try (get --from skips a file the
        // location log does not put there), so with nothing chosen the command is not run:
        // its own walk of every file would find nothing either, and an idle sync on a
        // terminal pays one walk per direction, not two (bench/sync-progress.sh).
        // A `find` that failed says nothing: the command runs, its totals grow as it goes.
        if observing, var planned = progress, let found = try Self.plan(git, matching: plan + paths) {
            guard found.files > 0 else { return Tally() }
            (planned.totalFiles, planned.totalBytes) = found
            progress = planned
            observer?(planned)
        }
        var tally = Tally()
        var sizeOfDone: Int64 = 0
        // The next state of the line: `done` files ended, `bytes` moved in all, the file under
        // way (if any) counted in the totals, which grow should git-annex move more than
        // `find` counted.
        func show(_ record: Annex.Record, done: Int, bytes: Int64, underWay: Bool) {
            guard observing, var shown = progress else { return }
            if start?.remote == nil { shown.remote = record.noteRemote ?? shown.remote }
            shown.files = done
            shown.bytes = bytes
            shown.totalFiles = max(shown.totalFiles, done + (underWay ? 1 : 0))
            shown.totalBytes = max(shown.totalBytes, bytes)
            progress = shown
            observer?(shown)
        }
        // --json-error-messages: a file's failure carries git-annex's why (annex.diskreserve
        // keeping audio off a full disk, a remote's error), which would otherwise go to
        // stderr unattributed.
        let arguments =
            ["annex"] + command + ["--json", "--json-error-messages"] + (observing ? ["--json-progress"] : []) + paths
        let result = try git.capture(arguments) { line in
            guard line.hasPrefix("{"), let record = Annex.parse(String(line)) else { return }
            let done = progress?.files ?? 0
            if let moving = record.progress {
                show(record, done: done, bytes: sizeOfDone + moving, underWay: true)
                return
            }
            if record.success {
                tally.count += 1
                tally.bytes += record.size
            } else {
                tally.failed.append(record.file ?? "")
                for error in record.errors {
                    let reason = Captured.oneLine(error)
                    if !reason.isEmpty, !tally.reasons.contains(reason) { tally.reasons.append(reason) }
                }
            }
            sizeOfDone += record.size
            show(record, done: done + 1, bytes: sizeOfDone, underWay: false)
        }
        if !result.succeeded && tally.failed.isEmpty && tally.count == 0 {
            throw RecError.failure(what, result.reason)
        }
        return tally
    }

    /// How many files `matching` chooses, and their bytes, from their keys
    /// (`SHA256E-s12345--…`); nil when `find` fails.
    static func plan(_ git: Git, matching: [String]) throws -> (files: Int, bytes: Int64)? {
        let found = try git.capture(["annex", "find", "--json"] + matching)
        guard found.succeeded else { return nil }
        var files = 0
        var bytes: Int64 = 0
        for line in found.lines where line.hasPrefix("{") {
            guard let record = Annex.parse(line) else { continue }
            files += 1
            bytes += record.size
        }
        return (files, bytes)
    }
}
