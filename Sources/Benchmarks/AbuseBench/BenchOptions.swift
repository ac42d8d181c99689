import Foundation

/// The command line:
/// `fermata-abuse-bench [--tracks N] [--runs N] [--seed N] [--fermatad PATH] [--mpd-compare DIR] [--without-mpd]`.
struct BenchOptions {
    var tracks = 5000
    var runs = 3
    var seed = 1
    /// fermatad's binary; default: beside this benchmark's binary.
    var fermatad: String
    /// The team's `shared/bench/mpd-compare` (gen-library.py, daemon-mpd.sh, asoundrc).
    var mpdCompare: String?
    var withMPD = true

    static let usage = """
        usage: fermata-abuse-bench [--tracks N] [--runs N] [--seed N] [--fermatad PATH] [--mpd-compare DIR] [--without-mpd]
          --tracks N        generated library size (default 5000; cached under /tmp/fermata-abuse-bench)
          --runs N          runs of every scenario per daemon (default 3; the time is their median)
          --fermatad PATH   the fermatad binary (default: beside this binary)
          --mpd-compare DIR shared/bench/mpd-compare (default: found from this binary's or the current directory)
          --without-mpd     fermatad alone (no time targets)
        """

    /// Parses `arguments` (without the program name); throws the usage text on a mistake.
    static func parse(_ arguments: [String], program: String) throws -> BenchOptions {
        let binaries = URL(fileURLWithPath: program).deletingLastPathComponent().path
        var options = BenchOptions(fermatad: binaries + "/fermatad")
        var rest = arguments[...]
        func value(_ flag: String) throws -> String {
            guard let next = rest.popFirst() else { throw UsageError("\(flag) needs a value\n" + usage) }
            return next
        }
        func count(_ flag: String) throws -> Int {
            let text = try value(flag)
            guard let number = Int(text), number > 0 else { throw UsageError("\(flag) \(text): not a positive number\n" + usage) }
            return number
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--tracks": options.tracks = try count(flag)
            case "--runs": options.runs = try count(flag)
            case "--seed": options.seed = try count(flag)
            case "--fermatad": options.fermatad = try value(flag)
            case "--mpd-compare": options.mpdCompare = try value(flag)
            case "--without-mpd": options.withMPD = false
            case "-h", "--help": throw UsageError(usage)
            default: throw UsageError("unknown option \(flag)\n" + usage)
            }
        }
        options.mpdCompare = options.mpdCompare ?? findMPDCompare(from: [binaries, FileManager.default.currentDirectoryPath])
        return options
    }

    /// The first `shared/bench/mpd-compare` beside one of the directories' ancestors (the project's `../shared`).
    private static func findMPDCompare(from starts: [String]) -> String? {
        for start in starts {
            var directory = URL(fileURLWithPath: start).standardizedFileURL
            while directory.path != "/" {
                for candidate in ["../shared/bench/mpd-compare", "shared/bench/mpd-compare"] {
                    let path = directory.appendingPathComponent(candidate).standardizedFileURL.path
                    if FileManager.default.fileExists(atPath: path + "/gen-library.py") { return path }
                }
                directory.deleteLastPathComponent()
            }
        }
        return nil
    }
}

/// A command-line mistake (or `--help`): printed as is.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
