// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "recnotes",
    products: [
        .executable(name: "recnotes", targets: ["recnotes"]),
        .library(name: "RecCore", targets: ["RecCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CAudio",
            pkgConfig: "sndfile",
            providers: [.apt(["libasound2-dev", "libsndfile1-dev"])]
        ),
        // CMU PocketSphinx, the built-in transcription engine (Transcripts/).
        .systemLibrary(
            name: "CPocketSphinx",
            pkgConfig: "pocketsphinx",
            providers: [.apt(["libpocketsphinx-dev", "libsphinxbase-dev"])]
        ),
        .target(
            name: "RecCore",
            dependencies: [
                "CAudio",
                "CPocketSphinx",
                .product(name: "Atomics", package: "swift-atomics"),
            ],
            plugins: ["VersionStamp"]
        ),
        // Writes BuildInfo.version from git before each build (scripts/version.sh).
        .plugin(name: "VersionStamp", capability: .buildTool()),
        .executableTarget(
            name: "recnotes",
            dependencies: [
                "RecCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The transcription engines alone, for bench/transcribe.sh.
        .executableTarget(
            name: "recnotes-transcribe",
            dependencies: ["RecCore"],
            path: "bench/transcribe"
        ),
        .testTarget(
            name: "RecCoreTests",
            dependencies: ["RecCore", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["recnotes", "RecCore", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
