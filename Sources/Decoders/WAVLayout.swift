import AudioCore
import Glibc

/// Where the audio and the metadata sit in a RIFF/WAVE file, and how its samples are stored.
///
/// A value type built by walking the chunk list with `pread`; used by `WAVDecoder` and the WAV tag reader on
/// whichever thread owns the file descriptor.
struct WAVLayout {
    /// How one stored sample is laid out (always little-endian).
    enum Storage: Equatable {
        /// 8-bit unsigned PCM (128 is silence).
        case unsigned8
        /// Signed PCM in a 2-, 3- or 4-byte container, meaningful bits at the top.
        case signed(bytes: Int)
        case float32
        case float64

        var bytes: Int {
            switch self {
            case .unsigned8: 1
            case let .signed(bytes): bytes
            case .float32: 4
            case .float64: 8
            }
        }
    }

    var storage: Storage = .signed(bytes: 2)
    var channels = 0
    var sampleRate = 0
    var validBits = 0
    var blockAlign = 0
    var dataOffset: Int64 = 0
    /// Bytes of audio actually present (clamped to the file when the header claims more, or streams to its end).
    var dataBytes: Int64 = 0
    /// The body of the first `LIST` chunk of type `INFO` (offset after the `INFO` type, size), when asked for.
    var info: (offset: Int64, size: Int64)?

    /// Whole frames present.
    var frames: Int64 { dataBytes / Int64(blockAlign) }

    /// Integer data left-justified (`.s16` up to 2-byte containers, else `.s32`); float as `.f32`.
    var format: AudioFormat {
        switch storage {
        case .unsigned8: AudioFormat(sampleRate: sampleRate, channels: channels, encoding: .s16, validBits: validBits)
        case .signed(2): AudioFormat(sampleRate: sampleRate, channels: channels, encoding: .s16, validBits: validBits)
        case .signed: AudioFormat(sampleRate: sampleRate, channels: channels, encoding: .s32, validBits: validBits)
        case .float32, .float64: AudioFormat(sampleRate: sampleRate, channels: channels, encoding: .f32)
        }
    }

    /// Chunks walked at most: real files have a handful; the bound keeps a damaged one from being walked for long.
    static let maxChunks = 1_000

    /// Walks the chunks of an open file. Not RIFF/WAVE → `.unsupported`; bad or missing `fmt `/`data` → `.corrupt`.
    /// With `wantInfo`, keeps walking past `data` (when its size is trustworthy) to find a `LIST`/`INFO` chunk.
    static func parse(fd: Int32, fileSize: Int64, path: String, wantInfo: Bool) throws(DecoderError) -> WAVLayout {
        var header = [UInt8](repeating: 0, count: 12)
        guard try PosixFile.read(fd, into: &header, at: 0, path: path) == 12,
              header.starts(with: Array("RIFF".utf8)) || header.starts(with: Array("RF64".utf8)),
              Array(header[8..<12]) == Array("WAVE".utf8) else {
            throw .unsupported(path: path, reason: "not a RIFF/WAVE file")
        }
        let riffSize = le32(header, 4)
        let streaming = riffSize == 0 || riffSize == 0xFFFF_FFFF
        var layout = WAVLayout()
        var sawFormat = false, sawData = false
        /// RF64 (EBU 3306, field recorders): the `ds64` chunk holds the 64-bit data size the `data` chunk cannot.
        var ds64DataSize: Int64?
        var offset: Int64 = 12
        var chunk = [UInt8](repeating: 0, count: 12)
        var chunks = 0
        walk: while offset + 8 <= fileSize, chunks < maxChunks {
            chunks += 1
            guard try PosixFile.read(fd, into: &chunk, at: offset, path: path) >= 8 else { break }
            // Chunk ids are four printable ASCII characters; anything else is not a chunk (junk, or audio reached
            // through a wrong size), and walking it 8 bytes at a time could take hours in a large file.
            guard chunk[0..<4].allSatisfy({ (0x20...0x7E).contains($0) }) else { break }
            let id = String(decoding: chunk[0..<4], as: UTF8.self)
            let size = Int64(le32(chunk, 4))
            let body = offset + 8
            switch id {
            case "ds64" where size >= 24:
                var sizes = [UInt8](repeating: 0, count: 24)
                if try PosixFile.read(fd, into: &sizes, at: body, path: path) == 24 {
                    ds64DataSize = Int64(le32(sizes, 8)) | Int64(le32(sizes, 12)) << 32
                }
            case "fmt " where !sawFormat:
                var bytes = [UInt8](repeating: 0, count: Int(min(size, 64)))
                let got = try PosixFile.read(fd, into: &bytes, at: body, path: path)
                try layout.parseFormat(Array(bytes.prefix(got)), declared: size, path: path)
                sawFormat = true
            case "data" where !sawData:
                layout.dataOffset = body
                let present = max(0, fileSize - body)
                var declared = size
                if let ds64DataSize, size == 0xFFFF_FFFF { declared = ds64DataSize }
                // A 32-bit size cannot describe more than 4 GiB: a recorder that kept writing past it leaves the
                // size wrapped around (or 0xFFFFFFFF). Then the audio runs to the end of the file.
                let wrapped = present > Int64(UInt32.max) && declared < present && ds64DataSize == nil
                let toEnd = (size == 0xFFFF_FFFF && ds64DataSize == nil) || (size == 0 && streaming) || declared > present
                    || wrapped
                layout.dataBytes = toEnd ? present : declared
                sawData = true
                if toEnd { offset = fileSize; continue walk }
                offset = body + declared + (declared & 1)
                if sawFormat, !wantInfo || layout.info != nil { break walk }
                continue walk
            case "LIST" where wantInfo && layout.info == nil && size >= 4:
                let got = try PosixFile.read(fd, into: &chunk, at: body, path: path)
                if got >= 4, Array(chunk[0..<4]) == Array("INFO".utf8) {
                    layout.info = (body + 4, max(0, min(size, fileSize - body) - 4))
                }
            default:
                break
            }
            if sawFormat, sawData, !wantInfo || layout.info != nil { break }
            offset = body + size + (size & 1)
        }
        guard sawFormat else { throw .corrupt(path: path, reason: "no fmt chunk") }
        guard sawData else { throw .corrupt(path: path, reason: "no data chunk") }
        return layout
    }

