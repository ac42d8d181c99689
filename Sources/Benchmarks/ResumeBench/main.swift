import AudioCore
import Foundation
import Glibc
import TestSupport

// fermata-resume-bench [--library DIR] [--queue N] [--reps N] [--daemons fermata,mpd] [--io-seconds N] | --codec
// Restart with a large queue: exec → playing the saved song (protocol, both daemons) and exec → first audio frame
// written at the saved position (fermatad's own log line), medians; RSS after restore; bytes written per hour of
// playback at the default 2 s checkpoint interval (/proc/PID/io), through the short generated tracks and through one
// long track (checkpoints alone).
func option(_ name: String, _ fallback: String, in arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> String {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return fallback }
    return arguments[index + 1]
}
if CommandLine.arguments.contains("--codec") {
    try CodecCost.run()
    exit(0)
}
let library = option("--library", "/tmp/mpd-bench/lib-20000")
let queueLength = Int(option("--queue", "10000")) ?? 10000
let reps = Int(option("--reps", "10")) ?? 10
let ioSeconds = Int(option("--io-seconds", "60")) ?? 60
let kinds = option("--daemons", "fermata,mpd").split(separator: ",").compactMap { DaemonUnderTest.Kind(rawValue: String($0)) }
let binaries = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
let work = try TemporaryDirectory(prefix: "fermata-resume-bench")

if !FileManager.default.fileExists(atPath: library + "/manifest.tsv") {
    print("generating the library in \(library) with ../shared/bench/mpd-compare/gen-library.py")
    let gen = Process()
    gen.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    gen.arguments = ["../shared/bench/mpd-compare/gen-library.py", "--out", library, "--tracks", "20000", "--seed", "1"]
    try gen.run()
    gen.waitUntilExit()
}
let manifest = try String(contentsOfFile: library + "/manifest.tsv", encoding: .utf8)
let uris = manifest.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }.filter { !$0.isEmpty }
print("library: \(uris.count) tracks; queue: \(queueLength) entries; \(reps) restarts per daemon")

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
}

/// Each daemon's median exec → playing, for the side-by-side line at the end.
var playMedians: [DaemonUnderTest.Kind: Double] = [:]

for kind in kinds {
    let state = work.file("\(kind)-state")
    let snapshot = work.file("\(kind)-snapshot")
    try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
    let daemon = DaemonUnderTest(kind: kind, binaries: binaries, music: library, state: state, port: TestSocket.freePort())
    var process = try daemon.start()
    var client = try daemon.connect(interval: 20_000)
    let scanStart = MonotonicClock.seconds()
    try client.ok("update")
    while true {
        let songs = Int(try client.ok("stats")["songs"] ?? "") ?? 0
        let updating = try client.ok("status")["updating_db"] != nil
        if songs == uris.count && !updating { break }
        usleep(20_000)
    }
    let scanSeconds = MonotonicClock.seconds() - scanStart
    let addStart = MonotonicClock.seconds()
    for chunk in stride(from: 0, to: queueLength, by: 1000) {
        try client.sendLine("command_list_begin")
        for i in chunk..<min(chunk + 1000, queueLength) { try client.sendLine("add \"\(uris[i % uris.count])\"") }
        try client.ok("command_list_end")
    }
    let addSeconds = MonotonicClock.seconds() - addStart
    let savedSong = queueLength / 2 + 123
    try client.ok("play \(savedSong)")
    usleep(300_000)
    try client.ok("seekcur 1.5")
    usleep(500_000)
    DaemonUnderTest.stop(process)
    try? FileManager.default.removeItem(atPath: snapshot)
    try FileManager.default.copyItem(atPath: state, toPath: snapshot)
    print(String(format: "%@: first scan %.2f s, adding %d entries %.2f s", kind.rawValue, scanSeconds, queueLength, addSeconds))

    var playTimes: [Double] = []
    var frameTimes: [Double] = []
    var rss = ""
    for _ in 0..<reps {
        try FileManager.default.removeItem(atPath: state)
        try FileManager.default.copyItem(atPath: snapshot, toPath: state)
        let t0 = MonotonicClock.seconds()
        process = try daemon.start()
        client = try daemon.connect(interval: 500)
        while true {
            let status = try client.ok("status")
            if status["state"] == "play", status["song"] == String(savedSong) { break }
            if MonotonicClock.seconds() - t0 > 60 { print("\(kind): never reached play"); break }
            usleep(500)
        }
        playTimes.append(MonotonicClock.seconds() - t0)
        usleep(300_000)
        let log = (try? String(contentsOfFile: state + "/stderr.log", encoding: .utf8)) ?? ""
        if let range = log.range(of: "monotonic_ns="), let ns = Int(log[range.upperBound...].prefix { $0.isNumber }) {
            frameTimes.append(Double(ns) / 1e9 - t0)
        }
        rss = "RSS \(procField(process.processIdentifier, "status", "VmRSS")) kB (anonymous \(procField(process.processIdentifier, "status", "RssAnon")) kB)"
        DaemonUnderTest.stop(process)
    }
    playMedians[kind] = median(playTimes)
    print(String(format: "%@: exec → playing the saved song (protocol): median %.1f ms (min %.1f, max %.1f)",
                 kind.rawValue, median(playTimes) * 1000, (playTimes.min() ?? .nan) * 1000, (playTimes.max() ?? .nan) * 1000))
    if !frameTimes.isEmpty {
        print(String(format: "%@: exec → first audio frame written at the saved position: median %.1f ms (min %.1f, max %.1f)",
                     kind.rawValue, median(frameTimes) * 1000, frameTimes.min()! * 1000, frameTimes.max()! * 1000))
    }
    print("\(kind): after restore: \(rss)")
    if kind == .fermata, let log = try? String(contentsOfFile: state + "/stderr.log", encoding: .utf8),
       let line = log.split(separator: "\n").first(where: { $0.contains("ready after") }) {
        print("fermata: last restart's log: " + line.prefix(160))
    }

    if kind == .fermata && ioSeconds > 0 {
        process = try daemon.start()
        client = try daemon.connect()
        usleep(500_000)
        let written = writtenPerHour(process, seconds: ioSeconds)
        DaemonUnderTest.stop(process)
        print(String(format: "fermata: bytes written while playing the 2–5 s generated tracks (a durable track change"
                     + " every ~3.5 s, checkpoints every 2 s): %d B in %d s → %.1f MB per hour",
                     written.bytes, ioSeconds, written.perHour / 1e6))
        try measureCheckpointWrites(seconds: ioSeconds, work: work, binaries: binaries)
    }
}

if let fermata = playMedians[.fermata], let mpd = playMedians[.mpd] {
    let ratio = fermata / mpd
    print(String(format: "restart → playing the saved song, side by side: fermatad %.1f ms, MPD %.1f ms = %.2f× (goal ≤ 0.30×: %@)",
                 fermata * 1000, mpd * 1000, ratio, ratio <= 0.30 ? "PASS" : "MISS"))
}
