// The built programs (`recnotes`, `recnotes-serve`) and one way to run a program to its end.
import Foundation

/// The executables `swift build` put beside the running test bundle.
package enum BuiltProgram {
    /// `name` in the build's bin directory: swift test runs `.../debug/<package>PackageTests.xctest`
    /// (a directory on some platforms, the test executable itself here), and the products sit
    /// beside it.
    package static func path(_ name: String) -> String {
        let exe =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: exe).deletingLastPathComponent()
        if directory.lastPathComponent.hasSuffix(".xctest") { directory.deleteLastPathComponent() }
        return directory.appendingPathComponent(name).path
    }
}

/// What a finished program printed and how it ended.
package struct FinishedProgram: Sendable {
    package var status: Int32
    package var stdout: Data
    package var stderr: Data

    /// Runs `program` with `arguments` and exactly `environment`, stdin from /dev/null, and
    /// waits for it. stderr is read on another thread while stdout is read here, so that neither
    /// pipe fills and stalls the program.
    package static func run(_ program: String, _ arguments: [String], environment: [String: String]) throws
        -> FinishedProgram
    {
        let (process, out, err) = try start(program, arguments, environment: environment)
        // @unchecked: `data` is written by the one reader task and read after `done.wait()`.
        final class Box: @unchecked Sendable { var data = Data() }
        let errors = Box()
        let done = DispatchSemaphore(value: 0)
        let errHandle = err.fileHandleForReading
        DispatchQueue.global().async {
            errors.data = errHandle.readDataToEndOfFile()
            done.signal()
        }
        let output = out.fileHandleForReading.readDataToEndOfFile()
        done.wait()
        process.waitUntilExit()
        return FinishedProgram(status: process.terminationStatus, stdout: output, stderr: errors.data)
    }

    /// `program` started with exactly `environment`, pipes for stdout and stderr and
    /// /dev/null as stdin: the set-up of `run`, for a caller that signals it or reads it as it goes.
    package static func start(_ program: String, _ arguments: [String], environment: [String: String]) throws -> (
        Process, out: Pipe, err: Pipe
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, out, err)
    }
}
