import Foundation

/// Runs the shared MPD benchmark (`bench-mpd.sh`, tests a and b) on the same generated library right after Fermata's
/// own figures, and reads back its medians, so both are measured side by side in one run.
///
/// Used by the benchmark's main task only.
struct MPDComparison {
    /// MPD's medians in seconds, as `bench.py` measured them (`mpc update --wait`, so a client round trip is
    /// included).
    struct Figures {
        var firstScan: Double
        var noChange: Double
        var touched: Double
        var deleted: Double
        var putBack: Double
        var peakRSSKiB: Double
    }

    /// The `mpd-compare` directory holding `bench-mpd.sh`.
    let directory: String
    /// The library, which must be `DATA/lib-N` for the script to reuse it.
    let library: String
    let tracks: Int

    /// Runs the script (about a minute for 20,000 tracks) and returns MPD's figures.
    func run(tag: String = "fermata-side-by-side") throws -> Figures {
        let data = (library as NSString).deletingLastPathComponent
        guard (library as NSString).lastPathComponent == "lib-\(tracks)" else {
            throw BenchError("--with-mpd needs the library at DATA/lib-\(tracks) (bench-mpd.sh's layout)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [directory + "/bench-mpd.sh", "--sizes", "\(tracks)", "--per-size", "ab", "--once", "",
                             "--data", data, "--tag", tag]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("bench-mpd.sh failed") }
        let results = data + "/results-\(tag)/results-\(tracks).json"
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: results)))
        guard let root = json as? [String: Any], let a = root["a"] as? [String: Any],
              let b = root["b"] as? [String: Any], let aRuns = a["runs"] as? [[String: Any]],
              let bRuns = b["runs"] as? [[String: Any]] else { throw BenchError("unexpected \(results)") }
        func medianOf(_ runs: [[String: Any]], _ key: String) -> Double {
            median(runs.compactMap { ($0[key] as? NSNumber)?.doubleValue })
        }
        return Figures(firstScan: medianOf(aRuns, "update_s"), noChange: medianOf(bRuns, "nochange_s"),
                       touched: medianOf(bRuns, "touch_s"), deleted: medianOf(bRuns, "delete_s"),
                       putBack: medianOf(bRuns, "restore_s"), peakRSSKiB: medianOf(aRuns, "hwm_kib"))
    }
}
