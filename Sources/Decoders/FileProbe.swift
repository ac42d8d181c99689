import FermataCore
import Glibc

/// The first bytes of a file, read once so a decoder can be chosen by content (never by the file extension).
///
/// A value type, built and used on whichever thread opens the file (the decoder thread, or a tag-reading thread).
struct FileProbe {
    /// Bytes kept from the start of the file: enough for an Ogg page header, its segment table and a Vorbis packet id.
    static let headLength = 512

    let path: String
    /// File size in bytes (never 0: an empty file is rejected as corrupt).
    let size: Int64
    /// Up to `headLength` bytes from the start of the file.
    let head: [UInt8]
    /// Bytes taken by leading ID3v2 tags (0 when there are none); FLAC files sometimes carry one.
    let id3Length: Int64
    /// Up to 16 bytes starting after the ID3v2 tags (the start of the file when there are none).
    let afterID3: [UInt8]

    /// Reads the head of `path`. Missing or unreadable → `.unreadable`; zero length → `.corrupt("empty file")`.
    init(path: String) throws(DecoderError) {
        self.path = path
        let fd = try PosixFile.open(path)
        defer { close(fd) }
        size = try PosixFile.size(fd, path: path)
        guard size > 0 else { throw .corrupt(path: path, reason: "empty file") }
        var buffer = [UInt8](repeating: 0, count: Self.headLength)
        let count = try PosixFile.read(fd, into: &buffer, at: 0, path: path)
        head = Array(buffer.prefix(count))
        var skip: Int64 = 0
        var tail = head
        // Skip any ID3v2 tags ("ID3", version, flags, 4 syncsafe size bytes; +10 with a footer). At most a few.
        for _ in 0..<4 {
            guard tail.count >= 10, tail[0] == 0x49, tail[1] == 0x44, tail[2] == 0x33,
                  tail[6] < 0x80, tail[7] < 0x80, tail[8] < 0x80, tail[9] < 0x80 else { break }
            let body = Int64(tail[6]) << 21 | Int64(tail[7]) << 14 | Int64(tail[8]) << 7 | Int64(tail[9])
            skip += 10 + body + (tail[5] & 0x10 != 0 ? 10 : 0)
            var next = [UInt8](repeating: 0, count: 16)
            let got = try PosixFile.read(fd, into: &next, at: skip, path: path)
            tail = Array(next.prefix(got))
        }
        id3Length = skip
        afterID3 = Array(tail.prefix(16))
    }

    /// `fLaC`, possibly after ID3v2 tags.
    var isFLAC: Bool { afterID3.starts(with: [0x66, 0x4C, 0x61, 0x43]) }

    /// An Ogg page capture pattern at offset 0 (any codec).
    var isOgg: Bool { head.starts(with: [0x4F, 0x67, 0x67, 0x53]) }

    /// An Ogg file whose first packet is a Vorbis identification header (`\u{1}vorbis`).
    var isOggVorbis: Bool {
        guard isOgg, head.count > 27 else { return false }
        let packet = 27 + Int(head[26])
        guard head.count >= packet + 7 else { return false }
        return Array(head[packet..<packet + 7]) == [0x01, 0x76, 0x6F, 0x72, 0x62, 0x69, 0x73]
    }

    /// An Ogg file whose first packet is an Opus identification header (`OpusHead`).
    var isOggOpus: Bool {
        guard isOgg, head.count > 27 else { return false }
        let packet = 27 + Int(head[26])
        guard head.count >= packet + 8 else { return false }
        return head[packet..<packet + 8].elementsEqual("OpusHead".utf8)
    }

    /// MPEG audio: a valid frame header right after any ID3v2 tags, or ID3v2 tags followed by something that is
    /// no other format (padding, junk: `MP3Layout` looks for the first frame further on).
    var isMP3: Bool {
        if afterID3.count >= 4,
           MP3Layout.FrameHeader(afterID3[0], afterID3[1], afterID3[2], afterID3[3]) != nil { return true }
        return id3Length > 0 && !isFLAC && !isADTS && !isMP4
    }

    /// An ISO base media file (MP4, M4A, M4B, M4P): `ftyp` as the first box.
    var isMP4: Bool { head.count >= 8 && head[4..<8].elementsEqual("ftyp".utf8) }

    /// Raw AAC in ADTS frames: a 12-bit sync word with the layer bits 00 (MPEG audio has 01–11 there).
    var isADTS: Bool { afterID3.count >= 2 && afterID3[0] == 0xFF && afterID3[1] & 0xF6 == 0xF0 }

    /// `RIFF` … `WAVE`, or RF64's `RF64` … `WAVE`.
    var isWAV: Bool {
        head.count >= 12 && (head.starts(with: Array("RIFF".utf8)) || head.starts(with: Array("RF64".utf8)))
            && Array(head[8..<12]) == Array("WAVE".utf8)
    }
}

/// Thin wrappers over POSIX file calls that turn `errno` into `DecoderError.unreadable`.
///
/// Stateless; callable from any thread.
enum PosixFile {
    static func open(_ path: String) throws(DecoderError) -> Int32 {
        let fd = RawPath.withCString(path) { Glibc.open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw .unreadable(path: path, reason: errnoString()) }
        return fd
    }

    static func size(_ fd: Int32, path: String) throws(DecoderError) -> Int64 {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadable(path: path, reason: errnoString()) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .unreadable(path: path, reason: "not a regular file") }
        return Int64(info.st_size)
    }

    /// Reads up to `buffer.count` bytes at `offset`, retrying short reads; returns fewer only at end of file.
    static func read(
        _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64, path: String
    ) throws(DecoderError) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        try ReadBudget.charge(buffer.count, path: path)
        var done = 0
        while done < buffer.count {
            let got = pread(fd, base + done, buffer.count - done, off_t(offset) + off_t(done))
            if got > 0 {
                done += got
            } else if got == 0 {
                break
            } else if errno != EINTR {
                throw .unreadable(path: path, reason: errnoString())
            }
        }
        return done
    }

    /// Reads up to `bytes.count` bytes at `offset` into `bytes`; returns how many arrived.
    static func read(
        _ fd: Int32, into bytes: inout [UInt8], at offset: Int64, path: String
    ) throws(DecoderError) -> Int {
        var result: Result<Int, DecoderError> = .success(0)
        bytes.withUnsafeMutableBytes { raw in
            result = Result { () throws(DecoderError) -> Int in try read(fd, into: raw, at: offset, path: path) }
        }
        return try result.get()
    }

    static func errnoString(_ code: Int32 = errno) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }
}

extension DecoderError {
    /// The explanation carried by any case (without the path).
    var reason: String {
        switch self {
        case let .unreadable(_, reason), let .unsupported(_, reason), let .corrupt(_, reason),
             let .seekFailed(_, reason): reason
        }
    }
}
