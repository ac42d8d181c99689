import Glibc

/// Reads a WAV file's format and its `LIST`/`INFO` chunk (INAM title, IART artist, IPRD album, ICRD date, IGNR genre,
/// ITRK/IPRT track, plus ICMP composer).
///
/// Stateless; callable from any thread.
enum WAVTagReader {
    /// INFO bodies larger than this are ignored (a sane INFO chunk is a few hundred bytes).
    private static let maxInfoBytes: Int64 = 1 << 20

    static func read(path: String) throws(DecoderError) -> TrackTags {
        let fd = try PosixFile.open(path)
        defer { close(fd) }
        let size = try PosixFile.size(fd, path: path)
        guard size > 0 else { throw .corrupt(path: path, reason: "empty file") }
        let layout = try WAVLayout.parse(fd: fd, fileSize: size, path: path, wantInfo: true)
        var tags = TrackTags()
        tags.codec = "wav"
        tags.sampleRate = layout.sampleRate
        tags.channels = layout.channels
        tags.bitsPerSample = layout.validBits
        tags.duration = Double(layout.frames) / Double(layout.sampleRate)
        guard let info = layout.info, info.size > 0, info.size <= maxInfoBytes else { return tags }
        var body = [UInt8](repeating: 0, count: Int(info.size))
        let got = try PosixFile.read(fd, into: &body, at: info.offset, path: path)
        apply(info: Array(body.prefix(got)), to: &tags)
        return tags
    }

    /// Applies the INFO sub-chunks (`id`, little-endian size, NUL-terminated text, padded to even) in `body`.
    static func apply(info body: [UInt8], to tags: inout TrackTags) {
        var offset = 0
        while offset + 8 <= body.count {
            let id = String(decoding: body[offset..<offset + 4], as: UTF8.self)
            let size = Int(le32(body, offset + 4))
            let start = offset + 8
            let end = min(body.count, start + size)
            let text = body[start..<end].prefix { $0 != 0 }
            let value = TagText.clean(String(decoding: text, as: UTF8.self))
            if !value.isEmpty {
                switch id {
                case "INAM": tags.apply(key: "TITLE", value: value)
                case "IART": tags.apply(key: "ARTIST", value: value)
                case "IPRD": tags.apply(key: "ALBUM", value: value)
                case "ICRD": tags.apply(key: "DATE", value: value)
                case "IGNR": tags.apply(key: "GENRE", value: value)
                case "ITRK", "IPRT": tags.apply(key: "TRACKNUMBER", value: value)
                case "ICMP": tags.apply(key: "COMPOSER", value: value)
                default: break
                }
            }
            offset = start + size + (size & 1)
        }
    }
}
