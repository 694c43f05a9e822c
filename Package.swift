// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "recnotes",
    products: [
        .executable(name: "recnotes", targets: ["recnotes"]),
        .executable(name: "recnotes-serve", targets: ["recnotes-serve"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        // The HTTP server of `recnotes serve`, in recnotes-serve alone: the CLI never links it.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", exact: "2.28.1"),
        // Hummingbird's own service runner: its graceful shutdown (SIGTERM) ends the live streams.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // Hummingbird's own NIO, named for the server's connection guard (a channel handler
        // that sees each request's head and each response's end) and its bind error.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        // Hummingbird's own logging API, which the server configures (its level).
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // `serve --tls`: Hummingbird's TLS over swift-nio-ssl, and the self-signed certificate
        // made once with swift-certificates and swift-crypto (all three Hummingbird's own).
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
    ],
    targets: [
        // The few POSIX things Swift cannot call: signalfd's header, sync_file_range, memmem.
        // (Not "CSystem": swift-system, which Hummingbird's NIO brings, has a target of that
        // name, and target names are unique across the package graph.)
        .systemLibrary(name: "CRecSystem"),
        .systemLibrary(
            name: "CAudio",
            pkgConfig: "sndfile",
            providers: [.apt(["libasound2-dev", "libsndfile1-dev"])]
        ),
        // Opening a library on first use (dlopen, dlsym), once per process: the four below.
        .target(name: "CLoader", linkerSettings: [.linkedLibrary("dl")]),
        // CMU PocketSphinx, the built-in transcription engine, opened with dlopen on the first
        // transcription (libpocketsphinx3 at run time; nothing of it at build time).
        .target(name: "CPocketSphinx", dependencies: ["CLoader"]),
        // SoundTouch, the time stretcher of play/export --speed, opened with dlopen on the first
        // stretch (libsoundtouch1's libSoundTouchDll.so.1 at run time; nothing of it at build time).
        .target(name: "CSoundTouch", dependencies: ["CLoader"]),
        // libebur128, the loudness meter of every recording's analysis, opened with dlopen on the
        // first measurement (libebur128-1's libebur128.so.1 at run time; nothing of it at build time).
        .target(name: "CEbur128", dependencies: ["CLoader"]),
        // libqrencode, the QR code of serve's URL at a terminal, opened with dlopen when it is
        // printed (libqrencode4's libqrencode.so.4 at run time; nothing of it at build time).
        .target(name: "CQREncode", dependencies: ["CLoader"]),
        // speexdsp's preprocessor, the noise suppressor of play/export --denoise, opened with dlopen
        // on the first denoising (libspeexdsp1's libspeexdsp.so.1 at run time; nothing of it at build time).
        .target(name: "CSpeexDSP", dependencies: ["CLoader"]),
        // The layers, bottom to top; each may use only those it names (ARCHITECTURE.md).
        // POSIX in typed pieces.
        .target(name: "RecSystem", dependencies: ["CRecSystem"]),
        // Plain values that the engine and the stores both hold, and JSON's primitives.
        .target(name: "RecValues", dependencies: ["RecSystem"]),
        // The audio engine: ALSA and libsndfile. Knows no store.
        .target(
            name: "RecAudio",
            dependencies: ["RecSystem", "RecValues", "CAudio", "CSoundTouch", "CEbur128", "CSpeexDSP"]),
        // Speech to text; decodes through the engine. Knows no store.
        .target(name: "RecTranscripts", dependencies: ["RecSystem", "RecValues", "RecAudio", "CPocketSphinx"]),
        // The two stores, their codecs, paths and search. Knows no device and decodes no audio.
        .target(name: "RecStore", dependencies: ["RecSystem", "RecValues"]),
        // Sync between machines: the store directory as a git and git-annex repository,
        // and the three-way merge of two libraries. Above the stores, below RecCore.
        .target(name: "RecSync", dependencies: ["RecSystem", "RecValues", "RecStore"]),
        // Where the engine meets the stores: sessions, presentation, browse.
        .target(
            name: "RecCore",
            dependencies: ["RecSystem", "RecValues", "RecAudio", "RecTranscripts", "RecStore", "RecSync"]
        ),
        // BuildInfo.version alone, which VersionStamp writes from git before each build
        // (scripts/version.sh). SwiftPM's import check skips a target that uses a plugin and all
        // that depend on it, so the plugin is kept out of the layers: only the CLI uses it.
        .target(name: "RecBuildInfo", plugins: ["VersionStamp"]),
        .plugin(name: "VersionStamp", capability: .buildTool()),
        .executableTarget(
            name: "recnotes",
            dependencies: [
                "RecSystem", "RecValues", "RecAudio", "RecTranscripts", "RecStore", "RecSync", "RecCore",
                "RecBuildInfo",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // libstdc++ linked statically in release builds: see scripts/static-libstdc++.
            linkerSettings: [
                .unsafeFlags(
                    ["-L", Context.packageDirectory + "/scripts/static-libstdc++"],
                    .when(platforms: [.linux], configuration: .release)
                )
            ]
        ),
        // `recnotes serve`'s HTTP front end over RecCore: routes, access, audio with
        // Range. A front end beside the CLI; RecCore says what each API route answers.
        .target(
            name: "RecServe",
            dependencies: [
                "RecSystem", "RecValues", "RecStore", "RecCore", "CQREncode",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            // The web page, compiled into the binary as byte arrays (PackageResources): no
            // files to install beside it, no build step.
            resources: [
                .embedInCode("Page/index.html"), .embedInCode("Page/page.css"), .embedInCode("Page/page.js"),
                .embedInCode("Page/record.js"), .embedInCode("Page/capture.js"), .embedInCode("Page/sw.js"),
                .embedInCode("Page/manifest.webmanifest"), .embedInCode("Page/icon.svg"),
            ]
        ),
        // The server's executable, which `recnotes serve` runs (execv) from its own directory,
        // so that the CLI's binary and start-up carry no HTTP server.
        .executableTarget(
            name: "recnotes-serve",
            dependencies: [
                "RecSystem", "RecStore", "RecCore", "RecServe",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The transcription engines alone, for bench/transcribe.sh.
        .executableTarget(
            name: "recnotes-transcribe",
            dependencies: ["RecSystem", "RecValues", "RecTranscripts"],
            path: "bench/transcribe"
        ),
        // store.json's encoder alone, timed, for bench/encode.sh.
        .executableTarget(
            name: "recnotes-encode",
            dependencies: ["RecStore"],
            path: "bench/encode"
        ),
        // A seek in an edited recording against one in its take, for bench/spans.sh.
        .executableTarget(
            name: "recnotes-spans",
            dependencies: ["RecValues", "RecAudio"],
            path: "bench/spans"
        ),
        // What the unit tests of every layer share (a scratch directory, a small store).
        .target(
            name: "RecTestSupport", dependencies: ["RecSystem", "RecValues", "RecStore"], path: "Tests/RecTestSupport"
        ),
        // The unit tests of each layer, against that layer alone.
        .testTarget(name: "RecSystemTests", dependencies: ["RecSystem"]),
        .testTarget(name: "RecAudioTests", dependencies: ["RecSystem", "RecValues", "RecAudio", "RecTestSupport"]),
        .testTarget(
            name: "RecTranscriptsTests",
            dependencies: [
                "RecSystem", "RecValues", "RecAudio", "RecTranscripts", "RecTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "RecStoreTests",
            dependencies: [
                "RecSystem", "RecValues", "RecStore", "RecTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "RecSyncTests", dependencies: ["RecSystem", "RecValues", "RecStore", "RecSync", "RecTestSupport"]
        ),
        .testTarget(
            name: "RecCoreTests",
            dependencies: [
                "RecSystem", "RecValues", "RecAudio", "RecStore", "RecTranscripts", "RecCore", "RecTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // The server's routes in-process (HummingbirdTesting), against the CLI's --json output.
        .testTarget(
            name: "RecServeTests",
            dependencies: [
                "RecSystem", "RecValues", "RecStore", "RecCore", "RecServe", "RecTestSupport", "recnotes",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "recnotes", "recnotes-serve", "RecSystem", "RecValues", "RecAudio", "RecTranscripts", "RecStore",
                "RecCore", "RecTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
                // QuickParseTests compares the quick parses (play, tag, mkdir, mv, note) with argument-parser's.
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
