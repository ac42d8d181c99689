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
        #expect(DecoderRegistry.decoderNames == ["FLAC", "Ogg Vorbis", "WAV"])
        for ext in ["flac", "ogg", "wav"] { #expect(DecoderRegistry.supportedExtensions.contains(ext)) }
        #expect(!DecoderRegistry.supportedExtensions.contains("mp3"))
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
        let mp3 = dir.file("tune.flac")
        try Data([0xFF, 0xFB, 0x90, 0x64] + [UInt8](repeating: 0, count: 400)).write(to: URL(fileURLWithPath: mp3))
        #expect(throws: DecoderError.unsupported(path: mp3, reason: "not FLAC, Ogg Vorbis or WAV content")) {
            try DecoderRegistry.open(path: mp3)
        }
    }
}
