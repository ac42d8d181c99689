import FermataCore
import CFLAC
import CVorbis
import COpusFile
import Glibc

/// Identifies a file's first embedded picture (cover art) by a hash of its image data, streamed through
/// `ContentHasher` in 64 KiB pieces: the image is never held in memory whole, and nothing is kept afterwards.
///
/// Stateless; callable from any thread. FLAC: the first PICTURE block (read with `pread`). Ogg Vorbis: the first
/// `METADATA_BLOCK_PICTURE` comment, base64-decoded on the fly. WAV carries no pictures.
public enum PictureHash {
    /// `(hash, bytes)` of the image data, or nil when the file has no readable picture.
    public static func hash(path: String, codec: String, location: PictureLocation? = nil) -> (hash: String, bytes: Int)? {
        switch codec {
        case "flac": flac(path: path)
        case "vorbis": vorbis(path: path)
        case "opus": opus(path: path)
        default: location.flatMap { located(path: path, $0) }
        }
    }

    /// The image data at a known place in the file (MP3's `APIC`, MP4's `covr`): streamed when stored plainly;
    /// an unsynchronised ID3v2 frame is read whole (at most `FileWindow.maxRequest`) and resynchronised first.
    static func located(path: String, _ location: PictureLocation) -> (hash: String, bytes: Int)? {
        guard let fd = try? PosixFile.open(path) else { return nil }
        defer { close(fd) }
        switch location.storage {
        case .plain:
            var hasher = ContentHasher()
            var buffer = [UInt8](repeating: 0, count: AudioIdentity.window)
            var done: Int64 = 0
            while done < location.length {
                guard let got = try? PosixFile.read(fd, into: &buffer, at: location.offset + done, path: path), got > 0
                else { return nil }
                let use = Int(min(Int64(got), location.length - done))
                buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0.prefix(use))) }
                done += Int64(use)
            }
            return (hasher.hexDigest(), Int(location.length))
        case .unsynchronised:
            guard location.length <= Int64(FileWindow.maxRequest) else { return nil }
            var raw = [UInt8](repeating: 0, count: Int(location.length))
            guard (try? PosixFile.read(fd, into: &raw, at: location.offset, path: path)) == raw.count else { return nil }
            let bytes = ID3v2.resync(raw)
            var hasher = ContentHasher()
            bytes.withUnsafeBytes { hasher.update($0) }
            return (hasher.hexDigest(), bytes.count)
        case .base64Block:
            return nil
        }
    }

    private static func opus(path: String) -> (hash: String, bytes: Int)? {
        var error: Int32 = 0
        guard let file = RawPath.withCString(path, { op_open_file($0, &error) }) else { return nil }
        defer { op_free(file) }
        guard let comment = op_tags(file, 0), let entries = comment.pointee.user_comments,
              let lengths = comment.pointee.comment_lengths else { return nil }
        return firstPictureComment(entries: entries, lengths: lengths, count: Int(comment.pointee.comments))
    }

    private static func firstPictureComment(
        entries: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, lengths: UnsafeMutablePointer<Int32>, count: Int
    ) -> (hash: String, bytes: Int)? {
        let key = Array("METADATA_BLOCK_PICTURE=".utf8)
        for index in 0..<count {
            guard let entry = entries[index] else { continue }
            let bytes = UnsafeBufferPointer(
                start: UnsafeRawPointer(entry).assumingMemoryBound(to: UInt8.self), count: Int(lengths[index]))
            guard bytes.count > key.count,
                  zip(bytes.prefix(key.count), key).allSatisfy({ $0 & 0xDF == $1 & 0xDF }) else { continue }
            return base64Picture(UnsafeBufferPointer(rebasing: bytes[key.count...]))
        }
        return nil
    }

    private static func flac(path: String) -> (hash: String, bytes: Int)? {
        guard let iterator = FLAC__metadata_simple_iterator_new() else { return nil }
        defer { FLAC__metadata_simple_iterator_delete(iterator) }
        guard FLAC__metadata_simple_iterator_init(iterator, path, 1, 0) != 0 else { return nil }
        repeat {
            if FLAC__metadata_simple_iterator_get_block_type(iterator) == FLAC__METADATA_TYPE_PICTURE {
                let body = Int64(FLAC__metadata_simple_iterator_get_block_offset(iterator)) + 4
                let length = Int64(FLAC__metadata_simple_iterator_get_block_length(iterator))
                return flacPicture(path: path, body: body, length: length)
            }
        } while FLAC__metadata_simple_iterator_next(iterator) != 0
        return nil
    }

    private static func flacPicture(path: String, body: Int64, length: Int64) -> (hash: String, bytes: Int)? {
        guard let fd = try? PosixFile.open(path) else { return nil }
        defer { close(fd) }
        return flacPicture(fd: fd, body: body, length: length, path: path)
    }

    /// The hash of the image data inside the PICTURE block body at `body` (`length` bytes) of the open file `fd`.
    static func flacPicture(fd: Int32, body: Int64, length: Int64, path: String) -> (hash: String, bytes: Int)? {
        func be32(_ offset: Int64) -> Int64? {
            var bytes = [UInt8](repeating: 0, count: 4)
            guard offset + 4 <= length, (try? PosixFile.read(fd, into: &bytes, at: body + offset, path: path)) == 4
            else { return nil }
            return Int64(bytes[0]) << 24 | Int64(bytes[1]) << 16 | Int64(bytes[2]) << 8 | Int64(bytes[3])
        }
        guard let mime = be32(4), let description = be32(8 + mime) else { return nil }
        let lengthOffset = 8 + mime + 4 + description + 16
        guard let dataLength = be32(lengthOffset), lengthOffset + 4 + dataLength <= length else { return nil }
        var hasher = ContentHasher()
        var buffer = [UInt8](repeating: 0, count: AudioIdentity.window)
        var done: Int64 = 0
        while done < dataLength {
            guard let got = try? PosixFile.read(fd, into: &buffer, at: body + lengthOffset + 4 + done, path: path),
                  got > 0 else { return nil }
            let use = Int(min(Int64(got), dataLength - done))
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0.prefix(use))) }
            done += Int64(use)
        }
        return (hasher.hexDigest(), Int(dataLength))
    }

    private static func vorbis(path: String) -> (hash: String, bytes: Int)? {
        let file = UnsafeMutablePointer<OggVorbis_File>.allocate(capacity: 1)
        defer { file.deallocate() }
        guard RawPath.withCString(path, { ov_fopen($0, file) }) == 0 else { return nil }
        defer { ov_clear(file) }
        guard let comment = ov_comment(file, 0), let entries = comment.pointee.user_comments,
              let lengths = comment.pointee.comment_lengths else { return nil }
        return firstPictureComment(entries: entries, lengths: lengths, count: Int(comment.pointee.comments))
    }

    /// Hashes the image data inside a base64 FLAC picture block, decoding only what it hashes, a piece at a time.
    private static func base64Picture(_ text: UnsafeBufferPointer<UInt8>) -> (hash: String, bytes: Int)? {
        func be32(_ offset: Int) -> Int? {
            let bytes = TagText.base64Prefix(text, count: offset + 4)
            guard bytes.count == offset + 4 else { return nil }
            return Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8
                | Int(bytes[offset + 3])
        }
        guard let mime = be32(4), mime < 1 << 16, let description = be32(8 + mime), description < 1 << 20,
              let dataLength = be32(8 + mime + 4 + description + 16) else { return nil }
        let dataStart = 8 + mime + 4 + description + 16 + 4
        var skip = dataStart % 3
        var remaining = dataLength
        var char = dataStart / 3 * 4
        var hasher = ContentHasher()
        var chunk = [UInt8](repeating: 0, count: 3 * 1024)
        while remaining > 0 {
            var filled = 0
            while filled + 3 <= chunk.count, char + 4 <= text.count {
                guard let a = sextet(text[char]), let b = sextet(text[char + 1]) else { return nil }
                let c = sextet(text[char + 2]), d = sextet(text[char + 3])
                let word = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c ?? 0) << 6 | UInt32(d ?? 0)
                chunk[filled] = UInt8(word >> 16)
                chunk[filled + 1] = UInt8(truncatingIfNeeded: word >> 8)
                chunk[filled + 2] = UInt8(truncatingIfNeeded: word)
                filled += c == nil ? 1 : d == nil ? 2 : 3
                char += 4
            }
            guard filled > skip else { return nil }
            let use = min(filled - skip, remaining)
            chunk.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[skip..<(skip + use)])) }
            remaining -= use
            skip = 0
        }
        return (hasher.hexDigest(), dataLength)
    }

    private static func sextet(_ char: UInt8) -> UInt8? {
        switch char {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): char - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): char - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): char - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
