import Glibc

/// Where the MPEG audio of a file sits and what its first frame and Xing/Info/LAME header say: the stream's format,
/// its exact length when a header counts the frames (the scan's duration without decoding), and the tags around it.
///
/// A value type built with a few `pread`s (the ID3v2 tag is skipped by its stated size, never read here); used by the
/// scan, the tag reader and `MP3Decoder` on whichever thread reads the file.
package struct MP3Layout {
    /// Sample rates of MPEG-1, -2 and -2.5, the ones libmpg123 is allowed to output.
    package static let sampleRates = [44_100, 48_000, 32_000, 22_050, 24_000, 16_000, 11_025, 12_000, 8_000]
    /// How far past the ID3v2 tag the first frame may start (junk, padding) before the file is not MPEG audio.
    static let syncSearch = 64 * 1024

    /// Bytes before the audio (ID3v2 tags) and where the audio ends (before APEv2 and ID3v1 tags).
    var audioStart: Int64 = 0
    var audioEnd: Int64 = 0
    var sampleRate = 0
    var channels = 0
    var bitrate = 0
    var samplesPerFrame = 1152
    /// Frames counted by a Xing/Info or VBRI header (the header frame itself excluded), when there is one.
    var frameCount: Int64?
    /// Encoder delay and padding from the LAME tag (samples), when there is one.
    var encoderDelay = 0
    var encoderPadding = 0
    /// The ID3v1 tag at the end of the file (128 bytes), when present.
    var id3v1Offset: Int64?
    /// The APEv2 tag (its body, items only, and the item count), when present.
    var ape: (offset: Int64, size: Int64, items: Int)?

    var hasFrameCount: Bool { frameCount != nil }

    /// Exact samples of audio when the Xing/Info/VBRI header counts the frames (gapless: delay and padding removed,
    /// with libmpg123's conventions); otherwise an estimate from the bit rate.
    var frames: Int64 {
        if let frameCount {
            return max(0, frameCount * Int64(samplesPerFrame) - Int64(encoderDelay) - Int64(encoderPadding))
        }
        guard bitrate > 0 else { return 0 }
        let estimate = Double(audioEnd - audioStart) * 8 * Double(sampleRate) / Double(bitrate)
        return estimate < Double(Int64(1) << 52) ? Int64(estimate) : Int64(1) << 52
    }

    /// Reads the layout of `path`. No MPEG audio frame near the start → `.unsupported`.
    static func read(path: String) throws(DecoderError) -> MP3Layout {
        let fd = try PosixFile.open(path)
        defer { close(fd) }
        let size = try PosixFile.size(fd, path: path)
        guard size > 0 else { throw .corrupt(path: path, reason: "empty file") }
        return try read(fd: fd, size: size, path: path)
    }

    static func read(fd: Int32, size: Int64, path: String) throws(DecoderError) -> MP3Layout {
        var layout = MP3Layout()
        layout.audioStart = try ID3v2.totalLength(fd: fd, size: size, path: path)
        layout.audioEnd = size
        try layout.findTrailingTags(fd: fd, path: path)
        guard layout.audioStart < layout.audioEnd else {
            throw .corrupt(path: path, reason: "tags but no audio (the ID3v2 tag claims \(layout.audioStart) bytes)")
        }
        var window = [UInt8](repeating: 0, count: min(syncSearch, Int(layout.audioEnd - layout.audioStart)))
        let got = try PosixFile.read(fd, into: &window, at: layout.audioStart, path: path)
        window.removeLast(window.count - got)
        guard let (offset, header) = firstFrame(in: window) else {
            throw .unsupported(path: path, reason: "no MPEG audio frame in the first \(window.count / 1024) KiB")
        }
        layout.audioStart += Int64(offset)
        layout.apply(header)
        layout.readInfoHeader(window, frameAt: offset, header: header)
        return layout
    }

    /// One MPEG audio frame header, decoded.
    struct FrameHeader: Equatable {
        var version: Int  // 1, 2, or 25 for 2.5
        var layer: Int
        var bitrate: Int
        var sampleRate: Int
        var channels: Int
        var padding: Int
        var length: Int
        var samples: Int

        /// Decodes four header bytes; nil when they are not a valid header (free format included).
        init?(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) {
            guard b0 == 0xFF, b1 & 0xE0 == 0xE0 else { return nil }
            let versionBits = Int(b1 >> 3) & 3, layerBits = Int(b1 >> 1) & 3
            let bitrateIndex = Int(b2 >> 4), rateIndex = Int(b2 >> 2) & 3
            guard versionBits != 1, layerBits != 0, bitrateIndex != 0, bitrateIndex != 15, rateIndex != 3 else { return nil }
            version = versionBits == 3 ? 1 : versionBits == 2 ? 2 : 25
            layer = 4 - layerBits
            let rates = [[44_100, 48_000, 32_000], [22_050, 24_000, 16_000], [11_025, 12_000, 8_000]]
            sampleRate = rates[version == 1 ? 0 : version == 2 ? 1 : 2][rateIndex]
            let table: [Int]
            switch (version == 1, layer) {
            case (true, 1): table = [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448]
            case (true, 2): table = [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384]
            case (true, _): table = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
            case (false, 1): table = [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256]
            case (false, _): table = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
            }
            bitrate = table[bitrateIndex] * 1000
            padding = Int(b2 >> 1) & 1
            channels = (b3 >> 6) == 3 ? 1 : 2
            switch layer {
            case 1:
                samples = 384
                length = (12 * bitrate / sampleRate + padding) * 4
            case 2:
                samples = 1152
                length = 144 * bitrate / sampleRate + padding
            default:
                samples = version == 1 ? 1152 : 576
                length = (version == 1 ? 144 : 72) * bitrate / sampleRate + padding
            }
        }
    }

    /// The first offset in `bytes` where a frame header is followed by another consistent one (or the window's end),
    /// so a stray 0xFFE in junk or a tag is not taken for audio.
    static func firstFrame(in bytes: [UInt8]) -> (Int, FrameHeader)? {
        var index = 0
        while index + 4 <= bytes.count {
            defer { index += 1 }
            guard bytes[index] == 0xFF, let header = FrameHeader(bytes[index], bytes[index + 1], bytes[index + 2],
                                                                  bytes[index + 3]) else { continue }
            let next = index + header.length
            if next + 4 > bytes.count { return (index, header) }
            if let following = FrameHeader(bytes[next], bytes[next + 1], bytes[next + 2], bytes[next + 3]),
               following.version == header.version, following.layer == header.layer,
               following.sampleRate == header.sampleRate {
                return (index, header)
            }
        }
        return nil
    }

    private mutating func apply(_ header: FrameHeader) {
        sampleRate = header.sampleRate
        channels = header.channels
        bitrate = header.bitrate
        samplesPerFrame = header.samples
    }

    /// Reads a Xing/Info header (with its LAME extension) or a VBRI header from the first frame, when present.
    private mutating func readInfoHeader(_ bytes: [UInt8], frameAt start: Int, header: FrameHeader) {
        let sideInfo = header.version == 1 ? (header.channels == 1 ? 17 : 32) : (header.channels == 1 ? 9 : 17)
        let xing = start + 4 + sideInfo
        func be32(_ at: Int) -> Int64? {
            guard at >= 0, at + 4 <= bytes.count else { return nil }
            return Int64(bytes[at]) << 24 | Int64(bytes[at + 1]) << 16 | Int64(bytes[at + 2]) << 8 | Int64(bytes[at + 3])
        }
        if xing + 8 <= bytes.count,
           bytes[xing..<xing + 4].elementsEqual("Xing".utf8) || bytes[xing..<xing + 4].elementsEqual("Info".utf8),
           let flags = be32(xing + 4) {
            var cursor = xing + 8
            if flags & 1 != 0, let frames = be32(cursor) {
                frameCount = frames
                cursor += 4
            }
            if flags & 2 != 0 { cursor += 4 }
            if flags & 4 != 0 { cursor += 100 }
            if flags & 8 != 0 { cursor += 4 }
            // LAME extension: 9-byte encoder string, then at +21 the 24-bit delay|padding field.
            let lame = cursor
            if lame + 24 <= bytes.count, bytes[lame..<lame + 4].elementsEqual("LAME".utf8)
                || bytes[lame..<lame + 4].elementsEqual("Lavc".utf8) || bytes[lame..<lame + 4].elementsEqual("Lavf".utf8) {
                let field = Int(bytes[lame + 21]) << 16 | Int(bytes[lame + 22]) << 8 | Int(bytes[lame + 23])
                let delay = field >> 12, pad = field & 0xFFF
                // libmpg123 trims the encoder delay plus its own decoder delay (529) at the start and removes the same
                // decoder delay from the padding at the end: the net length is frames × spf − delay − padding.
                encoderDelay = delay
                encoderPadding = pad
            }
            return
        }
        // VBRI (Fraunhofer): always 32 bytes after the 4-byte header.
        let vbri = start + 36
        if vbri + 18 <= bytes.count, bytes[vbri..<vbri + 4].elementsEqual("VBRI".utf8), let frames = be32(vbri + 14) {
            frameCount = frames
        }
    }

    /// Finds an ID3v1 tag (last 128 bytes) and an APEv2 tag (footer before it or at the end), trimming `audioEnd`.
    private mutating func findTrailingTags(fd: Int32, path: String) throws(DecoderError) {
        if audioEnd - audioStart >= 128 {
            var tag = [UInt8](repeating: 0, count: 3)
            if try PosixFile.read(fd, into: &tag, at: audioEnd - 128, path: path) == 3, tag == Array("TAG".utf8) {
                id3v1Offset = audioEnd - 128
                audioEnd -= 128
            }
        }
        if audioEnd - audioStart >= 32 {
            var footer = [UInt8](repeating: 0, count: 32)
            if try PosixFile.read(fd, into: &footer, at: audioEnd - 32, path: path) == 32,
               footer.prefix(8).elementsEqual("APETAGEX".utf8) {
                let size = Int64(le32(footer, 12)), items = Int(le32(footer, 16)), flags = le32(footer, 20)
                let hasHeader = flags & 0x8000_0000 != 0
                let total = size + (hasHeader ? 32 : 0)
                if size >= 32, total <= audioEnd - audioStart {
                    ape = (audioEnd - size, size - 32, items)
                    audioEnd -= total
                }
            }
        }
    }
}
