import FermataCore
import Glibc

/// Where an embedded picture's image data sits in a file, and how it is stored there.
public struct PictureLocation: Sendable, Hashable {
    public enum Storage: Sendable, Hashable {
        /// The bytes as they are in the file.
        case plain
        /// ID3v2 unsynchronisation: every 0xFF 0x00 in the file stands for 0xFF.
        case unsynchronised
        /// Base64 text of a FLAC picture block (Vorbis and Opus comments); `offset`/`length` are the text's.
        case base64Block
    }

    public var offset: Int64
    public var length: Int64
    public var mimeType: String
    public var storage: Storage
}

/// Reads ID3v2.2, 2.3 and 2.4 tags (unsynchronisation, extended headers, several frames of one kind) into
/// `TrackTags`, and finds the first attached picture without reading it.
///
/// Stateless; callable from any thread. Hand-written because the scan reads every MP3's tag and is timed against
/// MPD's: it reads the frames it needs through one `FileWindow` (usually one `pread`), skips pictures by their size,
/// and never trusts a size field further than the tag and the file (fuzzed in `Tests/Tools/fuzz`).
enum ID3v2 {
    /// The total length of the ID3v2 tags at the start of the file (0 when there are none). A tag that claims more
    /// than the file holds → `.corrupt`.
    static func totalLength(fd: Int32, size: Int64, path: String) throws(DecoderError) -> Int64 {
        var offset: Int64 = 0
        var header = [UInt8](repeating: 0, count: 10)
        for _ in 0..<8 {
            guard try PosixFile.read(fd, into: &header, at: offset, path: path) == 10,
                  let length = tagLength(header) else { break }
            guard offset + length <= size else {
                throw .corrupt(path: path, reason: "the ID3v2 tag claims \(length) bytes; the file has \(size)")
            }
            offset += length
        }
        return offset
    }

    /// The length of the tag whose 10-byte header is `header`, footer included; nil when it is not an ID3v2 header.
    static func tagLength(_ header: [UInt8]) -> Int64? {
        guard header.count >= 10, header[0] == 0x49, header[1] == 0x44, header[2] == 0x33, (2...4).contains(header[3]),
              header[6] < 0x80, header[7] < 0x80, header[8] < 0x80, header[9] < 0x80 else { return nil }
        let body = Int64(header[6]) << 21 | Int64(header[7]) << 14 | Int64(header[8]) << 7 | Int64(header[9])
        return 10 + body + (header[3] == 4 && header[5] & 0x10 != 0 ? 10 : 0)
    }

    /// Applies every ID3v2 tag at the start of the file to `tags` (fields already set keep their values) and returns
    /// the first picture (front cover preferred).
    static func read(_ file: inout FileWindow, into tags: inout TrackTags) throws(DecoderError) -> PictureLocation? {
        var offset: Int64 = 0
        var picture: (location: PictureLocation, front: Bool)?
        for _ in 0..<8 {
            guard let header = try file.bytes(at: offset, count: 10), let length = tagLength(Array(header)),
                  offset + length <= file.size else { break }
            if let found = try readTag(&file, at: offset, length: length, into: &tags),
               picture == nil || found.front && !(picture?.front ?? false) {
                picture = found
            }
            offset += length
        }
        return picture?.location
    }

