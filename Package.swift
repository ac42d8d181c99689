// swift-tools-version: 6.2
// Swift 6.2 or later: swift-log 1.16 and swift-service-lifecycle 2.13 (the versions the package mirror holds) declare
// tools 6.2, GRDB 7.10 and swift-nio 2.101 6.1; Debian 13's packaged Swift 6.0.3 cannot resolve them.
// Fermata: a headless, gapless jukebox for single-board computers.
//
// Module graph (one-way, by layer; the targets below come in this order; README "Layout" says what each holds):
//   C          Sources/C: system libraries (CALSA, CFLAC, …: module maps over Debian's -dev packages) and our C
//              shims (C…Shim: code Swift cannot write or import: ioctl macros, O_DIRECT, SoundTouch's C++, dlopen)
//   core       AudioCore ← FermataCore
//   media      FermataCore ← Decoders ← Engine;  AudioCore ← AudioOutput ← Engine
//   player     Engine ← Player
//   storage    FermataCore, DatabaseFile ← Library, StateDatabase, Practice, Recording (each adds its tables to the one file;
//              the daemon composes them: DatabaseSchema.fermata)
//   protocol   FermataCore ← MPDProtocol ← MPDServer
//   controls   FermataCore ← FermataConfig ← Controls
//   programs   Daemon (all of the above) ← FermatadCommand ← fermatad, fermata (the CLI, and the daemon when called
//              as `fermatad`: the installed program);  fermata ← Engine, Player, Controls, FermataConfig
//   benchmarks Sources/Benchmarks: one program per figure family in the README
import PackageDescription

/// The installed programs' LOAD segments are aligned to 16 KiB, so they also run on kernels with 16 KiB pages
/// (Raspberry Pi 5); deploy/build-for-board.sh checks it with readelf.
let boardPageAlignment: [LinkerSetting] = [
    .unsafeFlags(["-Xlinker", "-z", "-Xlinker", "max-page-size=16384",
                  "-Xlinker", "-z", "-Xlinker", "common-page-size=16384"]),
]

// MARK: C — system libraries (the Debian -dev package in `providers`) and our shims

