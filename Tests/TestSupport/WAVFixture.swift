import Foundation

/// Writes RIFF/WAVE files byte by byte, for tests.
///
/// Stateless; callable from any thread.
public enum WAVFixture {
    /// The stored sample type.
    public enum Kind: Sendable, CaseIterable, CustomStringConvertible {
        case pcm8, pcm16, pcm24, pcm32, float32, float64

        /// Bits per stored sample.
        public var bits: Int {
            switch self {
            case .pcm8: 8
            case .pcm16: 16
            case .pcm24: 24
            case .pcm32, .float32: 32
            case .float64: 64
            }
        }

        /// The right-justified integer width `samples` must fit (float kinds take full 32-bit values).
        public var sourceBits: Int { self == .float64 ? 32 : bits }

        public var isFloat: Bool { self == .float32 || self == .float64 }

        public var description: String { "\(self == .float32 || self == .float64 ? "float" : "pcm")\(bits)" }
    }

    /// Writes `samples` (interleaved; RIGHT-justified for integer kinds, `value / 2^31` for float kinds).
    ///
    /// - extensible: WAVE_FORMAT_EXTENSIBLE `fmt ` (40 bytes, sub-format GUID PCM or IEEE float).
    /// - infoTags: a `LIST`/`INFO` chunk after the audio (ids such as `INAM`, `IART`), each value NUL-terminated and
    ///   padded to even length.
    /// - junkBytes: when set, a `JUNK` chunk of that many bytes before `fmt ` (odd sizes test chunk padding).
    public static func write(
        path: String, samples: [Int32], channels: Int, sampleRate: Int, kind: Kind, extensible: Bool = false,
        infoTags: [String: String] = [:], junkBytes: Int? = nil
    ) throws {
        try Data(bytes(samples: samples, channels: channels, sampleRate: sampleRate, kind: kind,
                       extensible: extensible, infoTags: infoTags, junkBytes: junkBytes))
            .write(to: URL(fileURLWithPath: path))
    }

    /// The bytes `write` would store.
    public static func bytes(
        samples: [Int32], channels: Int, sampleRate: Int, kind: Kind, extensible: Bool = false,
        infoTags: [String: String] = [:], junkBytes: Int? = nil
    ) -> [UInt8] {
        let sampleBytes = kind.bits / 8
        var body: [UInt8] = Array("WAVE".utf8)
        if let junkBytes {
            chunk("JUNK", [UInt8](repeating: 0x5A, count: junkBytes), into: &body)
        }
        var fmt: [UInt8] = []
        append16(extensible ? 0xFFFE : (kind.isFloat ? 3 : 1), to: &fmt)
        append16(channels, to: &fmt)
        append32(sampleRate, to: &fmt)
        append32(sampleRate * channels * sampleBytes, to: &fmt)
        append16(channels * sampleBytes, to: &fmt)
        append16(kind.bits, to: &fmt)
        if extensible {
            append16(22, to: &fmt)
            append16(kind.bits, to: &fmt)
            let masks = [1: 0x4, 2: 0x3, 3: 0x7, 4: 0x33, 5: 0x37, 6: 0x3F, 7: 0x13F, 8: 0x63F]
            append32(masks[channels] ?? 0, to: &fmt)
            append16(kind.isFloat ? 3 : 1, to: &fmt)
            fmt += [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
        }
        chunk("fmt ", fmt, into: &body)
        var data: [UInt8] = []
        data.reserveCapacity(samples.count * sampleBytes)
        for sample in samples {
            switch kind {
            case .pcm8: data.append(UInt8(truncatingIfNeeded: sample &+ 128))
            case .pcm16: append16(Int(sample), to: &data)
            case .pcm24:
                let value = UInt32(bitPattern: sample)
                data += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)]
            case .pcm32: append32(Int(sample), to: &data)
            case .float32: append32(Int((Float(sample) / 2_147_483_648).bitPattern), to: &data)
            case .float64:
                let bits = (Double(sample) / 2_147_483_648).bitPattern
                append32(Int(bits & 0xFFFF_FFFF), to: &data)
                append32(Int(bits >> 32), to: &data)
            }
        }
        chunk("data", data, into: &body)
        if !infoTags.isEmpty {
            var list: [UInt8] = Array("INFO".utf8)
            for (id, value) in infoTags.sorted(by: { $0.key < $1.key }) {
                chunk(id, Array(value.utf8) + [0], into: &list)
            }
            chunk("LIST", list, into: &body)
        }
        var file: [UInt8] = Array("RIFF".utf8)
        append32(body.count, to: &file)
        return file + body
    }

    /// Appends a chunk (id, size, body, pad byte when the size is odd).
    public static func chunk(_ id: String, _ body: [UInt8], into out: inout [UInt8]) {
        out += Array(id.utf8.prefix(4))
        append32(body.count, to: &out)
        out += body
        if body.count % 2 == 1 { out.append(0) }
    }

    public static func append16(_ value: Int, to out: inout [UInt8]) {
        out += [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
    }

    public static func append32(_ value: Int, to out: inout [UInt8]) {
        out += (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    /// Byte offset of the first chunk with `id` (its 8-byte header) in a WAV image, walking from offset 12.
    public static func chunkOffset(_ id: String, in file: [UInt8]) -> Int? {
        var offset = 12
        while offset + 8 <= file.count {
            let size = Int(file[offset + 4]) | Int(file[offset + 5]) << 8 | Int(file[offset + 6]) << 16
                | Int(file[offset + 7]) << 24
            if Array(file[offset..<offset + 4]) == Array(id.utf8) { return offset }
            offset += 8 + size + (size & 1)
        }
        return nil
    }
}
