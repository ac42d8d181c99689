import CFLAC
import FermataCore
import Glibc

/// The first embedded picture of a file (front cover preferred where the format says which is which), served a slice
/// at a time for MPD's `readpicture`: FLAC's `PICTURE` block, MP3's `APIC`, MP4's `covr`, and the base64
/// `METADATA_BLOCK_PICTURE` comment of Vorbis and Opus.
///
/// Stateless; callable from any thread (the daemon calls it off the cooperative pool). A plainly stored picture is
/// read only as far as the slice asked for; an unsynchronised or base64 one is decoded whole, at most
/// `FileWindow.maxRequest` bytes, and dropped after the call.
public enum EmbeddedPicture {
    /// A slice of the picture: its whole size, its MIME type, and up to `maxLength` bytes from `offset`.
    public struct Slice: Sendable, Hashable {
        public var totalSize: Int
        public var mimeType: String
        public var bytes: [UInt8]
    }

    /// The slice of `path`'s picture, or nil when it has none (or it cannot be read).
    public static func read(path: String, offset: Int, maxLength: Int) -> Slice? {
        guard offset >= 0, maxLength >= 0, let probe = try? FileProbe(path: path) else { return nil }
        if probe.isFLAC, let location = flacLocation(path: path) {
            return slice(path: path, location, offset: offset, maxLength: maxLength)
        }
        guard let tags = try? TagReader.read(path: path), let location = tags.pictureLocation else {
            if probe.isOggVorbis, let block = vorbisBlock(path: path) {
                return block.slice(offset: offset, maxLength: maxLength)
            }
            return nil
        }
        switch location.storage {
        case .plain, .unsynchronised:
            return slice(path: path, location, offset: offset, maxLength: maxLength)
        case .base64Block:
            return opusBlock(path: path)?.slice(offset: offset, maxLength: maxLength)
        }
    }

    private static func slice(path: String, _ location: PictureLocation, offset: Int, maxLength: Int) -> Slice? {
        guard let fd = try? PosixFile.open(path) else { return nil }
        defer { close(fd) }
        switch location.storage {
        case .plain:
            guard Int64(offset) <= location.length else { return nil }
            let count = Int(min(Int64(maxLength), location.length - Int64(offset)))
            var bytes = [UInt8](repeating: 0, count: count)
            guard (try? PosixFile.read(fd, into: &bytes, at: location.offset + Int64(offset), path: path)) == count
            else { return nil }
            return Slice(totalSize: Int(location.length), mimeType: location.mimeType, bytes: bytes)
        case .unsynchronised:
            // An ID3v2.4 frame with its own unsynchronisation: the whole frame body (encoding, MIME, type,
            // description, image), resynchronised, then cut after its description.
            guard location.length <= Int64(FileWindow.maxRequest) else { return nil }
            var raw = [UInt8](repeating: 0, count: Int(location.length))
            guard (try? PosixFile.read(fd, into: &raw, at: location.offset, path: path)) == raw.count else { return nil }
            let body = ID3v2.resync(raw)
            guard let (mime, _, start) = ID3v2.pictureHeader(body, v22: false), start <= body.count else { return nil }
            return Block(mimeType: mime, data: Array(body[start...])).slice(offset: offset, maxLength: maxLength)
        case .base64Block:
            return nil
        }
    }

    /// A picture held whole in memory (decoded from base64 or resynchronised).
    struct Block {
        var mimeType: String
        var data: [UInt8]

        func slice(offset: Int, maxLength: Int) -> Slice? {
            guard offset <= data.count else { return nil }
            let end = min(data.count, offset + maxLength)
            return Slice(totalSize: data.count, mimeType: mimeType, bytes: Array(data[offset..<end]))
        }

