// fermata-library-bench: times Fermata's library scan on a generated library (the same files MPD's benchmark uses):
// first scan, rescan with no change, rescans after 1 % touched, deleted, put back and added, and peak RSS; with
// --with-mpd, then runs MPD's benchmark (tests a and b) on the same library and prints both side by side.
//
//   fermata-library-bench [--library DIR] [--tracks N] [--runs R] [--rescans R] [--state DIR] [--gen PATH]
//                         [--readers N] [--walkers N] [--nice N] [--with-mpd MPD-COMPARE-DIR]
// --runs: first scans (each from an empty database) and, unless --rescans says otherwise, no-change rescans.
import DatabaseFile
import Foundation
import Library
import Logging

/// The benchmark's command-line options.
struct Options {
    var library = "/tmp/mpd-bench/lib-20000"
    var tracks = 20000
    var runs = 3
    var rescans: Int?
    var state = "/tmp/fermata-library-bench"
    var compare = FileManager.default.currentDirectoryPath + "/../shared/bench/mpd-compare"
    var generator: String?
    var readers: Int?
    var walkers: Int?
    var niceness: Int32 = 10
    var withMPD = false

    init(_ arguments: [String]) throws {
        var rest = arguments.dropFirst()
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { throw BenchError("\(flag) needs a value") }
            switch flag {
            case "--library": library = value
            case "--tracks": tracks = Int(value) ?? tracks
            case "--runs": runs = max(1, Int(value) ?? runs)
            case "--rescans": rescans = max(1, Int(value) ?? runs)
            case "--state": state = value
            case "--gen": generator = value
            case "--readers": readers = Int(value)
            case "--walkers": walkers = Int(value)
            case "--nice": niceness = Int32(value) ?? niceness
            case "--with-mpd": withMPD = true; compare = value
            default: throw BenchError("unknown option \(flag)")
            }
        }
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted.count % 2 == 1 ? sorted[sorted.count / 2]
        : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func line(_ label: String, _ seconds: [Double], _ summary: ScanSummary, cpu: Double) {
    let runs = seconds.map { String(format: "%.3f", $0) }.joined(separator: " ")
    let phases = summary.phases
    print(label.padding(toLength: 24, withPad: " ", startingAt: 0)
        + String(format: "%7.3f s (cpu %.3f s)  seen %d opened %d added %d updated %d removed %d restored %d",
                 median(seconds), cpu, summary.filesSeen, summary.filesOpened, summary.added, summary.updated,
                 summary.removed, summary.identitiesRestored)
        + String(format: "  [load %.3f walk %.3f read %.3f write %.3f finish %.3f]", phases.load, phases.walk,
                 phases.read, phases.write, phases.finish)
        + (seconds.count > 1 ? "  runs: \(runs)" : ""))
}

func openLibrary(_ options: Options, fresh: Bool) throws -> Library {
    if fresh { try? FileManager.default.removeItem(atPath: options.state) }
    let database = try FermataDatabase(stateDirectory: options.state, schema: .library)
    var logger = Logger(label: "fermata.library")
    logger.logLevel = .warning
    return Library(database: database, musicDirectory: options.library,
                   options: LibraryOptions(readers: options.readers, walkers: options.walkers,
                                           niceness: options.niceness), logger: logger)
}

/// Scans `runs` times and prints the median; returns it.
func measure(_ label: String, runs: Int, fresh: Bool = false, _ library: () throws -> Library) async throws -> Double {
    var times: [Double] = [], cpus: [Double] = []
    var summary = ScanSummary()
    for _ in 0..<runs {
        let target = try library()
        let cpu = processCPUSeconds()
        summary = try await target.scan()
        cpus.append(processCPUSeconds() - cpu)
        times.append(summary.seconds)
    }
    line(label, times, summary, cpu: median(cpus))
    return median(times)
}

let options = try Options(CommandLine.arguments)
let generator = options.generator ?? options.compare + "/gen-library.py"
let library = try BenchLibrary.prepare(root: options.library, tracks: options.tracks, generator: generator)
let count = max(1, library.paths.count / 100)
let threads = LibraryOptions(readers: options.readers, walkers: options.walkers)
print("library \(options.library): \(library.paths.count) tracks; 1 % = \(count) files; "
    + "readers \(threads.readers), walkers \(threads.walkers), nice \(options.niceness), "
    + "state \(options.state)/\(FermataDatabase.fileName)")

let first = try await measure("first scan", runs: options.runs) { try openLibrary(options, fresh: true) }
let afterFirst = ProcessMemory.kibibytes("VmHWM")
let current = try openLibrary(options, fresh: false)
let noChange = try await measure("rescan, no change", runs: options.rescans ?? options.runs) { current }

let trash = options.state + "/trash"
try library.touch(library.pick(count, seed: 1))
let touched = try await measure("rescan, 1 % touched", runs: 1) { current }
let moves = try library.remove(library.pick(count, seed: 2), to: trash)
let deleted = try await measure("rescan, 1 % deleted", runs: 1) { current }
try library.restore(moves)
let putBack = try await measure("rescan, 1 % put back", runs: 1) { current }
let added = "zz-fermata-bench-added"
try library.add(library.pick(count, seed: 3), directory: added)
_ = try await measure("rescan, 1 % added", runs: 1) { current }
try library.removeAdded(directory: added)
_ = try await measure("rescan, added removed", runs: 1) { current }
// The whole disk goes away (its mount point left empty) and comes back: every identity is restored.
let holding = options.state + "/away"
let names = try library.empty(into: holding)
_ = try await measure("rescan, all gone", runs: 1) { current }
try library.bringBack(names, from: holding)
_ = try await measure("rescan, all back", runs: 1) { current }
let peak = ProcessMemory.kibibytes("VmHWM")
print("peak RSS (VmHWM): \(afterFirst / 1024) MiB after the first scans, \(peak / 1024) MiB at the end; "
    + "RssAnon now \(ProcessMemory.kibibytes("RssAnon") / 1024) MiB")

if options.withMPD {
    print("running MPD on the same library: \(options.compare)/bench-mpd.sh --sizes \(options.tracks) "
        + "--per-size ab --once '' (about a minute)")
    let mpd = try MPDComparison(directory: options.compare, library: options.library, tracks: options.tracks).run()
    print("| side by side (medians) | Fermata | MPD | Fermata / MPD |")
    print("|---|---|---|---|")
    for (label, ours, theirs) in [("first scan", first, mpd.firstScan), ("rescan, no change", noChange, mpd.noChange),
                                  ("rescan, 1 % touched", touched, mpd.touched),
                                  ("rescan, 1 % deleted", deleted, mpd.deleted),
                                  ("rescan, 1 % put back", putBack, mpd.putBack)] {
        print("| \(label) | " + String(format: "%.3f s | %.3f s | %.2f |", ours, theirs, ours / theirs))
    }
    print(String(format: "| peak RSS | %.1f MiB | %.1f MiB | |", Double(peak) / 1024, mpd.peakRSSKiB / 1024))
}
