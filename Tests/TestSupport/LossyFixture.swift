import Foundation

/// Files made by the encoders and taggers owners' files come from (LAME, FFmpeg, opusenc, mutagen, AtomicParsley),
/// and the reference decoders' samples for them (`mpg123`, `ffmpeg`, `opusdec`), for tests.
///
/// Stateless; callable from any thread (each call runs its own process).
public enum LossyFixture {
    /// Why a tool failed.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The formats made here, each with its encoder command.
    public enum Kind: String, Sendable, CaseIterable {
        /// LAME VBR (-V2), with its Xing/LAME header.
        case mp3
        /// LAME CBR 128 kb/s (an Info header).
        case mp3CBR
        /// FFmpeg's AAC-LC encoder in M4A: gapless through its edit list.
        case aac
        /// FFmpeg's AAC-LC encoder without noise substitution (deterministic after a seek: see `MP4Decoder`).
        case aacNoPNS
        /// FFmpeg's ALAC in M4A.
        case alac
        /// opusenc at its default bit rate.
        case opus

        public var fileExtension: String {
            switch self {
            case .mp3, .mp3CBR: "mp3"
            case .aac, .aacNoPNS, .alac: "m4a"
            case .opus: "opus"
            }
        }
    }

    /// Encodes `wav` into `path` as `kind`; `tags` go in with the encoder's own options.
    public static func encode(_ kind: Kind, wav: String, to path: String, tags: [String: String] = [:]) throws {
        let sortedTags = tags.sorted { $0.key < $1.key }
        switch kind {
        case .mp3, .mp3CBR:
            var arguments = ["--quiet", "--noreplaygain"] + (kind == .mp3 ? ["-V", "2"] : ["-b", "128"])
            for (key, value) in sortedTags { arguments += ["--tv", "\(key)=\(value)"] }
            try run("/usr/bin/lame", arguments + [wav, path])
        case .aac, .aacNoPNS, .alac:
            var arguments = ["-nostdin", "-loglevel", "error", "-y", "-i", wav]
            arguments += kind == .alac ? ["-c:a", "alac"] : ["-c:a", "aac", "-b:a", "128k"]
            if kind == .aacNoPNS { arguments += ["-aac_pns", "0"] }
            for (key, value) in sortedTags { arguments += ["-metadata", "\(key)=\(value)"] }
            try run("/usr/bin/ffmpeg", arguments + [path])
        case .opus:
            var arguments = ["--quiet"]
            for (key, value) in sortedTags { arguments += ["--comment", "\(key)=\(value)"] }
            try run("/usr/bin/opusenc", arguments + [wav, path])
        }
    }

    /// The reference decoder's samples for `path`, as interleaved 32-bit floats: `mpg123` (gapless, float output),
    /// `ffmpeg` (it applies the MP4 edit list's start but keeps the padding at the end: callers compare a prefix), or
    /// `opusdec` at 48 kHz.
    public static func reference(_ kind: Kind, path: String, in directory: String) throws -> [Float] {
        let raw = directory + "/reference-\(UUID().uuidString).raw"
        defer { try? FileManager.default.removeItem(atPath: raw) }
        switch kind {
        case .mp3, .mp3CBR:
            try run("/usr/bin/mpg123", ["-q", "-e", "f32", "-w", raw + ".wav", path])
            return try floatsFromWAV(raw + ".wav")
        case .aac, .aacNoPNS, .alac:
            try run("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error", "-y", "-i", path, "-f", "f32le", raw])
            return floats(try Data(contentsOf: URL(fileURLWithPath: raw)))
        case .opus:
            try run("/usr/bin/opusdec", ["--quiet", "--float", "--rate", "48000", "--no-dither", path, raw + ".wav"])
            return try floatsFromWAV(raw + ".wav")
        }
    }

    /// Runs a tool, throwing with its error output when it fails.
    @discardableResult
    public static func run(_ tool: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.reap()
        guard process.reapedTerminationStatus == 0 else {
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")) exited "
                + "\(process.reapedTerminationStatus): " + String(decoding: message, as: UTF8.self))
        }
        return data
    }

    /// Little-endian 32-bit floats.
    public static func floats(_ data: Data) -> [Float] {
        data.withUnsafeBytes { raw in
            (0..<(raw.count / 4)).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
        }
    }

    /// The samples of a WAV file in 32-bit float or 16-bit PCM (the `data` chunk found by walking the chunks).
    public static func floatsFromWAV(_ path: String) throws -> [Float] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var offset = 12, bits = 16, isFloat = false
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16
                | Int(bytes[offset + 7]) << 24
            let body = offset + 8
            if id == "fmt " {
                var tag = Int(bytes[body]) | Int(bytes[body + 1]) << 8
                bits = Int(bytes[body + 14]) | Int(bytes[body + 15]) << 8
                if tag == 0xFFFE { tag = Int(bytes[body + 24]) | Int(bytes[body + 25]) << 8 }
                isFloat = tag == 3
            }
            if id == "data" {
                let end = min(bytes.count, size == 0 || size == -1 ? bytes.count : body + size)
                let data = Data(bytes[body..<end])
                if isFloat && bits == 32 { return floats(data) }
                return data.withUnsafeBytes { raw in
                    (0..<(raw.count / 2)).map { Float(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self))) / 32768 }
                }
            }
            offset = body + size + (size & 1)
        }
        throw Failure(description: "\(path): no data chunk")
    }
}
