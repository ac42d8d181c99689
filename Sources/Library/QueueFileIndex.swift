import Decoders
import FermataCore
import GRDB

/// Every track's path and ReplayGain in memory, in path order (SQLite's byte order): what queue adds need — `add /`,
/// a list of 10,000 `add`s — answered without SQLite, and so without the disk. With the page cache dropped (or on an
/// SD card) reading those rows cost more than the rest of the command; MPD keeps its whole database in memory, this
/// keeps the five columns queue edits need (about 120 bytes a track).
///
/// Immutable once built; `Library` keeps the newest with the `contentVersion` it was read at, and builds another
/// when the library has changed since.
struct QueueFileIndex: Sendable {
    let version: Int
    private let paths: [String]
    private let gains: [ReplayGainInfo]

    static func build(_ db: Database, version: Int) throws -> QueueFileIndex {
        // Sized once: grown by doubling, the two arrays of a 20,000-track library held room for 32,768 (1.3 MB more).
        let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM track WHERE path != ''") ?? 0
        let rows = try RawStatement(db, """
            SELECT path, rg_track_gain, rg_track_peak, rg_album_gain, rg_album_peak FROM track WHERE path != '' ORDER BY path
            """, arguments: [])
        var paths: [String] = []
        var gains: [ReplayGainInfo] = []
        paths.reserveCapacity(count)
        gains.reserveCapacity(count)
        while try rows.step() {
            guard let path = rows.text(0) else { continue }
            paths.append(path)
            gains.append(ReplayGainInfo(trackGain: rows.double(1), trackPeak: rows.double(2), albumGain: rows.double(3),
                                        albumPeak: rows.double(4)))
        }
        return QueueFileIndex(version: version, paths: paths, gains: gains)
    }

    /// The tracks below `directory` ("" is the top), in path order.
    func files(under directory: String) -> [(path: String, replayGain: ReplayGainInfo)] {
        let range = directory.isEmpty ? 0..<paths.count : first(atLeast: directory + "/")..<first(atLeast: directory + "0")
        return range.map { (paths[$0], gains[$0]) }
    }

    /// The ReplayGain of each of `wanted`, in its order; nil for a path the library does not have. Found by binary
    /// search over the sorted paths, byte for byte as SQLite compares them (a dictionary beside them cost 1 MB for a
    /// 20,000-track library; 16,384 lookups take a few milliseconds either way).
    func replayGains(_ wanted: [String]) -> [ReplayGainInfo?] {
        wanted.map { path in
            let index = first(atLeast: path)
            return index < paths.count && paths[index].utf8.elementsEqual(path.utf8) ? gains[index] : nil
        }
    }

    /// The index of the first path not below `key` in byte order ("0" follows "/": `dir0` ends `dir/…`).
    private func first(atLeast key: String) -> Int {
        var low = 0
        var high = paths.count
        while low < high {
            let middle = (low + high) / 2
            if paths[middle].utf8.lexicographicallyPrecedes(key.utf8) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
