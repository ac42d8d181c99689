import AudioCore
@testable import Decoders
import Foundation
import TestSupport
import Testing

@Suite("Damaged files")
struct CorruptCorpusTests {
    /// A corpus from a 16-bit stereo FLAC, a 16-bit WAV and an Ogg Vorbis file.
    static func corpus(seed: UInt64, in dir: TemporaryDirectory) throws -> [String] {
        let samples = TestSignal.sweep(frames: 50_001, channels: 2, bits: 16, seed: 1)
        let flac = dir.file("valid.flac")
        try FLACFixture.write(path: flac, samples: samples, channels: 2, bitsPerSample: 16, sampleRate: 44100,
                              tags: ["TITLE": "Valid"])
        let wav = dir.file("valid.wav")
        try WAVFixture.write(path: wav, samples: samples, channels: 2, sampleRate: 44100, kind: .pcm16)
        let ogg = dir.file("valid.ogg")
        try VorbisFixture.write(path: ogg, wavPath: wav, quality: 1, serial: 1234)
        let corpusDir = dir.file("corpus")
        try FileManager.default.createDirectory(atPath: corpusDir, withIntermediateDirectories: false)
        // The valid files themselves must decode: otherwise the corpus proves nothing.
        for path in [flac, wav, ogg] { #expect(Decode.failure(of: path) == nil, "\(path)") }
        return try CorruptCorpus.make(in: corpusDir, from: flac, validWAV: wav, validOgg: ogg, seed: seed)
    }

    @Test("every damaged file throws a DecoderError, at open or while reading", arguments: [UInt64(1), 2, 3])
    func everyFileThrows(seed: UInt64) throws {
        let dir = try TemporaryDirectory()
        let paths = try Self.corpus(seed: seed, in: dir)
        #expect(paths.count >= 25)
        for path in paths {
            let error = Decode.failure(of: path)
            #expect(error != nil, "\(path) decoded without an error")
            // Damage after a recognisable signature is corruption, not an unknown format.
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            let name = URL(fileURLWithPath: path).lastPathComponent
            if name.hasPrefix("streaminfo") || name.hasPrefix("frame-flip") || (name.hasPrefix("cut") && size >= 64) {
                #expect(error?.kind == "corrupt", "\(name): \(String(describing: error))")
            }
        }
    }

    @Test("the corpus is deterministic from its seed, and the seed matters")
    func deterministic() throws {
        func build(_ seed: UInt64) throws -> [String: Data] {
            let dir = try TemporaryDirectory()
            let paths = try Self.corpus(seed: seed, in: dir)
            var files: [String: Data] = [:]
            for path in paths {
                let url = URL(fileURLWithPath: path)
                files[url.lastPathComponent] = try Data(contentsOf: url)
            }
            return files
        }
        let first = try build(7), second = try build(7), other = try build(8)
        #expect(first == second)
        #expect(first.keys.sorted() == other.keys.sorted())
        #expect(first != other)
    }

    @Test("specific errors: text as .flac, empty, missing, directory")
    func specificErrors() throws {
        let dir = try TemporaryDirectory()
        let paths = try Self.corpus(seed: 4, in: dir)
        let text = try #require(paths.first { $0.hasSuffix("/text.flac") })
        #expect(Decode.failure(of: text)?.kind == "unsupported")
        let empty = try #require(paths.first { $0.hasSuffix("/empty.flac") })
        #expect(Decode.failure(of: empty) == .corrupt(path: empty, reason: "empty file"))
        let random = try #require(paths.first { $0.hasSuffix("/random.wav") })
        #expect(Decode.failure(of: random)?.kind == "unsupported")
        let missing = dir.file("no-such-file.flac")
        #expect(Decode.failure(of: missing)?.kind == "unreadable")
        #expect(Decode.failure(of: dir.path)?.kind == "unreadable")
        for path in paths where path.contains("streaminfo") || path.contains("frame-flip") || path.contains("fmt-") {
            #expect(Decode.failure(of: path)?.kind != "unreadable", "\(path)")
        }
    }
}
