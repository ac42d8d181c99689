import AudioCore
@testable import Decoders
import FermataCore
import Foundation
import TestSupport
import Testing

@Suite("Tag reader")
struct TagReaderTests {
    static let vorbisTags = [
        "TITLE": "Ünïcödé Title", "ARTIST": "An Artist", "album artist": "Various", "Album": "The Album",
        "TRACKNUMBER": "3/12", "DISCNUMBER": "2/2", "DATE": "1999-04-01", "GENRE": "Ambient", "COMPOSER": "Someone",
        "BPM": "121.5", "REPLAYGAIN_TRACK_GAIN": "-6.20 dB", "REPLAYGAIN_TRACK_PEAK": "0.988123",
        "replaygain_album_gain": "+1.50 dB", "REPLAYGAIN_ALBUM_PEAK": "1.000000",
    ]

    static func checkCommonTags(_ tags: TrackTags) {
        #expect(tags.title == "Ünïcödé Title")
        #expect(tags.artist == "An Artist")
        #expect(tags.albumArtist == "Various")
        #expect(tags.album == "The Album")
        #expect(tags.trackNumber == 3)
        #expect(tags.discNumber == 2)
        #expect(tags.date == "1999-04-01")
        #expect(tags.genre == "Ambient")
        #expect(tags.composer == "Someone")
        #expect(tags.bpm == 121.5)
        #expect(tags.replayGain == ReplayGainInfo(trackGain: -6.2, trackPeak: 0.988123, albumGain: 1.5, albumPeak: 1))
    }

    @Test("FLAC: Vorbis comments, ReplayGain, invalid UTF-8, STREAMINFO, MD5, picture size")
    func flac() throws {
        let dir = try TemporaryDirectory()
        let samples = TestSignal.sweep(frames: 88_200, channels: 2, bits: 24, sampleRate: 88200)
        let path = dir.file("tags.flac")
        let invalid: [UInt8] = Array("LABEL=ok".utf8) + [0xFF]
        let badComposer: [UInt8] = Array("COMPOSER=Bad".utf8) + [0xC3, 0x28, 0xFE] + Array("End".utf8)
        var tags = Self.vorbisTags
        tags["COMPOSER"] = nil
        try FLACFixture.write(path: path, samples: samples, channels: 2, bitsPerSample: 24, sampleRate: 88200,
                              tags: tags, rawComments: [invalid, badComposer], pictureBytes: 1_234)
        var read = try TagReader.read(path: path)
        #expect(read.composer == "Bad\u{FFFD}(\u{FFFD}End")
        read.composer = "Someone"
        Self.checkCommonTags(read)
        #expect(read.codec == "flac")
        #expect(read.sampleRate == 88200)
        #expect(read.channels == 2)
        #expect(read.bitsPerSample == 24)
        #expect(read.duration == 1.0)
        #expect(read.embeddedPictureBytes == 1_234)
        let reference = try runTool("/usr/bin/metaflac", ["--show-md5sum", path])
        #expect(read.audioMD5 == reference.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(read.audioMD5?.count == 32)
    }

    @Test("FLAC without tags: fields empty; damaged audio does not matter (no decoding)")
    func flacPlainAndDamagedAudio() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("plain.flac")
        try FLACFixture.write(path: path, samples: TestSignal.sweep(frames: 40_000, channels: 1, bits: 16),
                              channels: 1, bitsPerSample: 16, sampleRate: 44100)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        for offset in stride(from: bytes.count / 2, to: bytes.count - 10, by: 997) { bytes[offset] ^= 0x5A }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(Decode.failure(of: path)?.kind == "corrupt")
        let tags = try TagReader.read(path: path)
        #expect(tags.title == nil && tags.artist == nil && tags.trackNumber == nil)
        #expect(tags.replayGain.isEmpty)
        #expect(tags.embeddedPictureBytes == nil)
        #expect(tags.channels == 1 && tags.bitsPerSample == 16 && tags.sampleRate == 44100)
        #expect(tags.duration == 40_000.0 / 44100)
        #expect(tags.audioMD5 != nil)
    }

    @Test("WAV LIST/INFO chunk and format")
    func wav() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("info.wav")
        try WAVFixture.write(
            path: path, samples: TestSignal.sweep(frames: 24_000, channels: 2, bits: 24, sampleRate: 48000),
            channels: 2, sampleRate: 48000, kind: .pcm24, extensible: true,
            infoTags: ["INAM": "Wave Title", "IART": "Wave Artist", "IPRD": "Wave Album", "ICRD": "2001",
                       "IGNR": "Jazz", "ITRK": "07", "ICMT": "ignored"])
        let tags = try TagReader.read(path: path)
        #expect(tags.codec == "wav")
        #expect(tags.title == "Wave Title")
        #expect(tags.artist == "Wave Artist")
        #expect(tags.album == "Wave Album")
        #expect(tags.date == "2001")
        #expect(tags.genre == "Jazz")
        #expect(tags.trackNumber == 7)
        #expect(tags.sampleRate == 48000 && tags.channels == 2 && tags.bitsPerSample == 24)
        #expect(tags.duration == 0.5)
        #expect(tags.audioMD5 == nil)
    }

    @Test("Ogg Vorbis comments and format")
    func vorbis() throws {
        let dir = try TemporaryDirectory()
        let (path, _) = try VorbisDecoderTests.fixture(frames: 33_075, tags: Self.vorbisTags, in: dir)
        let tags = try TagReader.read(path: path)
        Self.checkCommonTags(tags)
        #expect(tags.codec == "vorbis")
        #expect(tags.sampleRate == 44100 && tags.channels == 2)
        #expect(tags.duration == 0.75)
    }

    @Test("errors match the decoders'")
    func errors() throws {
        let dir = try TemporaryDirectory()
        let text = dir.file("text.ogg")
        try Data("not audio at all".utf8).write(to: URL(fileURLWithPath: text))
        #expect { try TagReader.read(path: text) } throws: { ($0 as? DecoderError)?.kind == "unsupported" }
        #expect { try TagReader.read(path: dir.file("missing.wav")) } throws: {
            ($0 as? DecoderError)?.kind == "unreadable"
        }
        let empty = dir.file("empty.wav")
        try Data().write(to: URL(fileURLWithPath: empty))
        #expect(throws: DecoderError.corrupt(path: empty, reason: "empty file")) { try TagReader.read(path: empty) }
    }

    @Test("value parsing helpers")
    func parsing() {
        #expect(TagText.leadingInteger(" 03/12 ") == 3)
        #expect(TagText.leadingInteger("x3") == nil)
        #expect(TagText.decibels("-6.20 dB") == -6.2)
        #expect(TagText.decibels("+0.5DB") == 0.5)
        #expect(TagText.decibels("loud") == nil)
        #expect(TagText.hex([0x00, 0xAB, 0x7F]) == "00ab7f")
        let text = Array("aGVsbG8gd29ybGQ=".utf8)
        let decoded = text.withUnsafeBufferPointer { TagText.base64Prefix($0, count: 5) }
        #expect(decoded == Array("hello".utf8))
    }
}