let cTargets: [Target] = [
    .systemLibrary(name: "CALSA", path: "Sources/C/CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
    .systemLibrary(name: "CFLAC", path: "Sources/C/CFLAC", pkgConfig: "flac", providers: [.apt(["libflac-dev"])]),
    .systemLibrary(name: "CVorbis", path: "Sources/C/CVorbis", pkgConfig: "vorbisfile", providers: [.apt(["libvorbis-dev"])]),
    .systemLibrary(name: "CGPIOD", path: "Sources/C/CGPIOD", pkgConfig: "libgpiod", providers: [.apt(["libgpiod-dev"])]),
    .systemLibrary(name: "CSoxr", path: "Sources/C/CSoxr", pkgConfig: "soxr", providers: [.apt(["libsoxr-dev"])]),
    .systemLibrary(name: "CMPG123", path: "Sources/C/CMPG123", pkgConfig: "libmpg123", providers: [.apt(["libmpg123-dev"])]),
    .systemLibrary(name: "COpusFile", path: "Sources/C/COpusFile", pkgConfig: "opusfile", providers: [.apt(["libopusfile-dev"])]),
    // FFmpeg's demuxer and AAC/ALAC decoders, loaded with dlopen (optional on a board): built against the headers of
    // libavformat-dev and libavcodec-dev, linked against nothing of FFmpeg.
    .target(name: "CAVShim", path: "Sources/C/CAVShim", linkerSettings: [.linkedLibrary("dl")]),
    // SoundTouch's tempo change behind a C interface (SoundTouch has only a C++ API).
    .target(name: "CTimeStretchShim", path: "Sources/C/CTimeStretchShim",
            linkerSettings: [.linkedLibrary("SoundTouch"), .linkedLibrary("stdc++")]),
    // eSpeak NG for spoken announcements, behind three C calls.
    .target(name: "CSpeechShim", path: "Sources/C/CSpeechShim", linkerSettings: [.linkedLibrary("espeak-ng")]),
    // Thread names, a monotonic semaphore wait, malloc_trim: what the threads need that Swift cannot call directly.
    .target(name: "CThreadShim", path: "Sources/C/CThreadShim"),
    // O_DIRECT, which Swift's Glibc module leaves out (the position checkpoint file).
    .target(name: "CFileShim", path: "Sources/C/CFileShim"),
    // libgpiod v1 and v2 behind one C interface.
    .target(name: "CGPIOShim", dependencies: ["CGPIOD"], path: "Sources/C/CGPIOShim"),
    // The evdev ioctls (EVIOCGRAB, EVIOCGNAME, ...: macros Swift cannot import), inotify and epoll; no library.
    .target(name: "CEvdevShim", path: "Sources/C/CEvdevShim"),
    // libxcrypt (Debian's libcrypt1, always installed): yescrypt for the web remote's passwords.
    .systemLibrary(name: "CCrypt", path: "Sources/C/CCrypt", providers: [.apt(["libcrypt-dev"])]),
    // libcurl (libcurl4-openssl-dev) for network streams, behind typed calls (curl_easy_setopt is variadic).
    .target(name: "CCurlShim", path: "Sources/C/CCurlShim", linkerSettings: [.linkedLibrary("curl")]),
    // zlib: the web remote's page gzipped once at start.
    .systemLibrary(name: "CZlib", path: "Sources/C/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
]

// MARK: core — values every layer shares

let coreTargets: [Target] = [
    // Formats, the lock-free PCM ring, track marks, gain and crossfade maths. No Foundation.
    .target(name: "AudioCore", dependencies: ["CThreadShim"]),
    // Domain values and the control contract shared by every front end.
    .target(name: "FermataCore", dependencies: ["AudioCore"]),
]

// MARK: media — decoding and the playing core

let mediaTargets: [Target] = [
    // FLAC, Ogg Vorbis, Opus, MP3, AAC/ALAC (MP4) and WAV decoders behind one contract; tag readers beside them.
    .target(name: "Decoders", dependencies: ["AudioCore", "FermataCore", "CFLAC", "CVorbis", "CMPG123", "COpusFile", "CAVShim"]),
    // Network streams: libcurl fetch, ICY metadata, remote playlists, the stream decoders and the PCM ring the
    // decoder thread reads a stream from (a thread per stream; reconnects and bounds).
    .target(name: "Streams", dependencies: ["AudioCore", "FermataCore", "Decoders", "CCurlShim", "CFLAC", "CVorbis",
                                            "CMPG123", "COpusFile", "CAVShim"]),
    // ALSA and paced-null sinks behind `AudioSink`.
    .target(name: "AudioOutput", dependencies: ["AudioCore", "CALSA"]),
    // The playing core: decoder and output threads around two state machines; no Foundation, no logging.
    .target(name: "Engine", dependencies: ["AudioCore", "FermataCore", "Decoders", "Streams", "AudioOutput", "CSoxr",
                                           "CTimeStretchShim"]),
]

// MARK: player — the queue and the modes, a reducer over the engine

let playerTargets: [Target] = [
    // `PlayerState` and its reducer, driven by the `Player` actor; announcements through eSpeak.
    .target(
        name: "Player",
        dependencies: [
            "AudioCore", "FermataCore", "Decoders", "Engine", "CSpeechShim",
            .product(name: "Logging", package: "swift-log"),
        ]
    ),
]

// MARK: storage — the one SQLite file

let storageTargets: [Target] = [
    // The state database file: its connections and settings, the migration runner, the schema each module adds.
    .target(name: "DatabaseFile", dependencies: [.product(name: "GRDB", package: "GRDB.swift")]),
    // The music library: its tables and migrations, the scanner (Scanner/), search, custom metadata.
    .target(
        name: "Library",
        dependencies: [
            "AudioCore", "FermataCore", "Decoders", "DatabaseFile",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "GRDBSQLite", package: "GRDB.swift"),
            .product(name: "Logging", package: "swift-log"),
        ]
    ),
    // The state database beside the library's tables: queue, player state, outputs, cards, the position checkpoint
    // file, and their migrations. Knows the domain values (FermataCore), not the player that makes them.
    .target(
        name: "StateDatabase",
        dependencies: [
            "FermataCore", "DatabaseFile", "CFileShim",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Logging", package: "swift-log"),
        ]
    ),
    // Recording yourself: the capture device and its thread, the capture ring, the take writer (FLAC, committed whole
    // or not at all) and the takes folder.
    .target(
        name: "Recording",
        dependencies: ["AudioCore", "AudioOutput", "FermataCore", "CALSA", "CFLAC", "DatabaseFile",
                       .product(name: "GRDB", package: "GRDB.swift")]
    ),
    // Practice statistics: what counts as practice, the tally by day and subject, the recorder, its store and its
    // tables' migrations.
    .target(
        name: "Practice",
        dependencies: [
            "FermataCore", "DatabaseFile",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Logging", package: "swift-log"),
        ]
    ),
]

// MARK: protocol — MPD's, without and with I/O

let protocolTargets: [Target] = [
    // The MPD protocol without I/O: tokenizer, ACK errors, command table (data), handlers, per-connection session.
    .target(name: "MPDProtocol", dependencies: ["FermataCore"]),
    // The web remote: its JSON API (over the MPD backend's contract), sessions, server-sent events, the page's files
    // embedded in the program (Hummingbird 2 serves them).
    .target(
        name: "WebRemote",
        dependencies: [
            "AudioCore", "FermataCore", "MPDProtocol", "CCrypt", "CZlib",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"),
        ],
        resources: [
            .embedInCode("Assets/index.html"), .embedInCode("Assets/app.css"), .embedInCode("Assets/app.js"),
            .embedInCode("Assets/views.js"),
            .embedInCode("Assets/manifest.webmanifest"), .embedInCode("Assets/icon.svg"),
            .embedInCode("Assets/icon-180.png"), .embedInCode("Assets/openapi.yaml"),
        ]
    ),
    // The SwiftNIO listener (TCP + Unix socket) that feeds client lines to MPDProtocol sessions.
    .target(
        name: "MPDServer",
        dependencies: [
            "AudioCore", "FermataCore", "MPDProtocol",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"),
        ]
    ),
]

// MARK: controls — the configuration file and physical controls

let controlsTargets: [Target] = [
    // The configuration file format, its documented keys and their defaults (shared by fermatad and fermata).
    .target(name: "FermataConfig", dependencies: ["AudioCore", "FermataCore"]),
    // Physical controls: GPIO buttons and encoders, evdev pedals and remotes, card readers; debounce, gestures,
    // rotary decoding, keymap, board profiles.
    .target(
        name: "Controls",
        dependencies: [
            "AudioCore", "CGPIOShim", "CEvdevShim", "FermataCore", "FermataConfig",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]
    ),
]

// MARK: programs — the composition root and the two installed programs

let programTargets: [Target] = [
    // The composition root: services, the MPD adapter, systemd glue (the fermatad target only starts them).
    .target(
        name: "Daemon",
        dependencies: [
            "AudioCore", "FermataCore", "FermataConfig", "Engine", "Player", "AudioOutput", "Decoders", "Library",
            "StateDatabase", "Practice", "Recording", "MPDProtocol", "MPDServer", "Controls", "DatabaseFile",
            "WebRemote", "Streams",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]
    ),
    // The daemon's command line (options, configuration, logging), for both programs below.
    .target(
        name: "FermatadCommand",
        dependencies: [
            "AudioCore", "Daemon", "FermataConfig", "FermataCore", "Controls",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]
    ),
    .executableTarget(name: "fermatad", dependencies: ["FermatadCommand"], linkerSettings: boardPageAlignment),
    // The installed program: the CLI, and the daemon when called as `fermatad` (the package links it so), so the
    // runtime is on the board once.
    .executableTarget(
        name: "fermata",
        dependencies: [
            "AudioCore", "FermatadCommand", "Daemon", "Engine", "Player", "AudioOutput", "FermataCore", "Decoders", "Controls",
            "FermataConfig", "MPDProtocol",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ],
        linkerSettings: boardPageAlignment
    ),
]

// MARK: benchmarks — the programs behind the README's figures

let benchmarkTargets: [Target] = [
    // The engine: CPU per audio second, seek and pause latency.
    .executableTarget(
        name: "FermataBench", dependencies: ["AudioCore", "Engine", "Player", "AudioOutput", "FermataCore", "TestSupport"],
        path: "Sources/Benchmarks/FermataBench"
    ),
    // Restart with a large queue, fermatad beside MPD; the queue codec beside Codable (`--codec`).
    .executableTarget(name: "ResumeBench", dependencies: ["AudioCore", "FermataCore", "StateDatabase", "TestSupport"],
                      path: "Sources/Benchmarks/ResumeBench"),
    // Library scans beside MPD's.
    .executableTarget(
        name: "LibraryBench", dependencies: ["Library", "DatabaseFile", .product(name: "Logging", package: "swift-log")],
        path: "Sources/Benchmarks/LibraryBench"
    ),
    // Button and encoder latency and idle cost.
    .executableTarget(
        name: "ControlsBench",
        dependencies: ["AudioCore", "Controls", "FermataCore", .product(name: "Logging", package: "swift-log")],
        path: "Sources/Benchmarks/ControlsBench"
    ),
    // What the practice statistics cost (bytes written per hour, time per observation).
    .executableTarget(
        name: "PracticeBench", dependencies: ["Daemon", "DatabaseFile", "Practice", "FermataCore", "TestSupport"],
        path: "Sources/Benchmarks/PracticeBench"
    ),
    // Hostile and heavy clients against fermatad and MPD side by side: time, peak RSS, other clients' latency.
    .executableTarget(
        name: "AbuseBench", dependencies: ["AudioCore", "TestSupport"], path: "Sources/Benchmarks/AbuseBench"
    ),
]

// MARK: tests

let testTargets: [Target] = [
    .target(
        name: "TestSupport", dependencies: ["AudioCore", "CFLAC", .product(name: "Logging", package: "swift-log")],
        path: "Tests/TestSupport"
    ),
    .testTarget(name: "AudioCoreTests", dependencies: ["AudioCore", "TestSupport"]),
    .testTarget(name: "FermataCoreTests", dependencies: ["FermataCore"]),
    // The configuration file, its keys and the reference generated from them.
    .testTarget(name: "FermataConfigTests", dependencies: ["FermataConfig", "FermataCore", "TestSupport"]),
    // The database file's runner and its schema's shape, with migrations of the test's own.
    .testTarget(
        name: "DatabaseFileTests",
        dependencies: ["DatabaseFile", "TestSupport", .product(name: "GRDB", package: "GRDB.swift")]
    ),
    .testTarget(name: "DaemonCrashTests", dependencies: ["TestSupport"], exclude: ["Fixtures"]),
    // Device, disk and configuration faults through the built fermatad (card loss and disk faults in ../shared/kernel-lab).
    .testTarget(name: "DaemonFaultTests", dependencies: ["TestSupport"], exclude: ["guest"]),
    .testTarget(name: "DeployTests", dependencies: ["TestSupport"]),
    .testTarget(
        name: "ControlsTests",
        dependencies: ["AudioCore", "Controls", "FermataConfig", "FermataCore", "TestSupport",
                       .product(name: "Logging", package: "swift-log")]
    ),
    // Boots a real kernel (gpio-sim) through ../shared/kernel-lab and drives the built binaries there.
    .testTarget(name: "ControlsKernelTests", dependencies: ["TestSupport"], exclude: ["guest", "build-gpiod-v2.sh"]),
    .testTarget(
        name: "DaemonTests",
        dependencies: [
            "AudioCore", "AudioOutput", "Daemon", "StateDatabase", "DatabaseFile", "Library", "FermataConfig", "TestSupport",
            "Engine", "Player", "FermataCore", "Controls", "Recording", "Decoders", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
        ],
        exclude: ["Fixtures"]
    ),
    // Drives the built fermatad and fermata binaries through mpc, python-mpd2 and the CLI.
    .testTarget(name: "DaemonE2ETests", dependencies: ["AudioCore", "TestSupport", "MPDProtocol"]),
    .testTarget(name: "DecodersTests", dependencies: ["AudioCore", "Decoders", "FermataCore", "TestSupport"]),
    .testTarget(name: "StreamsTests", dependencies: ["AudioCore", "Streams", "FermataCore", "TestSupport"]),
    // Network streams end to end: a real Icecast 2 fed by ffmpeg, a hostile HTTP server of the tests' own
    // (Tests/Tools/streams), the real fermatad.
    .testTarget(name: "StreamE2ETests", dependencies: ["TestSupport"]),
    // The web remote in a real browser (Debian's chromium and chromedriver through selenium): the scenarios' scripts
    // are in browser/.
    .testTarget(name: "WebE2ETests", dependencies: ["TestSupport"], exclude: ["browser"]),
    .testTarget(
        name: "LibraryTests",
        dependencies: ["Library", "DatabaseFile", "AudioCore", "Decoders", "FermataCore", "TestSupport",
                       .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log")]
    ),
    // The engine's two state machines and its lock-free parts, with no player above them.
    .testTarget(name: "EngineTests", dependencies: ["AudioCore", "AudioOutput", "Decoders", "Engine", "FermataCore", "TestSupport"]),
    .testTarget(name: "AudioOutputTests", dependencies: ["AudioCore", "AudioOutput"]),
    .testTarget(
        name: "RecordingTests",
        dependencies: ["AudioCore", "Recording", "Decoders", "DatabaseFile", "Library", "StateDatabase", "Practice",
                       "FermataCore", "TestSupport"]
    ),
    // The reducer, and the engine heard through the player (captured PCM).
    .testTarget(
        name: "PlayerTests", dependencies: ["AudioCore", "Engine", "Player", "AudioOutput", "Decoders", "FermataCore", "TestSupport"]
    ),
    // The state database's store, queue segments, position checkpoints and opener (the file as the daemon opens it).
    .testTarget(
        name: "StateDatabaseTests",
        dependencies: [
            "StateDatabase", "DatabaseFile", "FermataCore", "Library", "TestSupport",
            .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
        ]
    ),
    // Practice statistics, memory and their tables.
    .testTarget(
        name: "PracticeTests",
        dependencies: [
            "Practice", "StateDatabase", "DatabaseFile", "Library", "FermataCore", "Player", "Engine", "AudioOutput",
            "TestSupport", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
        ]
    ),
    // The web remote's sessions, controls and page, without a daemon.
    .testTarget(name: "WebRemoteTests", dependencies: ["WebRemote", "FermataCore", "MPDProtocol", "TestSupport"]),
    // An in-memory MPDBackend shared by the two MPD test targets.
    .target(name: "MPDTestSupport", dependencies: ["MPDProtocol", "FermataCore", "TestSupport"], path: "Tests/MPDTestSupport"),
    .testTarget(name: "MPDProtocolTests", dependencies: ["MPDProtocol", "MPDTestSupport", "FermataCore", "TestSupport"]),
    .testTarget(
        name: "MPDServerTests",
        dependencies: [
            "FermataCore", "MPDServer", "MPDProtocol", "MPDTestSupport", "TestSupport",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"),
        ]
    ),
]

let package = Package(
    name: "Fermata",
    products: [
        .executable(name: "fermata", targets: ["fermata"]),
        .executable(name: "fermatad", targets: ["fermatad"]),
        .executable(name: "fermata-bench", targets: ["FermataBench"]),
        .executable(name: "fermata-resume-bench", targets: ["ResumeBench"]),
        .executable(name: "fermata-library-bench", targets: ["LibraryBench"]),
        .executable(name: "fermata-controls-bench", targets: ["ControlsBench"]),
        .executable(name: "fermata-practice-bench", targets: ["PracticeBench"]),
        .executable(name: "fermata-abuse-bench", targets: ["AbuseBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        // The web remote's HTTP server; its default traits (swift-configuration, full Foundation) left out.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        // HTTP field names for the web remote's headers (Hummingbird's own vocabulary).
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: cTargets + coreTargets + mediaTargets + playerTargets + storageTargets + protocolTargets
        + controlsTargets + programTargets + benchmarkTargets + testTargets
)
