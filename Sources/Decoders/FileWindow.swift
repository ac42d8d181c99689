import Glibc

/// Random access to an open file through one cached window of `pread`, for the hand-written tag and box readers:
/// a small read near the last one costs no system call, and nothing is read that a reader did not ask for.
///
/// Not thread-safe: one per reading thread and file. Every request is bounded by `maxRequest`, so a size field in a
/// damaged file can never make a reader allocate more than that.
struct FileWindow {
    /// The largest single request (a tag frame, an atom body read whole).
    static let maxRequest = 16 * 1024 * 1024

    let fd: Int32
    let size: Int64
    let path: String
    private var window: [UInt8] = []
    private var windowStart: Int64 = 0
    private let windowSize: Int

    init(fd: Int32, size: Int64, path: String, windowSize: Int = 64 * 1024) {
        self.fd = fd
        self.size = size
        self.path = path
        self.windowSize = windowSize
    }

    /// `count` bytes at `offset`, or nil when they are not all in the file (or `count` is out of bounds).
    mutating func bytes(at offset: Int64, count: Int) throws(DecoderError) -> ArraySlice<UInt8>? {
        guard count >= 0, count <= Self.maxRequest, offset >= 0, offset <= size - Int64(count) else { return nil }
        if offset >= windowStart, offset + Int64(count) <= windowStart + Int64(window.count) {
            let start = Int(offset - windowStart)
            return window[start..<start + count]
        }
        var fresh = [UInt8](repeating: 0, count: max(count, min(windowSize, Int(size - offset))))
        let got = try PosixFile.read(fd, into: &fresh, at: offset, path: path)
        guard got >= count else { return nil }
        fresh.removeLast(fresh.count - got)
        window = fresh
        windowStart = offset
        return window[0..<count]
    }

    mutating func u8(at offset: Int64) throws(DecoderError) -> UInt8? {
        try bytes(at: offset, count: 1)?.first
    }

    mutating func be32(at offset: Int64) throws(DecoderError) -> UInt32? {
        guard let b = try bytes(at: offset, count: 4) else { return nil }
        let i = b.startIndex
        return UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    mutating func be64(at offset: Int64) throws(DecoderError) -> UInt64? {
        guard let high = try be32(at: offset), let low = try be32(at: offset + 4) else { return nil }
        return UInt64(high) << 32 | UInt64(low)
    }
}
