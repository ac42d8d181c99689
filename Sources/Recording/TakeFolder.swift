import Foundation
import Glibc

/// The folder of takes in the state folder (`takes/`): where a take is written while it is being recorded
/// (`.partial-ID.flac`), how it becomes a take (`commit`: the file synced, renamed into place, the folder synced — a
/// power cut leaves the whole take or none), the leftovers of a take a crash or a power cut interrupted (removed at
/// start), and deletion.
///
/// Threads: a value; the take writer's thread and the daemon's start-up use it (plain file-system calls, never on the
/// audio threads).
public struct TakeFolder: Sendable {
    public let path: String

    /// `takes/` in `stateDirectory`.
    /// `<stateDirectory>/takes`, made absolute: a take is queued by this path, and a relative one (`--state state`)
    /// was read as a path in the music folder, so `playtake` could not find the take.
    public init(stateDirectory: String) {
        let absolute = stateDirectory.hasPrefix("/") ? stateDirectory
            : FileManager.default.currentDirectoryPath + "/" + stateDirectory
        path = absolute + "/takes"
    }

    /// A take's failure to be written or committed, with the system's word for why ("No space left on device").
    public struct Failure: Error, CustomStringConvertible, Equatable {
        public let description: String
        init(_ what: String, errno code: Int32) {
            description = what + ": " + String(cString: strerror(code)) + " (error \(code))"
        }
    }

    /// Creates the folder when missing.
    public func create() throws(Failure) {
        if mkdir(path, 0o755) != 0 && errno != EEXIST { throw Failure("creating \(path)", errno: errno) }
    }

    /// Where take `id` is written while it is recorded: hidden, never a take.
    public func partialPath(_ id: Int64) -> String { path + "/.partial-\(id).flac" }
    /// Where take `id` lives once committed.
    public func takePath(_ id: Int64) -> String { path + "/take-\(id).flac" }

    /// Makes take `id` durable and visible: the partial file synced, renamed to its name, the folder synced.
    public func commit(_ id: Int64) throws(Failure) {
        let partial = partialPath(id)
        let fd = open(partial, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure("opening \(partial)", errno: errno) }
        let synced = fsync(fd) == 0
        let code = errno
        close(fd)
        guard synced else { throw Failure("syncing \(partial)", errno: code) }
        guard rename(partial, takePath(id)) == 0 else { throw Failure("renaming \(partial)", errno: errno) }
        try syncFolder()
    }

    /// Removes the partial file of a take that failed or was abandoned (nothing when there is none).
    public func discard(_ id: Int64) { unlink(partialPath(id)) }

    /// Deletes take `id` (durably: the folder synced).
    public func delete(_ id: Int64) throws(Failure) {
        guard unlink(takePath(id)) == 0 || errno == ENOENT else { throw Failure("deleting take \(id)", errno: errno) }
        try syncFolder()
    }

    /// Removes every `.partial-*` file: takes a crash or a power cut interrupted are none. Returns how many.
    @discardableResult
    public func removeLeftovers() -> Int {
        guard let dir = opendir(path) else { return 0 }
        defer { closedir(dir) }
        var removed = 0
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasPrefix(".partial-") else { continue }
            if unlink(path + "/" + name) == 0 { removed += 1 }
        }
        if removed > 0 { try? syncFolder() }
        return removed
    }

    /// The ids of the takes in the folder (committed files named `take-ID.flac`), ascending.
    public func takeIDs() -> [Int64] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var ids: [Int64] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasPrefix("take-"), name.hasSuffix(".flac"),
                  let id = Int64(name.dropFirst(5).dropLast(5)), id > 0 else { continue }
            ids.append(id)
        }
        return ids.sorted()
    }

    /// The size of take `id`'s file in bytes (0 when missing).
    public func size(of id: Int64) -> Int64 {
        var info = stat()
        return stat(takePath(id), &info) == 0 ? Int64(info.st_size) : 0
    }

    private func syncFolder() throws(Failure) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure("opening \(path)", errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw Failure("syncing \(path)", errno: errno) }
    }
}
