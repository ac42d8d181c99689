import AudioCore
import AudioOutput
import Engine
import FermataCore
import Foundation
import Player
import TestSupport
import Testing

/// A take played together with its original (`playtake ID balance`) on captured PCM: the original's loop from 1 s
/// to 2 s for two passes, a take of known samples mixed over each pass from the pass's first frame. With the take
/// alone (100 %) every captured frame is the take's (so it is placed to the sample, every pass, at 100 % and at
/// 80 %); with the original alone (0 %) the capture is byte-identical to the loop played without a take; between, the
/// equal-power sum within one step of the 16-bit output; a take at another rate than the device's is resampled.
@Suite struct TakeMixTests {
    static let rate = 44_100
    static let loop = PlaySpan(startMilliseconds: 1000, endMilliseconds: 2000, passes: 2, tempoPercent: 100)

    /// Stereo 16-bit noise from a seed (a different signal in each channel), at most ±`amplitude`.
    static func noise(frames: Int, seed: UInt32, amplitude: Int32) -> [Int32] {
        var state = seed
        return (0..<(frames * 2)).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return Int32(state >> 16) % (2 * amplitude + 1) - amplitude
        }
    }

    /// The original (3 s of noise) played over `span`, with the take in `take` (written as a FLAC file and loaded as
    /// `playtake` loads it, at `loadAt` when given) mixed at `percent`; nil: no take.
    static func capture(span: PlaySpan = loop, take: (samples: [Int32], rate: Int, channels: Int)?, percent: Int = 100,
                        loadAt: Int? = nil) async throws -> [Int32] {
        let harness = try CaptureHarness()
        let original = try harness.writeFLAC(noise(frames: 3 * rate, seed: 7, amplitude: 12_000))
        var sound: TakeSound?
        if let take {
            let path = harness.directory.file("take.flac")
            try FLACFixture.write(path: path, samples: take.samples, channels: take.channels, bitsPerSample: 16,
                                  sampleRate: take.rate)
            sound = try TakeSound.load(path: path, rate: loadAt)
        }
        let (bytes, _) = try await harness.play([original]) { player, ids in
            try await player.setSpan(span, of: ids[0])
            if let sound {
                await player.setTakeMix(TakeMix(entry: ids[0], loopStartMilliseconds: span.startMilliseconds,
                                                sound: sound, takePercent: percent))
            }
        }
        return int16Samples(bytes)
    }

    /// The take alone: each pass of the capture is the take from its first frame, then silence (the original at 0).
    @Test(arguments: [100, 80])
    func theTakeAloneIsEveryFrameOfEachPass(tempo: Int) async throws {
        let span = PlaySpan(startMilliseconds: 1000, endMilliseconds: 2000, passes: 2, tempoPercent: tempo)
        let pass = Self.rate * 100 / tempo  // 44 100 or 55 125 frames a pass at the take's tempo
        let takeFrames = pass * 3 / 4
        let take = Self.noise(frames: takeFrames, seed: 99, amplitude: 9000)
        let captured = try await Self.capture(span: span, take: (take, Self.rate, 2))
        #expect(abs(captured.count / 2 - 2 * pass) <= 2, "\(captured.count / 2) frames for 2 passes of \(pass)")
        for index in 0..<2 {
            let start = index * pass * 2
            guard captured.count >= start + pass * 2 else { break }
            let heard = Array(captured[start..<(start + takeFrames * 2)])
            if let first = firstDifference(heard, take) {
                Issue.record("pass \(index + 1) differs from the take at frame \(first / 2): \(heard[first]) for \(take[first])")
            }
            let after = captured[(start + takeFrames * 2)..<(start + pass * 2 - 4)]
            // (Before the converter's drain went through the overlay stage, the last pass's final 4 920 frames at 80 %
            // — what the stretcher still held at the track's end — were the original, unmixed.)
            let loud = after.indices.filter { after[$0] != 0 }.map { ($0 - start) / 2 }
            let sounding = "\(loud.first ?? 0)...\(loud.last ?? 0) (\(loud.count / 2) frames) of \(pass)"
            let silent = loud.isEmpty
            #expect(silent, "pass \(index + 1): the original at 0 past the take's end; sound at \(sounding)")
        }
    }

    /// The original alone: the same bytes as the loop without a take.
    @Test func theOriginalAloneIsTheLoopUntouched() async throws {
        let take = Self.noise(frames: Self.rate, seed: 99, amplitude: 9000)
        let plain = try await Self.capture(take: nil)
        let mixed = try await Self.capture(take: (take, Self.rate, 2), percent: 0)
        #expect(plain.count == 2 * Self.rate * 2)
        #expect(mixed.count == plain.count)
        if let first = firstDifference(mixed, plain) { Issue.record("differs at sample \(first)") }
    }

    /// Between: the original and the take each at its equal-power gain, summed (within one 16-bit step), mono takes
    /// on both channels.
    @Test(arguments: [(50, 2), (25, 1)])
    func betweenIsTheEqualPowerSum(percent: Int, channels: Int) async throws {
        let takeFrames = Self.rate - 100
        let take = Array(Self.noise(frames: takeFrames, seed: 5, amplitude: 9000).prefix(takeFrames * channels))
        let plain = try await Self.capture(take: nil)
        let mixed = try await Self.capture(take: (take, Self.rate, channels), percent: percent)
        try #require(mixed.count == plain.count && plain.count == 2 * Self.rate * 2)
        let angle = Double(percent) / 100 * Double.pi / 2
        let (takeGain, originalGain) = (sin(angle), cos(angle))
        var worst = 0.0
        for i in 0..<mixed.count {
            let frame = (i / 2) % Self.rate, channel = i % 2
            let over = frame < takeFrames ? Double(take[frame * channels + (channels == 1 ? 0 : channel)]) : 0
            let expected = min(32767, max(-32768, Double(plain[i]) * originalGain + over * takeGain))
            worst = max(worst, abs(Double(mixed[i]) - expected))
        }
        #expect(worst <= 1.01, "the largest difference from the equal-power sum: \(worst)")
    }

    /// A take at 48 kHz over a 44.1 kHz original, resampled to the device's rate when loaded (as fermatad does) or by
    /// the decoder thread (loaded at its own rate): a 1 kHz tone stays a 1 kHz tone in place (within 1 % of full scale
    /// past the filter's first milliseconds).
    @Test(arguments: [44_100, nil])
    func aTakeAtAnotherRateIsResampled(loadAt: Int?) async throws {
        let takeRate = 48_000
        let tone = (0..<takeRate).flatMap { n -> [Int32] in
            let value = Int32((sin(2 * Double.pi * 1000 * Double(n) / Double(takeRate)) * 16_000).rounded())
            return [value, value]
        }
        let captured = try await Self.capture(take: (tone, takeRate, 2), loadAt: loadAt)
        try #require(captured.count == 2 * Self.rate * 2)
        var worst = 0.0
        for pass in 0..<2 {
            for frame in 441..<(Self.rate - 441) {
                let expected = sin(2 * Double.pi * 1000 * Double(frame) / Double(Self.rate)) * 16_000
                worst = max(worst, abs(Double(captured[(pass * Self.rate + frame) * 2]) - expected))
            }
        }
        #expect(worst <= 328, "the largest difference from the tone at 44.1 kHz: \(worst)")
    }

    /// A take over the memory limit is refused in words before it is read, with its length and the limit (the limit
    /// here 1 s of 44.1 kHz stereo; in fermatad 60 MB).
    @Test func aTakeOverTheLimitIsRefusedInWords() throws {
        let harness = try CaptureHarness()
        let path = try harness.writeFLAC(Self.noise(frames: 2 * Self.rate + 10, seed: 3, amplitude: 100), name: "long.flac")
        do {
            _ = try TakeSound.load(path: path, rate: nil, maxBytes: Self.rate * 4)
            Issue.record("a 2 s take was loaded within 1 s")
        } catch {
            #expect(error.description.hasPrefix("the take is 2.0 s long; takes up to 1.0 s"), "\(error.description)")
        }
        let sound = try TakeSound.load(path: path, rate: nil, maxBytes: Self.rate * 12)
        #expect(sound.frames == 2 * Self.rate + 10 && sound.channels == 2)
    }

    /// Bad takes are refused in words: no file, a file that is not sound.
    @Test func aTakeThatCannotBeReadIsRefusedInWords() throws {
        let folder = try TemporaryDirectory(prefix: "fermata-takemix")
        #expect(throws: TakeSound.LoadError.self) { try TakeSound.load(path: folder.file("none.flac"), rate: nil) }
        let text = folder.file("text.flac")
        try Data("not a flac".utf8).write(to: URL(fileURLWithPath: text))
        do {
            _ = try TakeSound.load(path: text, rate: nil)
            Issue.record("a text file was loaded")
        } catch {
            #expect(error.description.contains("text.flac"), "\(error.description)")
        }
    }

    /// The take (up to 60 MB) is let go when its entry leaves the queue, not before.
    @Test func theTakeIsLetGoWhenItsEntryLeavesTheQueue() async throws {
        let harness = try CaptureHarness()
        let file = try harness.writeFLAC(Self.noise(frames: 4410, seed: 1, amplitude: 100))
        let engine = PlaybackEngine(sink: OutputSpec.capture(path: harness.directory.file("c.raw")).makeSink(),
                                    config: harness.config)
        defer { engine.shutdown() }
        let player = Player(engine: engine)
        let ids = try await player.add(paths: [file, file])
        let sound = TakeSound(samples: [1, 2], rate: Self.rate, channels: 2)
        await player.setTakeMix(TakeMix(entry: ids[1], loopStartMilliseconds: 0, sound: sound, takePercent: 50))
        try await player.remove(ids: [ids[0]])
        #expect(await player.mixedEntry == ids[1], "another entry removed")
        try await player.remove(ids: [ids[1]])
        #expect(await player.mixedEntry == nil, "its own entry removed")
    }
}
