import AudioCore
@testable import Decoders
import Foundation
import TestSupport
import Testing

/// One FLAC fixture shape.
struct FLACCase: Sendable, CustomTestStringConvertible {
    var channels: Int
    var bits: Int
    var rate: Int
    var frames: Int
    var blockSize = 4096

    var testDescription: String { "\(channels)ch \(bits)-bit \(rate) Hz, \(frames) frames" }
}

@Suite("FLAC decoder")
struct FLACDecoderTests {
    static let cases = [
        FLACCase(channels: 2, bits: 16, rate: 44100, frames: 100_003),
        FLACCase(channels: 2, bits: 24, rate: 48000, frames: 70_001),
        FLACCase(channels: 1, bits: 8, rate: 22050, frames: 30_000, blockSize: 1152),
        FLACCase(channels: 6, bits: 24, rate: 96000, frames: 50_000),
        FLACCase(channels: 1, bits: 12, rate: 32000, frames: 9_999),
        FLACCase(channels: 2, bits: 32, rate: 44100, frames: 20_000),
    ]

    /// Writes the fixture and returns its path and source samples.
    static func fixture(_ shape: FLACCase, in dir: TemporaryDirectory) throws -> (String, [Int32]) {
        let samples = TestSignal.sweep(frames: shape.frames, channels: shape.channels, bits: shape.bits,
                                       sampleRate: shape.rate, seed: UInt64(shape.bits * 10 + shape.channels))
        let path = dir.file("\(shape.channels)-\(shape.bits).flac")
        try FLACFixture.write(path: path, samples: samples, channels: shape.channels, bitsPerSample: shape.bits,
                              sampleRate: shape.rate, blockSize: shape.blockSize)
        return (path, samples)
    }

    @Test("decodes exactly, left-justified", arguments: cases)
    func decodesExactly(_ shape: FLACCase) throws {
        let dir = try TemporaryDirectory()
        let (path, samples) = try Self.fixture(shape, in: dir)
        let decoder = try FLACDecoder(path: path)
        #expect(decoder.format.sampleRate == shape.rate)
        #expect(decoder.format.channels == shape.channels)
        #expect(decoder.format.encoding == (shape.bits <= 16 ? .s16 : .s32))
        #expect(decoder.format.validBits == shape.bits)
        #expect(decoder.totalFrames == Int64(shape.frames))
        // 1000-frame reads split every FLAC block across calls.
        let decoded = try Decode.ints(decoder, chunkFrames: 1000)
        #expect(decoded.count == samples.count)
        #expect(decoded == TestSignal.leftJustified(samples, bits: shape.bits))
        // After the end, read keeps returning 0.
        #expect(try Decode.count(decoder) == 0)
    }

    @Test("one-frame reads carry a block over many calls")
    func tinyReads() throws {
        let dir = try TemporaryDirectory()
        let shape = FLACCase(channels: 2, bits: 16, rate: 44100, frames: 10_000)
        let (path, samples) = try Self.fixture(shape, in: dir)
        let decoder = try FLACDecoder(path: path)
        let decoded = try Decode.ints(decoder, chunkFrames: 1, limit: 5_000)
        #expect(decoded == Array(samples.prefix(10_000)))
        let rest = try Decode.ints(decoder, chunkFrames: 777)
        #expect(rest == Array(samples.suffix(10_000)))
    }

    @Test("seeks sample-accurately", arguments: [cases[0], cases[1], cases[2], cases[3]])
    func seeks(_ shape: FLACCase) throws {
        let dir = try TemporaryDirectory()
        let (path, samples) = try Self.fixture(shape, in: dir)
        let expected = TestSignal.leftJustified(samples, bits: shape.bits)
        let decoder = try FLACDecoder(path: path)
        var random = SplitMix64(seed: 99)
        var targets = [0, shape.blockSize, shape.blockSize - 1, shape.blockSize + 1, shape.frames - 1, 1]
        targets += (0..<6).map { _ in random.next(in: 0...(shape.frames - 1)) }
        for target in targets {
            try decoder.seek(toFrame: Int64(target))
            let decoded = try Decode.ints(decoder, chunkFrames: 1000, limit: 3_000)
            let end = min(shape.frames, target + 3_000)
            #expect(decoded == Array(expected[(target * shape.channels)..<(end * shape.channels)]),
                    "after seeking to \(target)")
        }
        // Seeking to (or past) the end: read reports the end, and a later seek still works.
        try decoder.seek(toFrame: Int64(shape.frames))
        #expect(try Decode.count(decoder) == 0)
        try decoder.seek(toFrame: Int64(shape.frames) + 1_000)
        #expect(try Decode.count(decoder) == 0)
        try decoder.seek(toFrame: 10)
        #expect(try Decode.ints(decoder, limit: 5) == Array(expected[(10 * shape.channels)..<(15 * shape.channels)]))
    }

    @Test("a truncated file throws corrupt(truncated) at the end instead of ending quietly")
    func truncated() throws {
        let dir = try TemporaryDirectory()
        let (path, _) = try Self.fixture(FLACCase(channels: 2, bits: 16, rate: 44100, frames: 60_000), in: dir)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let cut = dir.file("cut.flac")
        try bytes.prefix(bytes.count * 2 / 3).write(to: URL(fileURLWithPath: cut))
        let decoder = try FLACDecoder(path: cut)
        #expect(decoder.totalFrames == 60_000)
        var thrown: DecoderError?
        do { try Decode.count(decoder) } catch let error as DecoderError { thrown = error }
        #expect(thrown?.kind == "corrupt")
        #expect(thrown?.reason.contains("truncated") == true, "\(String(describing: thrown))")
    }

    @Test("a seek into missing audio fails cleanly and the decoder stays usable")
    func failedSeek() throws {
        let dir = try TemporaryDirectory()
        let (path, samples) = try Self.fixture(FLACCase(channels: 2, bits: 16, rate: 44100, frames: 60_000), in: dir)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let cut = dir.file("cut.flac")
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
        let decoder = try FLACDecoder(path: cut)
        #expect { try decoder.seek(toFrame: 59_000) } throws: { ($0 as? DecoderError)?.kind == "seekFailed" }
        try decoder.seek(toFrame: 1_000)
        #expect(try Decode.ints(decoder, limit: 500) == Array(samples[2_000..<3_000]))
    }

    @Test("a file with an ID3v2 tag in front decodes exactly")
    func id3Prefix() throws {
        let dir = try TemporaryDirectory()
        let (path, samples) = try Self.fixture(FLACCase(channels: 2, bits: 16, rate: 44100, frames: 12_345), in: dir)
        var tag: [UInt8] = Array("ID3".utf8) + [4, 0, 0, 0, 0, 1, 0x10]  // 144-byte body
        tag += [UInt8](repeating: 0, count: 144)
        let tagged = dir.file("id3.flac")
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        try Data(tag + original).write(to: URL(fileURLWithPath: tagged))
        let decoder = try DecoderRegistry.open(path: tagged)
        #expect(decoder is FLACDecoder)
        #expect(try Decode.ints(decoder) == samples)
        #expect(try TagReader.read(path: tagged).duration == 12_345.0 / 44100)
    }

    @Test("non-FLAC content is unsupported, a missing file unreadable")
    func rejects() throws {
        let dir = try TemporaryDirectory()
        let text = dir.file("text.flac")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: text))
        #expect(throws: DecoderError.unsupported(path: text, reason: "no fLaC signature")) {
            try FLACDecoder(path: text)
        }
        #expect { try FLACDecoder(path: dir.file("missing.flac")) } throws: { error in
            (error as? DecoderError)?.kind == "unreadable"
        }
    }
}
