// swift-tools-version: 6.0
// Fermata: a headless, gapless jukebox for single-board computers.
import PackageDescription

let package = Package(
    name: "Fermata",
    products: [
        .executable(name: "fermata", targets: ["fermata"]),
        .executable(name: "fermata-bench", targets: ["FermataBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // System libraries (Debian -dev packages named in `providers`).
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CFLAC", pkgConfig: "flac", providers: [.apt(["libflac-dev"])]),
        .systemLibrary(name: "CVorbis", pkgConfig: "vorbisfile", providers: [.apt(["libvorbis-dev"])]),
        .systemLibrary(name: "CGPIOD", pkgConfig: "libgpiod", providers: [.apt(["libgpiod-dev"])]),
        .systemLibrary(name: "CSoxr", pkgConfig: "soxr", providers: [.apt(["libsoxr-dev"])]),

        // Formats, the lock-free PCM ring, track marks, gain and crossfade maths. No Foundation.
        .target(name: "CThreadShim"),
        .target(name: "AudioCore", dependencies: ["CThreadShim"]),
        // Domain values and the control contract shared by every front end.
        .target(name: "FermataCore", dependencies: ["AudioCore"]),
        // FLAC, Ogg Vorbis and WAV decoders behind one contract; tag readers beside them.
        .target(name: "Decoders", dependencies: ["AudioCore", "CFLAC", "CVorbis"]),
        // ALSA and paced-null sinks behind `AudioSink`.
        .target(name: "AudioOutput", dependencies: ["AudioCore", "CALSA"]),
        // The engine: decoder thread, output thread, gapless hand-over, loops, transport.
        .target(
            name: "Player",
            dependencies: [
                "AudioCore", "FermataCore", "Decoders", "AudioOutput", "CSoxr",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "fermata",
            dependencies: [
                "Player", "AudioOutput", "FermataCore", "Decoders",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "FermataBench",
            dependencies: ["Player", "AudioOutput", "FermataCore", "TestSupport"]
        ),

        .target(name: "TestSupport", dependencies: ["AudioCore", "CFLAC"], path: "Tests/TestSupport"),
        .testTarget(name: "AudioCoreTests", dependencies: ["AudioCore"]),
        .testTarget(name: "DecodersTests", dependencies: ["Decoders", "TestSupport"]),
        .testTarget(name: "PlayerTests", dependencies: ["Player", "AudioOutput", "Decoders", "TestSupport", "CALSA"]),
    ]
)