        /// Parses a FLAC picture block body (the layout `METADATA_BLOCK_PICTURE` carries in base64).
        init?(flacPictureBody body: [UInt8]) {
            func be32(_ at: Int) -> Int? {
                guard at >= 0, at + 4 <= body.count else { return nil }
                return Int(body[at]) << 24 | Int(body[at + 1]) << 16 | Int(body[at + 2]) << 8 | Int(body[at + 3])
            }
            guard let mimeLength = be32(4), mimeLength < 256, 8 + mimeLength <= body.count,
                  let descriptionLength = be32(8 + mimeLength), descriptionLength < 1 << 20 else { return nil }
            let lengthAt = 8 + mimeLength + 4 + descriptionLength + 16
            guard let length = be32(lengthAt), lengthAt + 4 + length <= body.count else { return nil }
            mimeType = String(decoding: body[8..<(8 + mimeLength)], as: UTF8.self)
            data = Array(body[(lengthAt + 4)..<(lengthAt + 4 + length)])
        }

        init(mimeType: String, data: [UInt8]) {
            self.mimeType = mimeType
            self.data = data
        }
    }

    /// The image data of the first FLAC `PICTURE` block, located with libFLAC's metadata iterator.
    private static func flacLocation(path: String) -> PictureLocation? {
        guard let iterator = FLAC__metadata_simple_iterator_new() else { return nil }
        defer { FLAC__metadata_simple_iterator_delete(iterator) }
        guard RawPath.withCString(path, { FLAC__metadata_simple_iterator_init(iterator, $0, 1, 0) }) != 0 else { return nil }
        repeat {
            guard FLAC__metadata_simple_iterator_get_block_type(iterator) == FLAC__METADATA_TYPE_PICTURE else { continue }
            let body = Int64(FLAC__metadata_simple_iterator_get_block_offset(iterator)) + 4
            let length = Int(FLAC__metadata_simple_iterator_get_block_length(iterator))
            guard let fd = try? PosixFile.open(path) else { return nil }
            defer { close(fd) }
            var head = [UInt8](repeating: 0, count: min(length, 2048))
            guard (try? PosixFile.read(fd, into: &head, at: body, path: path)) == head.count else { return nil }
            func be32(_ at: Int) -> Int? {
                guard at + 4 <= head.count else { return nil }
                return Int(head[at]) << 24 | Int(head[at + 1]) << 16 | Int(head[at + 2]) << 8 | Int(head[at + 3])
            }
            guard let mimeLength = be32(4), 8 + mimeLength <= head.count, let descriptionLength = be32(8 + mimeLength),
                  let dataLength = be32(8 + mimeLength + 4 + descriptionLength + 16) else { return nil }
            let dataAt = 8 + mimeLength + 4 + descriptionLength + 20
            guard dataAt + dataLength <= length else { return nil }
            return PictureLocation(offset: body + Int64(dataAt), length: Int64(dataLength),
                                   mimeType: String(decoding: head[8..<(8 + mimeLength)], as: UTF8.self), storage: .plain)
        } while FLAC__metadata_simple_iterator_next(iterator) != 0
        return nil
    }

    private static func vorbisBlock(path: String) -> Block? {
        commentBlock(VorbisComments.read(path: path))
    }

    private static func opusBlock(path: String) -> Block? {
        commentBlock(VorbisComments.readOpus(path: path))
    }

    /// The first `METADATA_BLOCK_PICTURE=` comment, base64-decoded (at most `FileWindow.maxRequest` bytes).
    private static func commentBlock(_ comments: [[UInt8]]) -> Block? {
        let key = Array("METADATA_BLOCK_PICTURE=".utf8)
        for entry in comments where entry.count > key.count
            && zip(entry.prefix(key.count), key).allSatisfy({ $0 & 0xDF == $1 & 0xDF }) {
            let decoded = entry[key.count...].withUnsafeBufferPointer {
                TagText.base64Prefix($0, count: FileWindow.maxRequest)
            }
            return Block(flacPictureBody: decoded)
        }
        return nil
    }
}
