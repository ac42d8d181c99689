/// Reads a file's tags and stream properties without decoding its audio.
///
/// Stateless; callable from any thread (a library scanner may run it on its own thread).
public enum TagReader {
    /// The tags of `path`, chosen by content like `DecoderRegistry.open`, with the same errors.
    ///
    /// FLAC: STREAMINFO, VORBIS_COMMENT and the size of the first PICTURE. Ogg Vorbis: the first link's comments and
    /// format. WAV: the `LIST`/`INFO` chunk. Text is decoded as UTF-8 with invalid bytes replaced; for repeated
    /// keys the first value wins.
    public static func read(path: String) throws(DecoderError) -> TrackTags {
        try DecoderRegistry.plugin(for: FileProbe(path: path)).readTags(path)
    }
}

extension TrackTags {
    /// Applies one Vorbis comment (`KEY=value`, key case-insensitive). Unknown keys and entries without `=` are
    /// ignored; a field already set keeps its first value.
    mutating func applyVorbisComment(_ entry: UnsafeBufferPointer<UInt8>) {
        guard let equals = entry.firstIndex(of: UInt8(ascii: "=")) else { return }
        let key = String(decoding: entry[..<equals], as: UTF8.self).uppercased()
        let value = TagText.clean(String(decoding: entry[(equals + 1)...], as: UTF8.self))
        guard !value.isEmpty else { return }
        apply(key: key, value: value)
    }

    /// Sets the field named by an upper-case Vorbis comment key, unless already set.
    mutating func apply(key: String, value: String) {
        switch key {
        case "TITLE": title = title ?? value
        case "ARTIST": artist = artist ?? value
        case "ALBUMARTIST", "ALBUM ARTIST", "ALBUM_ARTIST": albumArtist = albumArtist ?? value
        case "ALBUM": album = album ?? value
        case "TRACKNUMBER": trackNumber = trackNumber ?? TagText.leadingInteger(value)
        case "DISCNUMBER": discNumber = discNumber ?? TagText.leadingInteger(value)
        case "DATE": date = date ?? value
        case "GENRE": genre = genre ?? value
        case "COMPOSER": composer = composer ?? value
        case "BPM": bpm = bpm ?? TagText.number(value, in: TagText.bpmRange)
        case "REPLAYGAIN_TRACK_GAIN": replayGain.trackGain = replayGain.trackGain ?? TagText.decibels(value)
        case "REPLAYGAIN_TRACK_PEAK": replayGain.trackPeak = replayGain.trackPeak ?? TagText.number(value, in: TagText.peakRange)
        case "REPLAYGAIN_ALBUM_GAIN": replayGain.albumGain = replayGain.albumGain ?? TagText.decibels(value)
        case "REPLAYGAIN_ALBUM_PEAK": replayGain.albumPeak = replayGain.albumPeak ?? TagText.number(value, in: TagText.peakRange)
        // Vorbis comments and APE items as Picard writes them; ID3 and MP4 names are mapped to these.
        case "MUSICBRAINZ_TRACKID": musicBrainz.track = musicBrainz.track ?? TagText.identifier(value)
        case "MUSICBRAINZ_ALBUMID": musicBrainz.album = musicBrainz.album ?? TagText.identifier(value)
        case "MUSICBRAINZ_ARTISTID": musicBrainz.artist = musicBrainz.artist ?? TagText.identifier(value)
        case "MUSICBRAINZ_ALBUMARTISTID": musicBrainz.albumArtist = musicBrainz.albumArtist ?? TagText.identifier(value)
        case "MUSICBRAINZ_RELEASETRACKID":
            musicBrainz.releaseTrack = musicBrainz.releaseTrack ?? TagText.identifier(value)
        default: break
        }
    }
}

/// Small text helpers for tag values (no Foundation).
///
/// Stateless; callable from any thread.
enum TagText {
    /// Drops leading and trailing whitespace and NULs.
    static func clean(_ text: String) -> String {
        let isBlank: (Character) -> Bool = { $0.isWhitespace || $0 == "\0" }
        guard let first = text.firstIndex(where: { !isBlank($0) }),
              let last = text.lastIndex(where: { !isBlank($0) }) else { return "" }
        return String(text[first...last])
    }

    /// "3/12" → 3, " 07 " → 7; nil when the value does not start with digits.
    static func leadingInteger(_ text: String) -> Int? {
        let digits = clean(text).prefix { $0.isASCII && $0.isNumber }
        return digits.isEmpty ? nil : Int(digits)
    }

    /// The first of several identifiers ("id1/id2", "id1; id2", NUL-separated), at most 64 characters of
    /// letters, digits and '-' (a MusicBrainz id is a 36-character UUID); nil for anything else.
    static func identifier(_ text: String) -> String? {
        let first = clean(text).split(whereSeparator: { $0 == "/" || $0 == ";" || $0 == "\0" || $0 == " " }).first
        guard let first, first.count <= 64,
              first.unicodeScalars.allSatisfy({ $0.isASCII && (isAlphanumeric($0) || $0 == "-") }) else { return nil }
        return String(first)
    }

    private static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("0"..."9").contains(scalar) || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }

    /// Tempos a file may claim: anything else ("0", "nan", "1e308") is ignored as if untagged.
    static let bpmRange: ClosedRange<Double> = 1...1000
    /// ReplayGain peaks (1.0 is full scale; a little above it is common after lossy encoding).
    static let peakRange: ClosedRange<Double> = 0...100
    /// ReplayGain adjustments in dB; real ones stay within about ±30.
    static let gainRange: ClosedRange<Double> = -100...100

    /// "-6.20 dB" → -6.2; the unit is optional and case-insensitive; nil outside `gainRange` (and for NaN or ±inf).
    static func decibels(_ text: String) -> Double? {
        var value = clean(text)
        if value.lowercased().hasSuffix("db") { value = clean(String(value.dropLast(2))) }
        return number(value, in: gainRange)
    }

    /// The number `text` holds when it lies in `range` (so never NaN or infinite), else nil: a tag is untrusted input.
    static func number(_ text: String, in range: ClosedRange<Double>) -> Double? {
        guard let value = Double(clean(text)), range.contains(value) else { return nil }
        return value
    }

    /// Lower-case hex digits of `bytes`.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The picture-data length inside a FLAC PICTURE block body (the layout METADATA_BLOCK_PICTURE also uses).
    /// `read(offset, count)` returns body bytes or nil; nil when the body is malformed.
    static func pictureDataLength(bodyLength: Int, read: (Int, Int) -> [UInt8]?) -> Int? {
        func be32(_ offset: Int) -> Int? {
            guard offset + 4 <= bodyLength, let bytes = read(offset, 4), bytes.count == 4 else { return nil }
            return Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        }
        guard let mimeLength = be32(4), let descriptionLength = be32(8 + mimeLength) else { return nil }
        let lengthOffset = 8 + mimeLength + 4 + descriptionLength + 16
        guard let dataLength = be32(lengthOffset), lengthOffset + 4 + dataLength <= bodyLength else { return nil }
        return dataLength
    }

    /// Decodes base64 text until `count` bytes are out (or the text ends); stops at the first non-alphabet byte.
    static func base64Prefix(_ text: UnsafeBufferPointer<UInt8>, count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        var accumulator: UInt32 = 0, bits = 0
        for char in text {
            let value: UInt8
            switch char {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = char - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = char - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = char - UInt8(ascii: "0") + 52
            case UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "/"): value = 63
            default: return out
            }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                if out.count >= count { return out }
            }
        }
        return out
    }
}