    private mutating func parseFormat(_ fmt: [UInt8], declared: Int64, path: String) throws(DecoderError) {
        guard fmt.count >= 16, declared >= 16 else { throw .corrupt(path: path, reason: "fmt chunk too short") }
        var tag = Int(le16(fmt, 0))
        channels = Int(le16(fmt, 2))
        sampleRate = Int(le32(fmt, 4))
        blockAlign = Int(le16(fmt, 12))
        let containerBits = Int(le16(fmt, 14))
        validBits = containerBits
        guard AudioFormat.channelRange.contains(channels) else { throw .corrupt(path: path, reason: "\(channels) channels in fmt") }
        guard sampleRate > 0 else { throw .corrupt(path: path, reason: "sample rate 0 in fmt") }
        var bytes = (containerBits + 7) / 8
        if tag == 0xFFFE {
            guard fmt.count >= 40, le16(fmt, 16) >= 22 else {
                throw .corrupt(path: path, reason: "WAVE_FORMAT_EXTENSIBLE fmt chunk too short")
            }
            let guidTail: [UInt8] = [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
            guard Array(fmt[26..<40]) == guidTail else {
                throw .unsupported(path: path, reason: "unknown WAVE_FORMAT_EXTENSIBLE sub-format")
            }
            tag = Int(le16(fmt, 24))
            let valid = Int(le16(fmt, 18))
            guard containerBits % 8 == 0, valid <= containerBits else {
                throw .corrupt(path: path, reason: "\(valid) valid bits in a \(containerBits)-bit container")
            }
            if valid > 0 { validBits = valid }
            bytes = containerBits / 8
        }
        switch tag {
        case 1:
            guard (1...32).contains(containerBits) else {
                throw .corrupt(path: path, reason: "\(containerBits)-bit PCM")
            }
            storage = bytes == 1 ? .unsigned8 : .signed(bytes: bytes)
        case 3:
            guard containerBits == 32 || containerBits == 64 else {
                throw .unsupported(path: path, reason: "\(containerBits)-bit float")
            }
            storage = containerBits == 32 ? .float32 : .float64
        default:
            throw .unsupported(path: path, reason: "WAV format tag 0x\(String(tag, radix: 16)) (PCM and float only)")
        }
        guard validBits >= 1 else { throw .corrupt(path: path, reason: "0 valid bits") }
        guard blockAlign == channels * storage.bytes else {
            throw .corrupt(path: path, reason: "block align \(blockAlign) for \(channels) × \(storage.bytes) bytes")
        }
    }
}

/// Little-endian 16-bit value at `at`.
func le16(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }

/// Little-endian 32-bit value at `at`.
func le32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
    UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
}
