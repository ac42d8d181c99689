/// What a stream's body holds, told from its first bytes and its `Content-Type` (the bytes win: servers mislabel).
public enum StreamFormat: String, Sendable, Equatable {
    case mp3 = "MP3"
    case aac = "AAC (ADTS)"
    case oggVorbis = "Ogg Vorbis"
    case oggOpus = "Ogg Opus"
    case oggFLAC = "Ogg FLAC"
    case flac = "FLAC"
    /// A playlist naming streams (m3u, m3u8, pls, xspf).
    case playlist = "playlist"

    /// Bytes looked at before giving up on recognising a body.
    static let sniffLength = 16_384

    /// The format of a body starting with `head`, or nil when it is none Fermata plays.
    static func sniff(_ head: [UInt8], contentType: String?) -> StreamFormat? {
        if head.starts(with: Array("OggS".utf8)) {
            if head.firstRange(of: Array("\u{1}vorbis".utf8)) != nil { return .oggVorbis }
            if head.firstRange(of: Array("OpusHead".utf8)) != nil { return .oggOpus }
            if head.firstRange(of: Array("\u{7F}FLAC".utf8)) != nil { return .oggFLAC }
            return nil
        }
        if head.starts(with: Array("fLaC".utf8)) { return .flac }
        if RemotePlaylist.Kind(contentType: contentType, head: head) != nil { return .playlist }
        let audio = skippingID3(head)
        // The first frame sync decides (a stream joined mid-way starts anywhere; a frame is at most ~1.4 KB).
        var index = audio.startIndex
        while index + 3 < audio.endIndex {
            if audio[index] == 0xFF, audio[index + 1] & 0xE0 == 0xE0 {
                let second = audio[index + 1]
                if second & 0xF6 == 0xF0, audio[index + 2] & 0x3C != 0x3C { return .aac }  // layer bits 00: ADTS
                if MPEGHeader(audio[index..<index + 4]) != nil, nextFrameFollows(audio, at: index) { return .mp3 }
            }
            index += 1
        }
        return nil
    }

    /// The bytes after any ID3v2 tags at the start.
    private static func skippingID3(_ head: [UInt8]) -> ArraySlice<UInt8> {
        var rest = head[...]
        while rest.count >= 10, rest.starts(with: Array("ID3".utf8)),
              rest[rest.startIndex + 6] < 0x80, rest[rest.startIndex + 7] < 0x80,
              rest[rest.startIndex + 8] < 0x80, rest[rest.startIndex + 9] < 0x80 {
            let s = rest.startIndex
            let size = Int(rest[s + 6]) << 21 | Int(rest[s + 7]) << 14 | Int(rest[s + 8]) << 7 | Int(rest[s + 9])
            let skip = 10 + size + (rest[s + 5] & 0x10 != 0 ? 10 : 0)
            guard skip < rest.count else { return [] }
            rest = rest.dropFirst(skip)
        }
        return rest
    }

    /// Whether another valid MPEG header starts where the frame at `index` ends (or the bytes end first).
    private static func nextFrameFollows(_ bytes: ArraySlice<UInt8>, at index: Int) -> Bool {
        guard let header = MPEGHeader(bytes[index..<index + 4]) else { return false }
        let next = index + header.frameLength
        guard next + 4 <= bytes.endIndex else { return true }
        return MPEGHeader(bytes[next..<next + 4]) != nil
    }
}

/// The fields of an MPEG audio frame header (layers I–III, MPEG 1, 2 and 2.5) needed to find the next frame.
struct MPEGHeader {
    let frameLength: Int

    init?(_ bytes: ArraySlice<UInt8>) {
        let b = Array(bytes)
        guard b.count >= 4, b[0] == 0xFF, b[1] & 0xE0 == 0xE0 else { return nil }
        let version = (b[1] >> 3) & 3  // 0: 2.5, 2: 2, 3: 1
        let layer = (b[1] >> 1) & 3    // 1: III, 2: II, 3: I
        let bitrateIndex = Int(b[2] >> 4), rateIndex = Int((b[2] >> 2) & 3), padding = Int((b[2] >> 1) & 1)
        guard version != 1, layer != 0, bitrateIndex != 0, bitrateIndex != 15, rateIndex != 3 else { return nil }
        let rates = [44_100, 48_000, 32_000]
        let rate = rates[rateIndex] >> (version == 3 ? 0 : version == 2 ? 1 : 2)
        let mpeg1 = version == 3
        let kbps: [Int]
        switch (mpeg1, layer) {
        case (true, 3): kbps = [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448]
        case (true, 2): kbps = [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384]
        case (true, _): kbps = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
        case (false, 3): kbps = [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256]
        case (false, _): kbps = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
        }
        let bitrate = kbps[bitrateIndex] * 1000
        if layer == 3 {
            frameLength = (12 * bitrate / rate + padding) * 4
        } else {
            let factor = layer == 1 && !mpeg1 ? 72 : 144
            frameLength = factor * bitrate / rate + padding
        }
        guard frameLength >= 4 else { return nil }
    }
}

/// A byte source whose first bytes were read ahead (to tell the format) and are handed out again first.
///
/// Threads: one stream thread.
final class PeekedSource: StreamByteSource {
    private let source: any StreamByteSource
    private var head: [UInt8]
    private var headStart = 0

    /// Reads up to `length` bytes ahead from `source` (fewer when it ends first).
    init(_ source: any StreamByteSource, length: Int) throws(StreamError) {
        self.source = source
        let scratch = ScratchBytes(count: length)
        var filled = 0
        while filled < length {
            let count = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: scratch.bytes[filled...]))
            if count == 0 { break }
            filled += count
        }
        head = Array(scratch.prefix(filled))
    }

    /// Hands out `head` (bytes already read from `source`), then `source`.
    init(_ source: any StreamByteSource, head: [UInt8]) {
        self.source = source
        self.head = head
    }

    /// The bytes read ahead.
    var peeked: [UInt8] { head }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(StreamError) -> Int {
        if headStart < head.count {
            let count = min(buffer.count, head.count - headStart)
            head.withUnsafeBytes { bytes in
                buffer.baseAddress!.copyMemory(from: bytes.baseAddress! + headStart, byteCount: count)
            }
            headStart += count
            if headStart == head.count { head = [] ; headStart = 0 }
            return count
        }
        return try source.read(into: buffer)
    }
}
