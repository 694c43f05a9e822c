import Foundation
import Testing

/// Every `import` of one of the package's own targets is one its target declares in
/// Package.swift. SwiftPM's own check (`--explicit-target-dependency-import-check`) is best
/// effort: it skips each target that uses a plugin or depends on one, and stops at the first
/// target it cannot scan.
@Suite("Imports: each target imports only what Package.swift says it depends on")
struct ImportLayersTests {
    /// The package's root, two folders above this file's.
    static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    struct Target {
        var name: String
        var directory: String
        var dependencies: Set<String>
        /// A C library's module map (`systemLibrary`): imported, never scanned.
        var isSystem = false
    }

    /// The modules the toolchain brings: every target may import them without declaring them.
    static let toolchainModules: Set<String> = [
        "Foundation", "FoundationEssentials", "Glibc", "Musl", "Dispatch", "Synchronization", "Testing", "XCTest",
        "PackagePlugin",
    ]

    /// The targets as `swift package dump-package` describes them, with a scratch path of their
    /// own so that a running build's lock on .build is never waited for.
    static func targets() throws -> [Target] {
        let scratch = FileManager.default.temporaryDirectory.appending(path: "imports-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = ["swift", "package", "--package-path", root, "--scratch-path", scratch, "dump-package"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "swift package dump-package failed")
        let package = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let described = try #require(package["targets"] as? [[String: Any]])
        return try described.compactMap { target in
            let name = try #require(target["name"] as? String)
            let type = try #require(target["type"] as? String)
            guard type != "plugin" else { return nil }
            let path = target["path"] as? String ?? (type == "test" ? "Tests/" : "Sources/") + name
            var dependencies = Set<String>()
            for dependency in target["dependencies"] as? [[String: Any]] ?? [] {
                for case let value as [Any] in dependency.values {
                    if let dependencyName = value.first as? String { dependencies.insert(moduleName(dependencyName)) }
                }
            }
            return Target(
                name: moduleName(name), directory: root + "/" + path, dependencies: dependencies,
                isSystem: type == "system")
        }
    }

    static func moduleName(_ targetName: String) -> String { targetName.replacingOccurrences(of: "-", with: "_") }

    /// The modules a Swift file imports: `import X`, `@testable import X`, `import struct X.Y`;
    /// not the lines of a multi-line string (a Python script's imports).
    static func imports(of file: String) throws -> [(line: Int, module: String)] {
        let kinds: Set<Substring> = ["struct", "class", "enum", "protocol", "typealias", "func", "var", "let"]
        var found: [(line: Int, module: String)] = []
        var inString = false
        for (index, line) in try String(contentsOfFile: file, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false
        ).enumerated() {
            if line.split(separator: "\"\"\"", omittingEmptySubsequences: false).count % 2 == 0 {
                inString.toggle()
                continue
            }
            guard !inString else { continue }
            var words = line.split(separator: " ")[...]
            // Attributes (`@testable`), not an attribute with arguments (`@Test("…")`).
            while let first = words.first, first.hasPrefix("@"),
                first.dropFirst().allSatisfy({ $0.isLetter || $0 == "_" })
            {
                words = words.dropFirst()
            }
            guard words.first == "import" else { continue }
            words = words.dropFirst()
            if let kind = words.first, kinds.contains(kind) { words = words.dropFirst() }
            guard let path = words.first, let module = path.split(separator: ".").first else { continue }
            found.append((index + 1, String(module)))
        }
        return found
    }

    /// Every import of a module that is not the toolchain's (one of this package's targets, its
    /// C libraries' module maps, a product of a package it depends on, or a module such a
    /// product happens to bring along) names a dependency of the importing target.
    @Test("every import is a declared dependency: own targets, C libraries and other packages' products")
    func importsAreDeclared() throws {
        let targets = try Self.targets()
        let own = Set(targets.map(\.name))
        #expect(own.contains("RecCore"), "no targets read from Package.swift")
        #expect(targets.contains { $0.isSystem }, "no C library targets read from Package.swift")
        var undeclared: [String] = []
        for target in targets where !target.isSystem {
            let files = FileManager.default.enumerator(atPath: target.directory)?.compactMap { $0 as? String }
            for file in (files ?? []).filter({ $0.hasSuffix(".swift") }).sorted() {
                for (line, module) in try Self.imports(of: target.directory + "/" + file)
                where module != target.name && !target.dependencies.contains(module)
                    && !Self.toolchainModules.contains(module)
                {
                    undeclared.append("\(target.directory)/\(file):\(line): \(target.name) imports \(module)")
                }
            }
        }
        #expect(
            undeclared.isEmpty, "imports that Package.swift does not declare:\n\(undeclared.joined(separator: "\n"))")
    }
}
