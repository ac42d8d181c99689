import Foundation
import Glibc

/// The generated test library on disk: made (or reused) with the shared `gen-library.py`, and changed and restored
/// by the benchmark (1 % touched, deleted and put back, added and removed).
///
/// Used by the benchmark's main task only.
struct BenchLibrary {
    let root: String
    /// Relative paths from `manifest.tsv`.
    let paths: [String]

    /// Reuses `root` when it holds a manifest for `tracks` tracks, else runs the generator (seed 1, as
    /// `bench-mpd.sh` does, so MPD and Fermata scan identical files).
    static func prepare(root: String, tracks: Int, generator: String) throws -> BenchLibrary {
        let manifest = root + "/manifest.tsv"
        if let text = try? String(contentsOfFile: manifest, encoding: .utf8),
           text.split(separator: "\n").count == tracks {
            return BenchLibrary(root: root, paths: parse(text))
        }
        print("generating a \(tracks)-track library in \(root) with \(generator)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [generator, "--out", root, "--tracks", "\(tracks)", "--seed", "1", "--force"]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("gen-library.py failed") }
        return BenchLibrary(root: root, paths: parse(try String(contentsOfFile: manifest, encoding: .utf8)))
    }

    private static func parse(_ text: String) -> [String] {
        text.split(separator: "\n").compactMap { $0.split(separator: "\t").first.map(String.init) }
    }

    /// `count` distinct paths picked deterministically from `seed`.
    func pick(_ count: Int, seed: UInt64) -> [String] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var chosen = Set<Int>()
        while chosen.count < min(count, paths.count) {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            chosen.insert(Int(state >> 33) % paths.count)
        }
        return chosen.sorted().map { paths[$0] }
    }

    /// Sets the modification time of each file to now.
    func touch(_ files: [String]) throws {
        for file in files where utimensat(AT_FDCWD, root + "/" + file, nil, 0) != 0 {
            throw BenchError("cannot touch \(file)")
        }
    }

    /// Moves files out of the library into `trash`; returns the moves to undo.
    func remove(_ files: [String], to trash: String) throws -> [(String, String)] {
        try FileManager.default.createDirectory(atPath: trash, withIntermediateDirectories: true)
        return try files.enumerated().map { index, file in
            let target = trash + "/\(index)"
            guard rename(root + "/" + file, target) == 0 else { throw BenchError("cannot move \(file)") }
            return (file, target)
        }
    }

    /// Puts moved files back.
    func restore(_ moves: [(String, String)]) throws {
        for (file, target) in moves where rename(target, root + "/" + file) != 0 {
            throw BenchError("cannot restore \(file)")
        }
    }

    /// Copies `files` into a new directory `added` inside the library (new paths, the same audio).
    func add(_ files: [String], directory: String) throws {
        let folder = root + "/" + directory
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (index, file) in files.enumerated() {
            let name = String(format: "%05d ", index) + (file.split(separator: "/").last.map(String.init) ?? "x")
            try FileManager.default.copyItem(atPath: root + "/" + file, toPath: folder + "/" + name)
        }
    }

    /// Moves every top-level entry of the library into `holding` (a disk that went away, its mount point left
    /// empty); returns the names to bring back with `bringBack`.
    func empty(into holding: String) throws -> [String] {
        try FileManager.default.createDirectory(atPath: holding, withIntermediateDirectories: true)
        let names = try FileManager.default.contentsOfDirectory(atPath: root).filter { !$0.hasPrefix(".") }
        for name in names where rename(root + "/" + name, holding + "/" + name) != 0 {
            throw BenchError("cannot move \(name)")
        }
        return names
    }

    /// Undoes `empty`.
    func bringBack(_ names: [String], from holding: String) throws {
        for name in names where rename(holding + "/" + name, root + "/" + name) != 0 {
            throw BenchError("cannot bring back \(name)")
        }
    }

    /// Deletes a directory made by `add`.
    func removeAdded(directory: String) throws {
        try FileManager.default.removeItem(atPath: root + "/" + directory)
    }
}

/// A benchmark step that could not run.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// CPU seconds (user + system) this process has used so far, all threads.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// Resident-memory figures of this process from /proc/self/status, in KiB.
enum ProcessMemory {
    static func kibibytes(_ field: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
        }
        return -1
    }
}
