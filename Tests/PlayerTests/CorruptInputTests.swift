import AudioCore
import Engine
import Foundation
import Player
import TestSupport
import Testing

/// Corrupt, truncated and mislabelled files give a typed error and playback moves on.
@Suite struct CorruptInputTests {
    @Test func everyBadFileIsSkippedWithAReason() async throws {
        let harness = try CaptureHarness()
        let dir = harness.directory
        let before = TestSignal.sweep(frames: 20_000, channels: 2, bits: 16, seed: 21)
        let after = TestSignal.sweep(frames: 20_000, channels: 2, bits: 16, seed: 22)
        try FLACFixture.write(path: dir.file("before.flac"), samples: before, channels: 2, bitsPerSample: 16,
                              sampleRate: 44_100)
        try FLACFixture.write(path: dir.file("after.flac"), samples: after, channels: 2, bitsPerSample: 16,
                              sampleRate: 44_100)
        try WAVFixture.write(path: dir.file("valid.wav"), samples: after, channels: 2, sampleRate: 44_100, kind: .pcm16)
        try FileManager.default.createDirectory(atPath: dir.file("corpus"), withIntermediateDirectories: true)
        let corpus = try CorruptCorpus.make(in: dir.file("corpus"), from: dir.file("after.flac"),
                                            validWAV: dir.file("valid.wav"), validOgg: nil, seed: 99)
        #expect(corpus.count >= 8)
        let files = [dir.file("before.flac")] + corpus + [dir.file("missing.flac"), dir.file("after.flac")]
        let (bytes, player) = try await harness.play(files)
        let captured = int16Samples(bytes)
        #expect(Array(captured.prefix(before.count)) == before, "the track before the corpus plays whole")
        #expect(Array(captured.suffix(after.count)) == after, "the track after the corpus plays whole")
        let failures = await player.failures
        let queue = await player.queue.entries
        for entry in queue where entry.uri.contains("/corpus/") || entry.uri.hasSuffix("missing.flac") {
            #expect(failures[entry.id] != nil, "\(entry.uri) should have failed with a reason")
        }
        #expect(failures.count == corpus.count + 1)
        #expect(failures.values.allSatisfy { !$0.isEmpty })
        #expect(failures[queue.last!.id] == nil && failures[queue.first!.id] == nil)
    }
}
