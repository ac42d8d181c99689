import Glibc

/// Hashes the audio packets at the start of an Ogg stream: the packet bytes after the header packets (three for
/// Vorbis, two for Opus) of
/// the first logical stream, without the page headers, so the result survives re-pagination (comment editors such as
/// `vorbiscomment` rewrite pages and renumber them).
///
/// Stateless; callable from any thread.
enum OggPacketHash {
    /// The hex `ContentHasher` digest of the first `limit` bytes of audio packet data (fewer when the stream is
    /// shorter). Reads page by page with `pread`; header pages are skipped without reading their bodies.
    static func hash(path: String, limit: Int, headerPackets: Int = 3) throws(DecoderError) -> String {
        let fd = try PosixFile.open(path)
        defer { close(fd) }
        let size = try PosixFile.size(fd, path: path)
        var hasher = ContentHasher()
        var header = [UInt8](repeating: 0, count: 27 + 255)
        var body = [UInt8](repeating: 0, count: 255 * 255)
        var offset: Int64 = 0
        var serial: UInt32?
        var packets = 0
        var hashed = 0
        while hashed < limit, offset + 27 <= size {
            let got = try PosixFile.read(fd, into: &header, at: offset, path: path)
            guard got >= 27, header.starts(with: [0x4F, 0x67, 0x67, 0x53]) else {
                throw .corrupt(path: path, reason: "no Ogg page at byte \(offset)")
            }
            let segments = Int(header[26])
            guard got >= 27 + segments else { throw .corrupt(path: path, reason: "truncated Ogg page header") }
            let pageSerial = UInt32(header[14]) | UInt32(header[15]) << 8 | UInt32(header[16]) << 16
                | UInt32(header[17]) << 24
            let lacing = header[27..<(27 + segments)]
            let bodyLength = lacing.reduce(0) { $0 + Int($1) }
            let bodyStart = offset + 27 + Int64(segments)
            offset = bodyStart + Int64(bodyLength)
            if serial == nil { serial = pageSerial }
            if pageSerial != serial {
                if header[5] & 0x02 != 0, packets >= headerPackets { break }   // a new chained link begins
                continue
            }
            // Which bytes of this page belong to audio packets (the fourth packet on)?
            var position = 0
            var audioStart: Int?
            for value in lacing {
                if packets >= headerPackets, audioStart == nil { audioStart = position }
                position += Int(value)
                if value < 255 { packets += 1 }
            }
            guard let start = audioStart, start < bodyLength else { continue }
            let read = try readPrefix(fd, into: &body, count: bodyLength, at: bodyStart, path: path)
            let end = min(read, bodyLength, start + (limit - hashed))
            guard end > start else { continue }
            body.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
            hashed += end - start
        }
        guard packets >= headerPackets else { throw .corrupt(path: path, reason: "the Ogg header packets are incomplete") }
        return hasher.hexDigest()
    }

    /// Reads `count` bytes (at most `bytes.count`) at `offset` into the start of `bytes`; returns how many arrived.
    private static func readPrefix(
        _ fd: Int32, into bytes: inout [UInt8], count: Int, at offset: Int64, path: String
    ) throws(DecoderError) -> Int {
        var result: Result<Int, DecoderError> = .success(0)
        bytes.withUnsafeMutableBytes { raw in
            let window = UnsafeMutableRawBufferPointer(rebasing: raw.prefix(count))
            result = Result { () throws(DecoderError) -> Int in
                try PosixFile.read(fd, into: window, at: offset, path: path)
            }
        }
        return try result.get()
    }
}
