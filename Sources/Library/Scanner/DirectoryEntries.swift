import Glibc

/// The entries of one open directory, read with `readdir` into a single byte buffer (no allocation per name) and
/// visited in byte order of their names, so a scan is deterministic. Hidden names (leading '.') are left out.
///
/// A value type used by one walking thread at a time.
struct DirectoryEntries {
    /// Names, each followed by a NUL.
    private var names: [UInt8] = []
    private var entries: [(start: Int32, length: Int32, type: UInt8)] = []

    /// Reads every entry of `dir`; returns the error text when the listing stopped early.
    mutating func read(_ dir: OpaquePointer) -> String? {
        names.reserveCapacity(4096)
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        errno = 0
        while let entry = readdir(dir) {
            let name = (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: UInt8.self)
            let length = strlen(name)
            guard length > 0, name[0] != UInt8(ascii: ".") else { continue }
            entries.append((Int32(names.count), Int32(length), entry.pointee.d_type))
            names.append(contentsOf: UnsafeBufferPointer(start: name, count: length + 1))
        }
        let failure = errno == 0 ? nil : DirectoryWalker.errnoText()
        names.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress!
            entries.sort { left, right in
                let common = Int(min(left.length, right.length))
                let order = memcmp(base + Int(left.start), base + Int(right.start), common)
                return order != 0 ? order < 0 : left.length < right.length
            }
        }
        return failure
    }

    /// Calls `body` with each name (NUL-terminated, valid during the call) and its `d_type`.
    func forEach(_ body: (UnsafeBufferPointer<UInt8>, UInt8) -> Void) {
        names.withUnsafeBufferPointer { buffer in
            for entry in entries {
                body(UnsafeBufferPointer(rebasing: buffer[Int(entry.start)..<Int(entry.start + entry.length + 1)]),
                     entry.type)
            }
        }
    }
}