    /// One tag: its frames, in order.
    private static func readTag(
        _ file: inout FileWindow, at start: Int64, length: Int64, into tags: inout TrackTags
    ) throws(DecoderError) -> (location: PictureLocation, front: Bool)? {
        guard let header = try file.bytes(at: start, count: 10) else { return nil }
        let version = Int(header[header.startIndex + 3]), flags = header[header.startIndex + 5]
        let tagUnsync = flags & 0x80 != 0
        var end = start + length - (version == 4 && flags & 0x10 != 0 ? 10 : 0)
        var cursor = start + 10
        if tagUnsync && version < 4 {
            // The whole tag is unsynchronised: undo it in memory (bounded by FileWindow) and parse the copy.
            guard let raw = try file.bytes(at: cursor, count: Int(min(end - cursor, Int64(FileWindow.maxRequest))))
            else { return nil }
            let body = resync(raw)
            return parseFrames(body, version: version, extended: flags & 0x40 != 0, into: &tags).map {
                // Offsets inside a resynchronised copy do not map to the file: keep the picture's whole frame.
                (PictureLocation(offset: cursor, length: end - cursor, mimeType: $0.mime, storage: .unsynchronised), $0.front)
            }
        }
        if flags & 0x40 != 0, version >= 3 {
            guard let size = try file.be32(at: cursor) else { return nil }
            cursor += version == 4 ? Int64(syncsafe(size)) : Int64(size) + 4
        }
        end = min(end, file.size)
        var picture: (location: PictureLocation, front: Bool)?
        let idLength = version == 2 ? 3 : 4, headerLength = version == 2 ? 6 : 10
        var frames = 0
        while cursor + Int64(headerLength) <= end, frames < 10_000 {
            frames += 1
            guard let frameHeader = try file.bytes(at: cursor, count: headerLength) else { break }
            let h = Array(frameHeader)
            guard h[0] != 0 else { break }  // padding
            let id = String(decoding: h[0..<idLength], as: UTF8.self)
            guard id.utf8.allSatisfy({ ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) }) else { break }
            var size: Int64
            var formatFlags: UInt8 = 0
            switch version {
            case 2: size = Int64(h[3]) << 16 | Int64(h[4]) << 8 | Int64(h[5])
            case 3:
                size = Int64(h[4]) << 24 | Int64(h[5]) << 16 | Int64(h[6]) << 8 | Int64(h[7])
                formatFlags = h[9]
            default:
                size = Int64(syncsafe(UInt32(h[4]) << 24 | UInt32(h[5]) << 16 | UInt32(h[6]) << 8 | UInt32(h[7])))
                formatFlags = h[9]
            }
            let bodyStart = cursor + Int64(headerLength)
            guard size > 0, bodyStart + size <= end else { break }
            cursor = bodyStart + size
            // v2.3: 0x80 compressed, 0x40 encrypted, 0x20 grouping. v2.4: 0x08 compressed, 0x04 encrypted,
            // 0x40 grouping, 0x02 unsynchronised, 0x01 data length indicator.
            let compressed = version == 3 ? formatFlags & 0xC0 != 0 : version == 4 && formatFlags & 0x0C != 0
            if compressed { continue }
            var skip: Int64 = 0
            if version == 3, formatFlags & 0x20 != 0 { skip += 1 }
            if version == 4, formatFlags & 0x40 != 0 { skip += 1 }
            if version == 4, formatFlags & 0x01 != 0 { skip += 4 }
            let frameUnsync = (version == 4 && formatFlags & 0x02 != 0) || (version == 4 && tagUnsync)
            guard skip < size else { continue }
            let dataStart = bodyStart + skip, dataLength = size - skip
            if id == "APIC" || id == "PIC" {
                guard picture == nil || !(picture?.front ?? true) else { continue }
                // Read the small head of the frame (encoding, MIME or format, type, description) only.
                guard let head = try file.bytes(at: dataStart, count: Int(min(dataLength, 1024))) else { continue }
                let headBytes = frameUnsync ? resync(head) : Array(head)
                if let (mime, type, dataOffset) = pictureHeader(headBytes, v22: id == "PIC"),
                   dataOffset < Int(dataLength) {
                    let location: PictureLocation
                    if frameUnsync {
                        location = PictureLocation(offset: dataStart, length: dataLength, mimeType: mime,
                                                   storage: .unsynchronised)
                    } else {
                        location = PictureLocation(offset: dataStart + Int64(dataOffset),
                                                   length: dataLength - Int64(dataOffset), mimeType: mime, storage: .plain)
                    }
                    if picture == nil || type == 3 {
                        picture = (location, type == 3)
                        tags.embeddedPictureBytes = Int(location.length)
                    }
                }
                continue
            }
            guard isWanted(id), dataLength <= 1 << 20,
                  let raw = try file.bytes(at: dataStart, count: Int(dataLength)) else { continue }
            apply(id: id, body: frameUnsync ? resync(raw) : Array(raw), into: &tags)
        }
        return picture
    }

    /// Frames of a resynchronised whole-tag copy (ID3v2.2/2.3 with the tag's unsynchronisation flag).
    private static func parseFrames(
        _ body: [UInt8], version: Int, extended: Bool, into tags: inout TrackTags
    ) -> (mime: String, front: Bool)? {
        var cursor = 0
        if extended, version == 3, body.count >= 4 {
            cursor = 4 + Int(UInt32(body[0]) << 24 | UInt32(body[1]) << 16 | UInt32(body[2]) << 8 | UInt32(body[3]))
        }
        let idLength = version == 2 ? 3 : 4, headerLength = version == 2 ? 6 : 10
        var picture: (mime: String, front: Bool)?
        while cursor + headerLength <= body.count, body[cursor] != 0 {
            let h = body[cursor..<cursor + headerLength].map { $0 }
            let id = String(decoding: h[0..<idLength], as: UTF8.self)
            guard id.utf8.allSatisfy({ ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) }) else { break }
            let size = version == 2 ? Int(h[3]) << 16 | Int(h[4]) << 8 | Int(h[5])
                : Int(h[4]) << 24 | Int(h[5]) << 16 | Int(h[6]) << 8 | Int(h[7])
            let start = cursor + headerLength
            guard size > 0, size <= body.count - start else { break }
            cursor = start + size
            let frameBody = Array(body[start..<start + size])
            if version == 3, h[9] & 0xC0 != 0 { continue }
            if id == "APIC" || id == "PIC" {
                if let (mime, type, dataOffset) = pictureHeader(frameBody, v22: id == "PIC"), dataOffset < size,
                   picture == nil || type == 3 {
                    picture = (mime, type == 3)
                    tags.embeddedPictureBytes = size - dataOffset
                }
                continue
            }
            if isWanted(id) { apply(id: id, body: frameBody, into: &tags) }
        }
        return picture
    }

    /// `APIC`/`PIC` head: (MIME type, picture type, offset of the image data).
    static func pictureHeader(_ body: [UInt8], v22: Bool) -> (String, UInt8, Int)? {
        guard body.count >= 4 else { return nil }
        let encoding = body[0]
        var cursor = 1
        var mime: String
        if v22 {
            let format = String(decoding: body[1..<4], as: UTF8.self).uppercased()
            mime = format == "PNG" ? "image/png" : "image/jpeg"
            cursor = 4
        } else {
            guard let end = body[1...].firstIndex(of: 0) else { return nil }
            mime = String(decoding: body[1..<end], as: UTF8.self).lowercased()
            cursor = end + 1
        }
        if mime.isEmpty || mime == "image/jpg" { mime = "image/jpeg" }
        if !mime.contains("/") { mime = "image/" + mime }
        guard cursor < body.count else { return nil }
        let type = body[cursor]
        cursor += 1
        guard let descriptionEnd = terminator(body, from: cursor, encoding: encoding) else { return nil }
        return (mime, type, descriptionEnd)
    }

    private static let wanted: Set<String> = [
        "TIT2", "TPE1", "TPE2", "TALB", "TRCK", "TPOS", "TDRC", "TYER", "TCON", "TCOM", "TBPM", "TXXX", "UFID",
        "TT2", "TP1", "TP2", "TAL", "TRK", "TPA", "TYE", "TCO", "TCM", "TBP", "TXX", "UFI",
    ]

    /// Picard's `TXXX` descriptions (upper-cased) for the MusicBrainz ids besides the recording's (`UFID`).
    static let musicBrainzKeys: [String: String] = [
        "MUSICBRAINZ ALBUM ID": "MUSICBRAINZ_ALBUMID", "MUSICBRAINZ ARTIST ID": "MUSICBRAINZ_ARTISTID",
        "MUSICBRAINZ ALBUM ARTIST ID": "MUSICBRAINZ_ALBUMARTISTID",
        "MUSICBRAINZ RELEASE TRACK ID": "MUSICBRAINZ_RELEASETRACKID",
    ]

    private static func isWanted(_ id: String) -> Bool { wanted.contains(id) }

    /// Applies one text frame (`TXXX` by its description) to `tags`.
    static func apply(id: String, body: [UInt8], into tags: inout TrackTags) {
        guard let encoding = body.first else { return }
        if id == "UFID" || id == "UFI" {
            let owner = Array("http://musicbrainz.org".utf8) + [0]
            if body.starts(with: owner) {
                tags.apply(key: "MUSICBRAINZ_TRACKID", value: String(decoding: body[owner.count...], as: UTF8.self))
            }
            return
        }
        if id == "TXXX" || id == "TXX" {
            guard let descriptionEnd = terminator(body, from: 1, encoding: encoding) else { return }
            let terminatorLength = encoding == 1 || encoding == 2 ? 2 : 1
            let description = decode(body[1..<(descriptionEnd - terminatorLength)], encoding: encoding).uppercased()
            let value = firstValue(decode(body[descriptionEnd...], encoding: encoding))
            guard !value.isEmpty else { return }
            switch description {
            case "REPLAYGAIN_TRACK_GAIN", "REPLAYGAIN_TRACK_PEAK", "REPLAYGAIN_ALBUM_GAIN", "REPLAYGAIN_ALBUM_PEAK",
                 "BPM", "ALBUMARTIST", "ALBUM ARTIST":
                tags.apply(key: description, value: value)
            default:
                if let key = musicBrainzKeys[description] { tags.apply(key: key, value: value) }
            }
            return
        }
        let value = firstValue(decode(body[1...], encoding: encoding))
        guard !value.isEmpty else { return }
        switch id {
        case "TIT2", "TT2": tags.apply(key: "TITLE", value: value)
        case "TPE1", "TP1": tags.apply(key: "ARTIST", value: value)
        case "TPE2", "TP2": tags.apply(key: "ALBUMARTIST", value: value)
        case "TALB", "TAL": tags.apply(key: "ALBUM", value: value)
        case "TRCK", "TRK": tags.apply(key: "TRACKNUMBER", value: value)
        case "TPOS", "TPA": tags.apply(key: "DISCNUMBER", value: value)
        case "TDRC", "TYER", "TYE": tags.apply(key: "DATE", value: value)
        case "TCON", "TCO": tags.apply(key: "GENRE", value: genre(value))
        case "TCOM", "TCM": tags.apply(key: "COMPOSER", value: value)
        case "TBPM", "TBP": tags.apply(key: "BPM", value: value)
        default: break
        }
    }

    /// "(17)Rock" → "Rock"; "(17)" → "Rock"; "17" → "Rock"; anything else unchanged.
    static func genre(_ value: String) -> String {
        var text = Substring(value)
        if text.hasPrefix("("), let close = text.firstIndex(of: ")") {
            let number = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty { return TagText.clean(String(rest)) }
            text = number
        }
        if let index = Int(text), ID3v1.genres.indices.contains(index) { return ID3v1.genres[index] }
        return value
    }

    /// ID3v2.4 separates several values with NUL; the first one is the field's value.
    private static func firstValue(_ text: String) -> String {
        TagText.clean(String(text.split(separator: "\0", omittingEmptySubsequences: true).first ?? ""))
    }

    /// Decodes text in an ID3v2 encoding: 0 ISO-8859-1, 1 UTF-16 with BOM, 2 UTF-16BE, 3 UTF-8.
    static func decode(_ bytes: ArraySlice<UInt8>, encoding: UInt8) -> String {
        switch encoding {
        case 0: return String(decoding: bytes.map { UInt16($0) }, as: UTF16.self)
        case 1, 2:
            var units: [UInt16] = []
            units.reserveCapacity(bytes.count / 2)
            var littleEndian = false
            var index = bytes.startIndex
            while index + 1 < bytes.endIndex {
                let a = bytes[index], b = bytes[index + 1]
                index += 2
                if a == 0xFF, b == 0xFE { littleEndian = true; continue }
                if a == 0xFE, b == 0xFF { littleEndian = false; continue }
                units.append(littleEndian ? UInt16(b) << 8 | UInt16(a) : UInt16(a) << 8 | UInt16(b))
            }
            return String(decoding: units, as: UTF16.self)
        default: return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// The index after the NUL terminator (two zero bytes, aligned, for UTF-16) that ends a string at `from`.
    static func terminator(_ body: [UInt8], from: Int, encoding: UInt8) -> Int? {
        guard from <= body.count else { return nil }
        if encoding == 1 || encoding == 2 {
            var index = from
            while index + 1 < body.count {
                if body[index] == 0, body[index + 1] == 0 { return index + 2 }
                index += 2
            }
            return nil
        }
        guard let zero = body[from...].firstIndex(of: 0) else { return nil }
        return zero + 1
    }

    /// Undoes unsynchronisation: 0xFF 0x00 → 0xFF.
    static func resync(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var previousFF = false
        for byte in bytes {
            if previousFF, byte == 0 { previousFF = false; continue }
            out.append(byte)
            previousFF = byte == 0xFF
        }
        return out
    }

    static func syncsafe(_ value: UInt32) -> UInt32 {
        (value & 0x7F) | (value >> 8 & 0x7F) << 7 | (value >> 16 & 0x7F) << 14 | (value >> 24 & 0x7F) << 21
    }
}

/// The ID3v1 tag (the last 128 bytes of an MP3): a fallback for fields ID3v2 and APEv2 did not set.
///
/// Stateless; callable from any thread.
enum ID3v1 {
    static func read(_ file: inout FileWindow, at offset: Int64, into tags: inout TrackTags) throws(DecoderError) {
        guard let raw = try file.bytes(at: offset, count: 128) else { return }
        let tag = Array(raw)
        func text(_ range: Range<Int>) -> String {
            let field = tag[range].prefix { $0 != 0 }
            return TagText.clean(String(decoding: field.map { UInt16($0) }, as: UTF16.self))
        }
        let fields = [("TITLE", text(3..<33)), ("ARTIST", text(33..<63)), ("ALBUM", text(63..<93)), ("DATE", text(93..<97))]
        for (key, value) in fields where !value.isEmpty { tags.apply(key: key, value: value) }
        if tag[125] == 0, tag[126] != 0 { tags.apply(key: "TRACKNUMBER", value: String(tag[126])) }
        if genres.indices.contains(Int(tag[127])) { tags.apply(key: "GENRE", value: genres[Int(tag[127])]) }
    }

    /// The ID3v1 genre list (0–79, with Winamp's extension to 125 left out).
    static let genres = [
        "Blues", "Classic Rock", "Country", "Dance", "Disco", "Funk", "Grunge", "Hip-Hop", "Jazz", "Metal",
        "New Age", "Oldies", "Other", "Pop", "R&B", "Rap", "Reggae", "Rock", "Techno", "Industrial",
        "Alternative", "Ska", "Death Metal", "Pranks", "Soundtrack", "Euro-Techno", "Ambient", "Trip-Hop", "Vocal",
        "Jazz+Funk", "Fusion", "Trance", "Classical", "Instrumental", "Acid", "House", "Game", "Sound Clip", "Gospel",
        "Noise", "AlternRock", "Bass", "Soul", "Punk", "Space", "Meditative", "Instrumental Pop", "Instrumental Rock",
        "Ethnic", "Gothic", "Darkwave", "Techno-Industrial", "Electronic", "Pop-Folk", "Eurodance", "Dream",
        "Southern Rock", "Comedy", "Cult", "Gangsta", "Top 40", "Christian Rap", "Pop/Funk", "Jungle",
        "Native American", "Cabaret", "New Wave", "Psychadelic", "Rave", "Showtunes", "Trailer", "Lo-Fi", "Tribal",
        "Acid Punk", "Acid Jazz", "Polka", "Retro", "Musical", "Rock & Roll", "Hard Rock",
    ]
}

/// The APEv2 tag some MP3s carry at the end (foobar2000, mp3gain): text items by key, like Vorbis comments.
///
/// Stateless; callable from any thread.
enum APEv2 {
    static func read(
        _ file: inout FileWindow, at offset: Int64, size: Int64, items: Int, into tags: inout TrackTags
    ) throws(DecoderError) {
        guard size <= 1 << 20, let raw = try file.bytes(at: offset, count: Int(size)) else { return }
        let body = Array(raw)
        var cursor = 0
        for _ in 0..<min(items, 10_000) {
            guard cursor + 8 <= body.count else { return }
            let length = Int(le32(body, cursor)), flags = le32(body, cursor + 4)
            guard let keyEnd = body[(cursor + 8)...].firstIndex(of: 0), length <= body.count - keyEnd - 1 else { return }
            let key = String(decoding: body[(cursor + 8)..<keyEnd], as: UTF8.self).uppercased()
            let value = body[(keyEnd + 1)..<(keyEnd + 1 + length)]
            cursor = keyEnd + 1 + length
            guard flags & 0x6 == 0 else { continue }  // binary or external items
            let text = TagText.clean(String(String(decoding: value, as: UTF8.self).split(separator: "\0").first ?? ""))
            guard !text.isEmpty else { continue }
            tags.apply(key: key == "TRACK" ? "TRACKNUMBER" : key == "YEAR" ? "DATE" : key == "DISC" ? "DISCNUMBER" : key,
                       value: text)
        }
    }
}
