import CFileShim
import Dispatch
import FermataCore
import Glibc
import Synchronization

/// A playing position as saved by a checkpoint, with the save sequence number that orders it against the player state
/// in the database (the higher number is the newer save).
struct SavedPosition: Equatable, Sendable {
    var sequence: UInt64
    var entry: EntryID
    var frame: Int64
    var sampleRate: Int
}

/// A one-block file beside the state database that takes the position checkpoints made every few seconds while playing.
/// Through SQLite each checkpoint cost 8 KiB (a WAL frame is a 4 KiB page plus a 24-byte header, so it straddles two
/// filesystem pages); here it overwrites one 512-byte sector in place — with direct I/O where the filesystem has it, a
/// 4 KiB page otherwise — then `fdatasync`s. Nothing is allocated and the size never changes, so checkpoints also go
/// on when the disk is full. Saves alternate between two slots and each record carries a checksum: a write torn by a
/// power cut reads as no record, and the other slot still holds the save before it.
/// Threads: `save` may be called from any task; writes run one at a time, in call order, on the file's own serial
/// queue (a slow SD card never blocks the cooperative pool). `read` is for start-up.
final class PositionFile: Sendable {
    static let blockSize = 4096
    /// Two slots of up to a block each.
    static let fileSize = 2 * blockSize
    static let recordSize = 48
    static let magic: UInt64 = 0x3153_4f50_4d52_4546 // "FERMPOS1", little-endian

    /// The open file and its aligned write buffer: used only on `queue` (the lock is never contended; it is what
    /// makes the hand-over between the serial queue's threads checked), closed and freed with the file.
    private struct Writer: ~Copyable {
        var descriptor: Int32
        var direct: Bool
        var writeSize = 512
        let buffer: UnsafeMutableRawPointer

        deinit {
            close(descriptor)
            free(buffer)
        }
    }

    let path: String
    private let writer: Mutex<Writer>
    private let queue = DispatchQueue(label: "fermata.position-file")

    /// Opens (creating and preallocating on first use) the file; nil when the directory cannot take it (read-only).
    init?(path: String) {
        guard Self.preallocate(path) else { return nil }
        var fd = fermata_open_direct(path)
        let direct = fd >= 0
        if fd < 0 { fd = open(path, O_RDWR | O_CLOEXEC) }
        guard fd >= 0 else { return nil }
        var memory: UnsafeMutableRawPointer?
        guard posix_memalign(&memory, Self.blockSize, Self.blockSize) == 0, let memory else {
            close(fd)
            return nil
        }
        memset(memory, 0, Self.blockSize)
        self.path = path
        writer = Mutex(Writer(descriptor: fd, direct: direct, buffer: memory))
    }

    /// Writes `position` durably; false when the write or the sync failed (the caller saves it another way).
    func save(_ position: SavedPosition) async -> Bool {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: self.write(position)) }
        }
    }

    /// The newest whole record in the file at `path`, or nil when there is none (no file, torn, or not a record).
    static func read(path: String) -> SavedPosition? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        // Slot 1 sits at 512 bytes, or at a whole block where the device took only block-sized direct writes.
        return [0, 512, blockSize].compactMap { offset -> SavedPosition? in
            var bytes = [UInt8](repeating: 0, count: recordSize)
            guard pread(fd, &bytes, recordSize, off_t(offset)) == recordSize else { return nil }
            return bytes.withUnsafeBytes { decode($0) }
        }.max { $0.sequence < $1.sequence }
    }

    // MARK: writing (on `queue`)

    private func write(_ position: SavedPosition) -> Bool {
        let path = path
        return writer.withLock { file in
            Self.encode(position, into: UnsafeMutableRawBufferPointer(start: file.buffer, count: Self.recordSize))
            while true {
                let offset = off_t(Int(position.sequence % 2) * file.writeSize)
                if pwrite(file.descriptor, file.buffer, file.writeSize, offset) == file.writeSize { break }
                guard errno == EINVAL, file.direct else { return false }
                // The device wants bigger direct writes, or the filesystem refuses them: a whole block, then buffered.
                if file.writeSize < Self.blockSize {
                    file.writeSize = Self.blockSize
                } else {
                    let buffered = open(path, O_RDWR | O_CLOEXEC)
                    guard buffered >= 0 else { return false }
                    close(file.descriptor)
                    file.descriptor = buffered
                    file.direct = false
                    file.writeSize = 512
                }
            }
            return fdatasync(file.descriptor) == 0
        }
    }

    /// Creates the file full-size once (and makes that durable), so every later write is an overwrite in place.
    private static func preallocate(_ path: String) -> Bool {
        var info = stat()
        if stat(path, &info) == 0 { return Int(info.st_size) >= fileSize || extend(path) }
        return extend(path)
    }

    private static func extend(_ path: String) -> Bool {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return false }
        let start = Int(info.st_size) // keeps what an older, smaller file holds
        let zeros = [UInt8](repeating: 0, count: fileSize - start)
        guard pwrite(fd, zeros, zeros.count, off_t(start)) == zeros.count, fsync(fd) == 0 else { return false }
        syncDirectory(containing: path)
        return true
    }

    // MARK: the record

    static func encode(_ p: SavedPosition, into bytes: UnsafeMutableRawBufferPointer) {
        let fields: [UInt64] = [magic, p.sequence, UInt64(bitPattern: p.entry), UInt64(bitPattern: p.frame),
                                UInt64(p.sampleRate)]
        for (index, value) in fields.enumerated() {
            bytes.storeBytes(of: value.littleEndian, toByteOffset: index * 8, as: UInt64.self)
        }
        bytes.storeBytes(of: checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<40])).littleEndian,
                         toByteOffset: 40, as: UInt64.self)
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) -> SavedPosition? {
        guard bytes.count >= recordSize else { return nil }
        func field(_ index: Int) -> UInt64 { UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)) }
        guard field(0) == magic, field(5) == checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<40])),
              let rate = Int(exactly: field(4)) else { return nil }
        return SavedPosition(sequence: field(1), entry: EntryID(bitPattern: field(2)), frame: Int64(bitPattern: field(3)),
                             sampleRate: rate)
    }

    /// FNV-1a, 64-bit: enough to tell a whole record from a torn or stray block.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01b3 }
    }
}
