@testable import Decoders
import Foundation
import TestSupport
import Testing

/// `readpicture`'s source: the embedded picture of MP3 (APIC, ID3v2.3 and an unsynchronised 2.4 frame), MP4 (`covr`)
/// and Opus (`METADATA_BLOCK_PICTURE`), read back slice by slice exactly as the tagger stored it.
@Suite(.serialized) struct EmbeddedPictureTests {
    static let image: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ ($0 >> 8)) }

    /// Reads the whole picture in `binarylimit`-sized slices, as a client does.
    static func readAll(_ path: String, limit: Int = 8_192) -> (mime: String, bytes: [UInt8])? {
        var bytes: [UInt8] = []
        var mime = ""
        while true {
            guard let slice = EmbeddedPicture.read(path: path, offset: bytes.count, maxLength: limit) else { return nil }
            mime = slice.mimeType
            bytes += slice.bytes
            if bytes.count >= slice.totalSize || slice.bytes.isEmpty { return (mime, bytes) }
        }
    }

    @Test(arguments: ["mp3-v3", "mp3-v4-unsync", "m4a", "opus"])
    func pictureReadsBackExactly(kind: String) throws {
        let dir = try TemporaryDirectory()
        let wav = dir.file("s.wav")
        try WAVFixture.write(path: wav, samples: TestSignal.sweep(frames: 22_050, channels: 2, bits: 16), channels: 2,
                             sampleRate: 44_100, kind: .pcm16)
        let imagePath = dir.file("cover.jpg")
        try Data(Self.image).write(to: URL(fileURLWithPath: imagePath))
        let path: String
        switch kind {
        case "m4a":
            path = dir.file("t.m4a")
            try LossyFixture.encode(.aac, wav: wav, to: path)
            try LossyFixture.run("/usr/bin/python3", ["-c", """
                import sys, mutagen.mp4
                f = mutagen.mp4.MP4(sys.argv[1])
                f['covr'] = [mutagen.mp4.MP4Cover(open(sys.argv[2], 'rb').read(), mutagen.mp4.MP4Cover.FORMAT_JPEG)]
                f.save()
                """, path, imagePath])
        case "opus":
            path = dir.file("t.opus")
            try LossyFixture.run("/usr/bin/opusenc", ["--quiet", "--picture", "3||||" + imagePath, wav, path])
        default:
            path = dir.file("t.mp3")
            try LossyFixture.encode(.mp3, wav: wav, to: path)
            // mutagen writes ID3v2.4 frames without unsynchronisation; the 2.4 case sets the frame's flag and
            // unsynchronises its body by hand, as some taggers do.
            try LossyFixture.run("/usr/bin/python3", ["-c", """
                import sys
                from mutagen.id3 import ID3, APIC
                t = ID3(); t.add(APIC(encoding=0, mime='image/jpeg', type=3, desc='', data=open(sys.argv[2], 'rb').read()))
                t.save(sys.argv[1], v2_version=3 if sys.argv[3] == 'mp3-v3' else 4)
                """, path, imagePath, kind])
            if kind == "mp3-v4-unsync" { try Self.unsynchroniseFirstFrame(path) }
        }
        let picture = try #require(Self.readAll(path))
        #expect(picture.mime == "image/jpeg")
        #expect(picture.bytes == Self.image)
        #expect(EmbeddedPicture.read(path: path, offset: Self.image.count + 1, maxLength: 10) == nil)
    }

    /// Rewrites the first ID3v2.4 frame with the unsynchronisation flag and its body unsynchronised.
    static func unsynchroniseFirstFrame(_ path: String) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func syncsafe(_ at: Int) -> Int { Int(bytes[at]) << 21 | Int(bytes[at + 1]) << 14 | Int(bytes[at + 2]) << 7 | Int(bytes[at + 3]) }
        func encode(_ n: Int) -> [UInt8] { [UInt8(n >> 21 & 0x7F), UInt8(n >> 14 & 0x7F), UInt8(n >> 7 & 0x7F), UInt8(n & 0x7F)] }
        let tagSize = syncsafe(6), frameSize = syncsafe(14)
        let body = Array(bytes[20..<(20 + frameSize)])
        var unsynced: [UInt8] = []
        for (index, byte) in body.enumerated() {
            unsynced.append(byte)
            let next = index + 1 < body.count ? body[index + 1] : 0
            if byte == 0xFF, next & 0xE0 == 0xE0 || next == 0 { unsynced.append(0) }
        }
        let grown = unsynced.count - frameSize
        bytes.replaceSubrange(20..<(20 + frameSize), with: unsynced)
        bytes.replaceSubrange(14..<18, with: encode(unsynced.count))
        bytes[19] |= 0x02
        bytes.replaceSubrange(6..<10, with: encode(tagSize + grown))
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}
