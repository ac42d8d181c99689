import AudioCore
@testable import Decoders
import Engine
import Foundation
import Player
import TestSupport
import Testing

/// Damaged MP3, M4A and Opus files (`LossyDamageCorpus`, fixed seed) queued between good files: every good file is
/// heard whole, each damaged one is refused with a reason or plays what it can, and nothing hangs.
@Suite(.serialized) struct LossyDamageTests {
    static func corpus(in dir: TemporaryDirectory, seed: UInt64) throws -> [String] {
        let wav = dir.file("source.wav"), wav48 = dir.file("source48.wav")
        try WAVFixture.write(path: wav, samples: TestSignal.sweep(frames: 3 * 44_100, channels: 2, bits: 16),
                             channels: 2, sampleRate: 44_100, kind: .pcm16)
        try WAVFixture.write(path: wav48, samples: TestSignal.sweep(frames: 48_000, channels: 2, bits: 16, sampleRate: 48_000),
                             channels: 2, sampleRate: 48_000, kind: .pcm16)
        try LossyFixture.encode(.mp3, wav: wav, to: dir.file("good.mp3"))
        try LossyFixture.encode(.mp3, wav: wav48, to: dir.file("other-rate.mp3"))
        try LossyFixture.run("/usr/bin/lame", ["--quiet", "-t", "-V", "4", wav, dir.file("headerless.mp3")])
        try LossyFixture.encode(.aac, wav: wav, to: dir.file("good.m4a"))
        try LossyFixture.encode(.opus, wav: wav, to: dir.file("good.opus"))
        try FileManager.default.createDirectory(atPath: dir.file("corpus"), withIntermediateDirectories: true)
        return try LossyDamageCorpus.make(in: dir.file("corpus"), mp3: dir.file("good.mp3"),
                                          otherRateMP3: dir.file("other-rate.mp3"), headerlessMP3: dir.file("headerless.mp3"),
                                          m4a: dir.file("good.m4a"), opus: dir.file("good.opus"), seed: seed)
    }

    @Test func eachDamagedFileEndsQuicklyRefusedOrPlayed() throws {
        let dir = try TemporaryDirectory()
        let corpus = try Self.corpus(in: dir, seed: 23)
        #expect(corpus.count >= 20)
        for path in corpus {
            let clock = ContinuousClock.now
            var frames = 0
            do {
                let decoder = try DecoderRegistry.open(path: path)
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096 * decoder.format.bytesPerFrame, alignment: 16)
                defer { buffer.deallocate() }
                for _ in 0..<100_000 {
                    let got = try decoder.read(into: buffer)
                    if got == 0 { break }
                    frames += got
                }
                _ = try? TagReader.read(path: path)
            } catch {
                #expect(!error.description.isEmpty)
            }
            let elapsed = ContinuousClock.now - clock
            #expect(elapsed < .seconds(20), "\(path) took \(elapsed)")
            #expect(frames < 10 * 48_000, "\(path) produced \(frames) frames from a 3 s source")
        }
    }

    @Test func goodFilesBetweenDamagedOnesPlayWhole() async throws {
        let harness = try CaptureHarness()
        let dir = harness.directory
        let corpus = try Self.corpus(in: dir, seed: 24)
        let before = TestSignal.sweep(frames: 20_000, channels: 2, bits: 16, seed: 31)
        let after = TestSignal.sweep(frames: 20_000, channels: 2, bits: 16, seed: 32)
        try FLACFixture.write(path: dir.file("before.flac"), samples: before, channels: 2, bitsPerSample: 16, sampleRate: 44_100)
        try FLACFixture.write(path: dir.file("after.flac"), samples: after, channels: 2, bitsPerSample: 16, sampleRate: 44_100)
        let files = [dir.file("before.flac")] + corpus + [dir.file("after.flac")]
        let (bytes, player) = try await harness.play(files)
        // The device stays at the first track's format (16-bit) and converts what follows.
        let captured = int16Samples(bytes)
        #expect(Array(captured.prefix(before.count)) == before, "the track before the corpus plays whole")
        #expect(Array(captured.suffix(after.count)) == after, "the track after the corpus plays whole")
        let failures = await player.failures
        #expect(failures.values.allSatisfy { !$0.isEmpty })
        let queue = await player.queue.entries
        #expect(failures[queue.last!.id] == nil && failures[queue.first!.id] == nil)
        print("damaged lossy files: \(corpus.count), refused with a reason: \(failures.count), the rest played what they could")
    }
}
