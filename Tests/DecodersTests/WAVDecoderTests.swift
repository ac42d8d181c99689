import AudioCore
@testable import Decoders
import Foundation
import TestSupport
import Testing

@Suite("WAV decoder")
struct WAVDecoderTests {
    static let kinds = WAVFixture.Kind.allCases

    /// Expected decoder output for `samples` stored as `kind`.
    static func expectedInts(_ samples: [Int32], kind: WAVFixture.Kind) -> [Int32] {
        TestSignal.leftJustified(samples, bits: kind.bits)
    }

    static func expectedFloats(_ samples: [Int32]) -> [Float] {
        samples.map { Float($0) / 2_147_483_648 }
    }

    @Test("decodes every kind exactly, plain and extensible", arguments: kinds, [false, true])
    func decodes(kind: WAVFixture.Kind, extensible: Bool) throws {
        let dir = try TemporaryDirectory()
        let channels = kind == .pcm8 ? 1 : 2
        let frames = 40_001
        let samples = TestSignal.sweep(frames: frames, channels: channels, bits: kind.sourceBits, sampleRate: 48000)
        let path = dir.file("\(kind).wav")
        try WAVFixture.write(path: path, samples: samples, channels: channels, sampleRate: 48000, kind: kind,
                             extensible: extensible)
        let decoder = try DecoderRegistry.open(path: path)
        #expect(decoder is WAVDecoder)
        #expect(decoder.totalFrames == Int64(frames))
        #expect(decoder.format.sampleRate == 48000)
        #expect(decoder.format.channels == channels)
        if kind.isFloat {
            #expect(decoder.format.encoding == .f32)
            #expect(try Decode.floats(decoder, chunkFrames: 5000) == Self.expectedFloats(samples))
        } else {
            #expect(decoder.format.encoding == (kind.bits <= 16 ? .s16 : .s32))
            #expect(decoder.format.validBits == kind.bits)
            #expect(try Decode.ints(decoder, chunkFrames: 5000) == Self.expectedInts(samples, kind: kind))
        }
    }

    @Test("seeks to any frame", arguments: [WAVFixture.Kind.pcm16, .pcm24, .float64])
    func seeks(kind: WAVFixture.Kind) throws {
        let dir = try TemporaryDirectory()
        let samples = TestSignal.sweep(frames: 30_000, channels: 2, bits: kind.sourceBits)
        let path = dir.file("seek.wav")
        try WAVFixture.write(path: path, samples: samples, channels: 2, sampleRate: 44100, kind: kind)
        let decoder = try WAVDecoder(path: path)
        for target in [29_999, 0, 12_345, 20_000] {
            try decoder.seek(toFrame: Int64(target))
            let range = (target * 2)..<(min(30_000, target + 100) * 2)
            if kind.isFloat {
                #expect(try Decode.floats(decoder, limit: 100) == Array(Self.expectedFloats(samples)[range]))
            } else {
                #expect(try Decode.ints(decoder, limit: 100) == Array(Self.expectedInts(samples, kind: kind)[range]))
            }
        }
        try decoder.seek(toFrame: 30_000)
        #expect(try Decode.count(decoder) == 0)
    }

    @Test("odd-sized chunks are padded: JUNK before fmt, odd 8-bit data, INFO after")
    func oddChunks() throws {
        let dir = try TemporaryDirectory()
        let samples = TestSignal.sweep(frames: 1_001, channels: 1, bits: 8)
        let path = dir.file("odd.wav")
        try WAVFixture.write(path: path, samples: samples, channels: 1, sampleRate: 8000, kind: .pcm8,
                             infoTags: ["INAM": "Odd"], junkBytes: 13)
        let decoder = try WAVDecoder(path: path)
        #expect(decoder.totalFrames == 1_001)
        #expect(try Decode.ints(decoder) == Self.expectedInts(samples, kind: .pcm8))
        #expect(try TagReader.read(path: path).title == "Odd")
    }

    @Test("streaming headers (RIFF and data size 0 or 0xFFFFFFFF) play to the end of the file",
          arguments: [UInt32(0), 0xFFFF_FFFF])
    func streamingHeader(size: UInt32) throws {
        let dir = try TemporaryDirectory()
        let samples = TestSignal.sweep(frames: 5_000, channels: 2, bits: 16)
        var bytes = WAVFixture.bytes(samples: samples, channels: 2, sampleRate: 44100, kind: .pcm16)
        let data = try #require(WAVFixture.chunkOffset("data", in: bytes))
        for offset in [4, data + 4] {
            for byte in 0..<4 { bytes[offset + byte] = UInt8(truncatingIfNeeded: size >> (8 * UInt32(byte))) }
        }
        let path = dir.file("stream.wav")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let decoder = try WAVDecoder(path: path)
        #expect(decoder.totalFrames == 5_000)
        #expect(try Decode.ints(decoder) == samples)
    }

    @Test("a data chunk longer than the file plays the whole frames present")
    func truncatedData() throws {
        let dir = try TemporaryDirectory()
        let samples = TestSignal.sweep(frames: 5_000, channels: 2, bits: 24)
        let bytes = WAVFixture.bytes(samples: samples, channels: 2, sampleRate: 44100, kind: .pcm24)
        let data = try #require(WAVFixture.chunkOffset("data", in: bytes))
        let path = dir.file("cut.wav")
        try Data(bytes.prefix(data + 8 + 1_000 * 6 + 5)).write(to: URL(fileURLWithPath: path))
        let decoder = try WAVDecoder(path: path)
        #expect(decoder.totalFrames == 1_000)
        #expect(try Decode.ints(decoder, chunkFrames: 333) == Self.expectedInts(Array(samples.prefix(2_000)),
                                                                                 kind: .pcm24))
    }

    /// Patches bytes of a valid 16-bit stereo WAV's `fmt ` body (offsets relative to the body).
    static func patched(_ patches: [Int: [UInt8]], in dir: TemporaryDirectory) throws -> String {
        var bytes = WAVFixture.bytes(samples: TestSignal.sweep(frames: 100, channels: 2, bits: 16), channels: 2,
                                     sampleRate: 44100, kind: .pcm16)
        let fmt = try #require(WAVFixture.chunkOffset("fmt ", in: bytes)) + 8
        for (offset, values) in patches {
            for (index, value) in values.enumerated() { bytes[fmt + offset + index] = value }
        }
        let path = dir.file("patched-\(patches.keys.sorted()).wav")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("bad fmt chunks are corrupt, unknown codecs unsupported")
    func rejectsBadFormat() throws {
        let dir = try TemporaryDirectory()
        let corrupt: [[Int: [UInt8]]] = [
            [2: [0, 0]],            // 0 channels
            [2: [9, 0], 12: [18, 0]],  // 9 channels (block align consistent)
            [4: [0, 0, 0, 0]],      // rate 0
            [12: [6, 0]],           // block align mismatch
        ]
        for patch in corrupt {
            let path = try Self.patched(patch, in: dir)
            #expect(Decode.failure(of: path)?.kind == "corrupt", "\(patch)")
        }
        let mp3 = try Self.patched([0: [0x55, 0]], in: dir)
        #expect(Decode.failure(of: mp3)?.kind == "unsupported")
        let rifx = dir.file("rifx.wav")
        try Data("RIFX\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8).write(to: URL(fileURLWithPath: rifx))
        #expect(throws: DecoderError.unsupported(path: rifx, reason: "not a RIFF/WAVE file")) {
            try WAVDecoder(path: rifx)
        }
    }
}
