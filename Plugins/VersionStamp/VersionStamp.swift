import Foundation
import PackagePlugin

/// Before every build, writes RecBuildInfo's `BuildInfo.version` from git (scripts/version.sh),
/// so that a tag vX.Y.Z sets the version everywhere and nothing has to be edited by hand.
@main
struct VersionStamp: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL
        let script = context.package.directoryURL.appending(path: "scripts/version.sh")
        return [
            .prebuildCommand(
                displayName: "Stamping the recnotes version",
                executable: URL(filePath: "/bin/sh"),
                arguments: [script.path, "--swift", output.appending(path: "BuildInfo.swift").path],
                outputFilesDirectory: output
            )
        ]
    }
}
