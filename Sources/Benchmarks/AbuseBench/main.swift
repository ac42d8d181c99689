import AudioCore
import Foundation
import Glibc
import TestSupport

// fermata-abuse-bench (issue 13): hostile and heavy clients against fermatad and MPD 0.23 side by side on one
// generated library: per scenario the time, the daemon's peak RSS, the worst `status` round trip another client saw,
// and the largest gap between systemd watchdog pings; targets and PASS/MISS beside. `--help` for the options.

signal(SIGPIPE, SIG_IGN)  // a daemon dropping a hostile client must not end the benchmark

let options: BenchOptions
do {
    options = try BenchOptions.parse(Array(CommandLine.arguments.dropFirst()), program: CommandLine.arguments[0])
} catch {
    emit("\(error)")
    exit(error is UsageError && CommandLine.arguments.contains { $0 == "--help" || $0 == "-h" } ? 0 : 64)
}

/// Writes a line to stdout at once (unbuffered, so progress shows through a pipe).
func emit(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    bytes.withUnsafeBytes { raw in
        var offset = 0
        while offset < raw.count {
            let n = write(1, raw.baseAddress! + offset, raw.count - offset)
            if n <= 0 { return }
            offset += n
        }
    }
}

func progress(_ line: String) { emit("· " + line) }

func runBench() throws {
    guard FileManager.default.isExecutableFile(atPath: options.fermatad) else {
        throw UsageError("no fermatad at \(options.fermatad) (build it, or pass --fermatad PATH)")
    }
    guard let mpdCompare = options.mpdCompare else {
        throw UsageError("shared/bench/mpd-compare not found (pass --mpd-compare DIR)")
    }
    if options.withMPD && !FileManager.default.isExecutableFile(atPath: "/usr/bin/mpd") {
        throw UsageError("MPD is not installed (apt-get install mpd), or pass --without-mpd")
    }
    let started = MonotonicClock.seconds()
    let library = try LibraryCache(tracks: options.tracks, seed: options.seed, generator: mpdCompare + "/gen-library.py")
        .prepare(progress: progress)
    progress("library: \(library.uris.count) tracks in \(library.directory)")
    let work = try TemporaryDirectory(prefix: "fermata-abuse-bench")
    var kinds: [BenchDaemon.Kind] = [.fermatad]
    if options.withMPD { kinds.append(.mpd) }
    var results: [BenchDaemon.Kind: DaemonFigures] = [:]
    for kind in kinds {
        let watchdog = try WatchdogListener(path: work.file("\(kind.rawValue)-notify.sock"))
        let daemon = try BenchDaemon(kind: kind, executable: kind == .fermatad ? options.fermatad : mpdCompare,
                                     music: library.directory, state: work.file("\(kind.rawValue)-state"), watchdog: watchdog)
        progress("\(kind.rawValue): starting (port \(daemon.port))")
        results[kind] = DaemonSession(daemon: daemon, uris: library.uris, runs: options.runs,
                                      logDirectory: "/tmp/fermata-abuse-bench/logs", progress: progress).run()
    }
    Report(fermatad: results[.fermatad]!, mpd: results[.mpd], tracks: options.tracks, runs: options.runs).lines.forEach(emit)
    emit(String(format: "\n(benchmark ran %.0f s)", MonotonicClock.seconds() - started))
}

do {
    try runBench()
} catch {
    emit("fermata-abuse-bench: \(error)")
    exit(1)
}
