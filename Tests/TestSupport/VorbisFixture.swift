import Foundation

/// Writes Ogg Vorbis files by running `oggenc` (vorbis-tools) on a WAV fixture, for tests.
///
/// Stateless; callable from any thread (each call runs its own process).
public enum VorbisFixture {
    public static let oggenc = "/usr/bin/oggenc"

    /// Why a fixture could not be written.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Encodes `wavPath` to `path` at `quality` with the given comments; `serial` fixes the Ogg stream serial
    /// (links of a chained file need different ones).
    public static func write(
        path: String, wavPath: String, quality: Int = 3, tags: [String: String] = [:], serial: Int32? = nil
    ) throws {
        var arguments = ["-Q", "-q", "\(quality)", "-o", path]
        if let serial { arguments += ["-s", "\(serial)"] }
        for (key, value) in tags.sorted(by: { $0.key < $1.key }) { arguments += ["-c", "\(key)=\(value)"] }
        arguments.append(wavPath)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: oggenc)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.reap()
        guard process.reapedTerminationStatus == 0 else {
            throw Failure(description: "oggenc exited \(process.reapedTerminationStatus): "
                + String(decoding: message, as: UTF8.self))
        }
    }

    /// Writes the byte concatenation of `parts` to `path`: a valid chained Ogg stream when each part is a complete
    /// Ogg file with its own serial number.
    public static func concatenate(_ parts: [String], into path: String) throws {
        var data = Data()
        for part in parts { data += try Data(contentsOf: URL(fileURLWithPath: part)) }
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// Byte offset of the first Ogg page after the Vorbis header pages (the first page with a granule position
    /// other than 0), or nil when there is none. Header pages end on a page boundary, so cutting a file anywhere
    /// before this offset damages its headers.
    public static func audioStart(of bytes: [UInt8]) -> Int? {
        var offset = 0
        while offset + 27 <= bytes.count, Array(bytes[offset..<offset + 4]) == Array("OggS".utf8) {
            let granule = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + 6 + $1]) << (8 * UInt64($1)) }
            let segments = Int(bytes[offset + 26])
            guard offset + 27 + segments <= bytes.count else { return nil }
            if granule != 0 { return offset }
            let body = bytes[(offset + 27)..<(offset + 27 + segments)].reduce(0) { $0 + Int($1) }
            offset += 27 + segments + body
        }
        return nil
    }
}
