import Decoders
import Foundation
import TestSupport
import Testing

@Suite("Scan reader and audio identity")
struct ScanReaderTests {
    static func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        try process.run()
        process.reap()
        guard process.reapedTerminationStatus == 0 else { throw POSIXError(.EIO) }
    }

    static let tags = ["ARTIST": "A", "ALBUM": "B", "TITLE": "C", "TRACKNUMBER": "4", "GENRE": "Jazz",
                       "REPLAYGAIN_ALBUM_GAIN": "-2 dB", "BPM": "90.5"]

    @Test("the scan reader gives TagReader's tags for FLAC, WAV and Ogg Vorbis")
    func sameTagsAsTagReader() throws {
        let dir = try TemporaryDirectory()
        let samples = TestSignal.sweep(frames: 4_000, channels: 2, bits: 16, sampleRate: 8_000, seed: 3)
        try FLACFixture.write(path: dir.file("a.flac"), samples: samples, channels: 2, bitsPerSample: 16,
                              sampleRate: 8_000, tags: Self.tags, pictureBytes: 70_000)
        try WAVFixture.write(path: dir.file("a.wav"), samples: samples, channels: 2, sampleRate: 8_000, kind: .pcm16,
                             infoTags: ["IART": "A", "INAM": "C"])
        try VorbisFixture.write(path: dir.file("a.ogg"), wavPath: dir.file("a.wav"), tags: Self.tags)
        let reader = ScanReader()
        for name in ["a.flac", "a.wav", "a.ogg"] {
            let path = dir.file(name)
            let scanned = try reader.read(path: path)
            let tags = try TagReader.read(path: path)
            #expect(scanned.tags == tags, "\(name)")
            #expect(scanned.fingerprint == (try AudioIdentity.fingerprint(path: path, tags: tags)))
        }
        let flac = try reader.read(path: dir.file("a.flac"))
        #expect(flac.pictureBytes == 70_000)
        #expect(flac.pictureHash == PictureHash.hash(path: dir.file("a.flac"), codec: "flac")?.hash)
        #expect(flac.tags.bpm == 90.5 && flac.tags.replayGain.albumGain == -2)
    }

    @Test("fingerprints survive re-tagging and differ between recordings")
    func fingerprints() throws {
        let dir = try TemporaryDirectory()
        let reader = ScanReader()
        let one = TestSignal.sweep(frames: 20_000, channels: 1, bits: 16, sampleRate: 8_000, seed: 1)
        let two = TestSignal.sweep(frames: 20_000, channels: 1, bits: 16, sampleRate: 8_000, seed: 2)
        for (name, samples, tags) in [("1.flac", one, ["TITLE": "x"]), ("1b.flac", one, ["TITLE": "longer tags",
                                      "COMMENT": String(repeating: "z", count: 5_000)]), ("2.flac", two, [:])] {
            try FLACFixture.write(path: dir.file(name), samples: samples, channels: 1, bitsPerSample: 16,
                                  sampleRate: 8_000, tags: tags)
        }
        func fingerprint(_ name: String) throws -> String { try reader.read(path: dir.file(name)).fingerprint }
        #expect(try fingerprint("1.flac") == fingerprint("1b.flac"))
        #expect(try fingerprint("1.flac") != fingerprint("2.flac"))

        try WAVFixture.write(path: dir.file("1.wav"), samples: one, channels: 1, sampleRate: 8_000, kind: .pcm16)
        try WAVFixture.write(path: dir.file("1b.wav"), samples: one, channels: 1, sampleRate: 8_000, kind: .pcm16,
                             infoTags: ["INAM": "tagged"], junkBytes: 33)
        try WAVFixture.write(path: dir.file("2.wav"), samples: two, channels: 1, sampleRate: 8_000, kind: .pcm16)
        #expect(try fingerprint("1.wav") == fingerprint("1b.wav"))
        #expect(try fingerprint("1.wav") != fingerprint("2.wav"))

        try VorbisFixture.write(path: dir.file("1.ogg"), wavPath: dir.file("1.wav"), tags: ["TITLE": "x"], serial: 5)
        let before = try fingerprint("1.ogg")
        let comment = "COMMENT=" + String(repeating: "y", count: 9_000)
        try Self.run("/usr/bin/vorbiscomment", ["-w", "-t", "TITLE=a much longer title", "-t", comment,
                                                dir.file("1.ogg")])
        #expect(try reader.read(path: dir.file("1.ogg")).tags.title == "a much longer title")
        #expect(try fingerprint("1.ogg") == before)
        try VorbisFixture.write(path: dir.file("2.ogg"), wavPath: dir.file("2.wav"), serial: 5)
        #expect(try fingerprint("2.ogg") != before)
    }

    @Test("content hashing does not depend on how the bytes are split")
    func hasherChunking() {
        let bytes = (0..<1_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        var whole = ContentHasher()
        whole.update(bytes)
        var pieces = ContentHasher()
        var offset = 0
        for size in [1, 3, 8, 13, 64, 5, 906] {
            pieces.update(Array(bytes[offset..<offset + size]))
            offset += size
        }
        #expect(whole.finalize() == pieces.finalize())
        var other = ContentHasher()
        other.update(Array(bytes.dropLast()))
        #expect(other.finalize() != whole.finalize())
    }
}
