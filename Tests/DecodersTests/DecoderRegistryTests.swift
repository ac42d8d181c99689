import AudioCore
@testable import Decoders
import Foundation
import TestSupport
import Testing

@Suite("Decoder registry")
struct DecoderRegistryTests {
    @Test("content decides, not the extension")
    func sniffsContent() throws {
        let dir = try TemporaryDirectory()
        let samples = TestSignal.sweep(frames: 3_000, channels: 2, bits: 16)
        let flacNamedWav = dir.file("really-flac.wav")
        try FLACFixture.write(path: flacNamedWav, samples: samples, channels: 2, bitsPerSample: 16, sampleRate: 44100)
        let wavNamedFlac = dir.file("really-wav.flac")
        try WAVFixture.write(path: wavNamedFlac, samples: samples, channels: 2, sampleRate: 44100, kind: .pcm16)
        let flac = try DecoderRegistry.open(path: flacNamedWav)
        #expect(flac is FLACDecoder)
        #expect(try Decode.ints(flac) == samples)
        let wav = try DecoderRegistry.open(path: wavNamedFlac)
        #expect(wav is WAVDecoder)
        #expect(try Decode.ints(wav) == samples)
        #expect(try DecoderRegistry.formatName(path: flacNamedWav) == "FLAC")
        #expect(try DecoderRegistry.formatName(path: wavNamedFlac) == "WAV")
    }

    @Test("names and extensions")
    func lists() {
        #expect(DecoderRegistry.decoderNames == ["FLAC", "Ogg Vorbis", "WAV", "Opus", "AAC/ALAC (MP4)", "MP3"])
        for ext in ["flac", "ogg", "wav", "mp3", "m4a", "m4b", "mp4", "aac", "opus"] {
            #expect(DecoderRegistry.supportedExtensions.contains(ext))
        }
        #expect(!DecoderRegistry.supportedExtensions.contains("wma"))
        #expect(DecoderRegistry.scannedExtensions.contains("wma"), "the scan names unplayable files instead of skipping them")
    }

    @Test("missing, empty and unknown files")
    func errors() throws {
        let dir = try TemporaryDirectory()
        let missing = dir.file("missing.flac")
        #expect { try DecoderRegistry.open(path: missing) } throws: { ($0 as? DecoderError)?.kind == "unreadable" }
        let empty = dir.file("empty.ogg")
        try Data().write(to: URL(fileURLWithPath: empty))
        #expect(throws: DecoderError.corrupt(path: empty, reason: "empty file")) {
            try DecoderRegistry.open(path: empty)
        }
        let text = dir.file("tune.flac")
        try Data("not audio at all\n".utf8).write(to: URL(fileURLWithPath: text))
        #expect(throws: DecoderError.unsupported(path: text, reason: "not FLAC, Ogg Vorbis, Opus, MP3, MP4/AAC or WAV content")) {
            try DecoderRegistry.open(path: text)
        }
        // An MPEG frame header with nothing decodable behind it is damaged MP3, not an unknown format.
        let mp3 = dir.file("tune.mp3")
        try Data([0xFF, 0xFB, 0x90, 0x64] + [UInt8](repeating: 0, count: 400)).write(to: URL(fileURLWithPath: mp3))
        #expect { try DecoderRegistry.open(path: mp3) } throws: { ($0 as? DecoderError)?.kind == "corrupt" }
        let wma = dir.file("tune.wma")
        try Data([0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11] + [UInt8](repeating: 7, count: 100))
            .write(to: URL(fileURLWithPath: wma))
        #expect { try DecoderRegistry.open(path: wma) } throws: {
            ($0 as? DecoderError)?.description.contains("WMA is not a format Fermata plays") ?? false
        }
    }
}
