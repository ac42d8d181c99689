import AudioCore
import Engine
import FermataCore
import Foundation
import Player
import TestSupport
import Testing

/// Spoken announcements (eSpeak NG) on captured PCM: before the music, over it (ducked), and at track changes.
@Suite struct AnnouncementTests {
    static func rms(_ samples: ArraySlice<Int32>) -> Double {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }

    static func tone(frames: Int, amplitude: Double = 3_000) -> [Int32] {
        (0..<frames).flatMap { i -> [Int32] in
            let v = Int32((sin(2 * Double.pi * 220 * Double(i) / 44_100) * amplitude).rounded())
            return [v, v]
        }
    }

    /// eSpeak NG is one global engine: renderers of several players (tests run three at once) asking together must
    /// each get their own words — every request spoken, as long as when asked alone (eSpeak varies a render by a few
    /// per cent from one call to the next, so not sample for sample) and audible. Concurrent use used to abort.
    @Test func renderersOfSeveralPlayersSpeakTogether() async throws {
        let texts = (1...6).map { "Bar \($0) from the top, take \($0)" }
        var alone: [String: Int] = [:]
        for text in texts {
            let speech = try await SpeechRenderer().render(text).get()
            alone[text] = speech.samples.count
        }
        let together = await withTaskGroup(of: (String, [Float]?).self) { group in
            for _ in 0..<3 {
                for text in texts.shuffled() {
                    let renderer = SpeechRenderer()  // a fresh cache: every request reaches eSpeak
                    group.addTask { (text, try? await renderer.render(text).get().samples) }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(together.count == texts.count * 3)
        for (text, samples) in together {
            let count = samples?.count ?? 0, expected = alone[text] ?? 0
            #expect(abs(count - expected) < expected / 10, "\"\(text)\": \(count) samples alongside others, \(expected) alone")
            let rms = (samples ?? []).reduce(0) { $0 + Double($1) * Double($1) } / Double(max(1, count))
            #expect(rms.squareRoot() > 0.01, "\"\(text)\" is audible")
        }
    }

    @Test func beforeTheMusicThenTheMusicSampleExact() async throws {
        let harness = try CaptureHarness()
        let signal = TestSignal.sweep(frames: 20_000, channels: 2, bits: 16, seed: 91)
        let path = harness.directory.file("m.flac")
        try FLACFixture.write(path: path, samples: signal, channels: 2, bitsPerSample: 16, sampleRate: 44_100)
        let (bytes, _) = try await harness.play([path]) { player, _ in
            try await player.perform(.setAnnouncements(duck: false, onTrackChange: false))
            try await player.perform(.announce("Bar forty two, from the top"))
        }
        let captured = int16Samples(bytes)
        let speechFrames = (captured.count - signal.count) / 2
        #expect(speechFrames > 44_100 / 2 && speechFrames < 44_100 * 6, "\(speechFrames) frames of speech")
        #expect(Self.rms(captured[0..<(speechFrames * 2)]) > 300, "the words are audible")
        #expect(firstDifference(Array(captured[(speechFrames * 2)...]), signal) == nil, "then the music, untouched")
    }

    @Test func overTheMusicDuckedThenUntouched() async throws {
        let harness = try CaptureHarness()
        let signal = Self.tone(frames: 44_100 * 6)
        let path = harness.directory.file("m.flac")
        try FLACFixture.write(path: path, samples: signal, channels: 2, bitsPerSample: 16, sampleRate: 44_100)
        let (bytes, _) = try await harness.play([path]) { player, _ in
            try await player.perform(.setAnnouncements(duck: true, onTrackChange: false))
            try await player.perform(.announce("one two three"))
        }
        let captured = int16Samples(bytes)
        try #require(captured.count == signal.count, "nothing is inserted")
        let lastChanged = try #require(captured.indices.last { captured[$0] != signal[$0] })
        let overlayFrames = lastChanged / 2 + 1
        #expect(overlayFrames > 44_100 / 2 && overlayFrames < 44_100 * 5, "speech over \(overlayFrames) frames")
        // In the middle of the speech the music is ducked to about a third, and the voice is on top of it.
        let middle = (overlayFrames / 2 - 2_205) * 2..<(overlayFrames / 2 + 2_205) * 2
        let ducked = signal[middle].map { (Double($0) * 0.316).rounded() }
        let voice = zip(captured[middle], ducked).map { Int32(Double($0) - $1) }
        #expect(Self.rms(voice[...]) > 300, "a voice over the ducked music")
    }

    @Test func eachNewTrackIsAnnouncedBeforeIt() async throws {
        let harness = try CaptureHarness()
        let first = TestSignal.sweep(frames: 15_000, channels: 2, bits: 16, seed: 92)
        let second = TestSignal.sweep(frames: 15_000, channels: 2, bits: 16, seed: 93)
        let a = harness.directory.file("a.flac"), b = harness.directory.file("b.flac")
        try FLACFixture.write(path: a, samples: first, channels: 2, bitsPerSample: 16, sampleRate: 44_100,
                              tags: ["TITLE": "Etude", "ARTIST": "Chopin"])
        try FLACFixture.write(path: b, samples: second, channels: 2, bitsPerSample: 16, sampleRate: 44_100,
                              tags: ["TITLE": "Prelude", "ARTIST": "Bach"])
        let (bytes, _) = try await harness.play([a, b]) { player, _ in
            try await player.perform(.setAnnouncements(duck: false, onTrackChange: true))
        }
        let captured = int16Samples(bytes)
        let speech = captured.count - first.count - second.count
        #expect(speech > 44_100, "\"Prelude, by Bach\" between the tracks: \(speech / 2) frames")
        #expect(firstDifference(Array(captured[0..<first.count]), first) == nil, "the first track untouched")
        #expect(firstDifference(Array(captured[(captured.count - second.count)...]), second) == nil)
        #expect(Self.rms(captured[first.count..<(first.count + max(0, speech))]) > 300)
    }
}
