import Foundation
import Glibc
import MPDProtocol
import StateDatabase
import Streams

/// Stored playlists as `.m3u` files (one URI per line — a file of the music directory or a stream's http(s) URL —, LF
/// or CRLF; a range or a practice section as a comment before its URI, `PlaylistLine`) in `<state>/playlists`: readable
/// and editable by hand (a line outside the music directory is skipped), and
/// written crash-safely (temporary file, fsync, rename, fsync of the directory) so a power cut leaves either the old or
/// the new list. Threads: any (each call works on whole files; the last rename wins).
public struct PlaylistStore: Sendable {
    public let directory: String

    public init(directory: String) {
        self.directory = directory
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { directory + "/" + name + ".m3u" }

    public func list() throws -> [StoredPlaylistInfo] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".m3u") }.sorted().map { file in
            let date = (try? FileManager.default.attributesOfItem(atPath: directory + "/" + file))?[.modificationDate]
            return StoredPlaylistInfo(name: String(file.dropLast(4)),
                                      lastModified: (date as? Date).map { Int64($0.timeIntervalSince1970) })
        }
    }

    public func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path(name)) }

    /// The largest playlist file read: a queue's worth (`Player.maxQueueLength` lines of ~100 bytes) and then some. A
    /// 100 MB file used to be read whole (4.7 GB at its peak while loading).
    static let maxFileBytes = 32 << 20

    public func read(_ name: String) throws -> [PlaylistLine] {
        var info = stat()
        if stat(path(name), &info) == 0, Int(info.st_size) > Self.maxFileBytes {
            throw MPDError(.playlistMax, "Playlist is too large")
        }
        guard let data = FileManager.default.contents(atPath: path(name)) else { throw MPDError.noSuchPlaylist() }
        // A hand-edited line that points outside the music directory (`/etc/…`, `../…`) or holds a NUL is skipped,
        // as `add` refuses it: it used to be loaded and played, and a NUL went out in protocol answers. A stream's
        // URL is kept (a saved queue of radio stations used to read back empty).
        return PlaylistLine.parse(String(decoding: data, as: UTF8.self),
                                  isSafe: { URIValidator.isSafe($0) || StreamURL.isStream($0) })
    }

    public func write(_ name: String, _ lines: [PlaylistLine]) throws {
        let temporary = path(name) + ".tmp"
        let text = lines.map(\.text).joined()
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw MPDError(.system, "cannot write playlist: \(String(cString: strerror(errno)))") }
        let ok = text.utf8CString.withUnsafeBufferPointer { buffer in
            Glibc.write(fd, buffer.baseAddress, buffer.count - 1) == buffer.count - 1
        } && fsync(fd) == 0
        close(fd)
        guard ok, Glibc.rename(temporary, path(name)) == 0 else {
            unlink(temporary)
            throw MPDError(.system, "cannot write playlist (disk full or read-only?)")
        }
        syncDirectory(containing: path(name))
    }

    /// Deletes the file and syncs the directory before answering: without the sync the deletion waited for the
    /// file system's next commit (5 s on ext4), and a power cut in that window brought the playlist back after its OK
    /// (`Tests/Tools/powercut/repro.sh playlist-rm`).
    public func remove(_ name: String) throws {
        guard exists(name) else { throw MPDError.noSuchPlaylist() }
        guard unlink(path(name)) == 0 else {
            throw MPDError(.system, "cannot delete playlist: \(String(cString: strerror(errno)))")
        }
        syncDirectory(containing: path(name))
    }

    /// Renames and syncs the directory before answering, as `remove`.
    public func rename(_ name: String, to newName: String) throws {
        // MPD's order and words (spl_rename_internal): the new name is checked first.
        guard !exists(newName) else { throw MPDError(.exist, "Playlist exists already") }
        guard exists(name) else { throw MPDError.noSuchPlaylist() }
        guard Glibc.rename(path(name), path(newName)) == 0 else { throw MPDError(.system, "cannot rename playlist") }
        syncDirectory(containing: path(newName))
    }
}
