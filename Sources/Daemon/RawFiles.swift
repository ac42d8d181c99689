import FermataCore
import Glibc

/// File-system calls on `RawPath` text: each passes the path's raw bytes to the kernel and turns names it reads back
/// into `RawPath` text, so a file whose name is not UTF-8 is found, listed and read like any other (Foundation's
/// `FileManager` would see a different, repaired name).
///
/// Stateless; blocking calls — run them on `BlockingWork`, never on the cooperative pool or an event loop.
enum RawFiles {
    /// What is at a path.
    enum Kind: Equatable {
        case file(size: Int64, modified: Int64)
        case directory(modified: Int64)
        case other
    }

    /// What `path` is (following symlinks), or nil when nothing is there.
    static func kind(_ path: String) -> Kind? {
        var info = stat()
        guard RawPath.withCString(path, { stat($0, &info) }) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file(size: Int64(info.st_size), modified: Int64(info.st_mtim.tv_sec))
        case S_IFDIR: return .directory(modified: Int64(info.st_mtim.tv_sec))
        default: return .other
        }
    }

    /// The names in a directory (without `.` and `..`), sorted by their bytes; nil when it cannot be listed.
    static func names(in directory: String) -> [String]? {
        guard let handle = RawPath.withCString(directory, { opendir($0) }) else { return nil }
        defer { closedir(handle) }
        var names: [[UInt8]] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name != [0x2E] && name != [0x2E, 0x2E] { names.append(name) }
        }
        return names.sorted { $0.lexicographicallyPrecedes($1) }.map(RawPath.text)
    }

    /// Up to `maxLength` bytes of the file at `path` from `offset`, with the file's size; nil when it cannot be opened.
    static func read(_ path: String, offset: Int, maxLength: Int) -> (size: Int, bytes: [UInt8])? {
        let fd = RawPath.withCString(path) { open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let size = Int(info.st_size)
        let wanted = max(0, min(maxLength, size - offset))
        var bytes = [UInt8](repeating: 0, count: wanted)
        let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, wanted, off_t(offset)) }
        bytes.removeLast(wanted - max(0, got))
        return (size, bytes)
    }
}
