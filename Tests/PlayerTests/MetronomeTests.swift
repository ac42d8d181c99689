import AudioCore
import Engine
import FermataCore
import Foundation
import Player
import TestSupport
import Testing

/// The click over the track on captured PCM (a silent track, so every sound is a click): onsets on the beat grid
/// within 1 ms at 100 % and at 75 %, beat one accented, and a count-in that lands on the same grid.
@Suite struct MetronomeTests {
    /// The first frame of each sound after at least 10 ms of silence, and its loudest sample.
    static func clicks(_ samples: [Int32]) -> [(frame: Int, peak: Int32)] {
        var found: [(frame: Int, peak: Int32)] = []
        var quiet = 441
        for frame in 0..<(samples.count / 2) {
            let value = abs(samples[frame * 2])
            if value > 64 {
                if quiet >= 441 { found.append((frame, 0)) }
                found[found.count - 1].peak = max(found[found.count - 1].peak, value)
                quiet = 0
            } else {
                quiet += 1
            }
        }
        return found
    }

    static func playSilence(seconds: Double, prepare: @escaping (Player, [EntryID]) async throws -> Void)
        async throws -> [Int32] {
        let silence = [Int32](repeating: 0, count: Int(seconds * 44_100) * 2)
        let (bytes, _) = try await CaptureHarness().play(samples: silence, startsItself: true) { player, ids in
            try await prepare(player, ids)
        }
        return int16Samples(bytes)
    }

    @Test(arguments: [100, 75])
    func clicksFallOnTheBeatGridAtTheTempoWithBarOnesAccented(tempo: Int) async throws {
        let captured = try await Self.playSilence(seconds: 3) { player, ids in
            try await player.perform(.setBeat(TrackBeat(bpm: 120, offsetSeconds: 0.25)))
            try await player.perform(.metronome(MetronomePlan(beatsPerBar: 4)))
            try await player.perform(.setTempo(percent: tempo))
            try await player.perform(.playEntry(ids[0]))
        }
        let clicks = Self.clicks(captured)
        // Beats at 0.25 s + k × 0.5 s of the track: 6 in 3 s; heard at 1 / tempo as far apart.
        let beats = (0..<6).map { (0.25 + Double($0) * 0.5) * 100 / Double(tempo) }.filter { $0 < 3 * 100 / Double(tempo) }
        #expect(clicks.count == beats.count, "\(clicks.map(\.frame)) for beats at \(beats) s")
        for (click, beat) in zip(clicks, beats) {
            let error = abs(Double(click.frame) / 44_100 - beat)
            #expect(error <= 0.001, "a click at \(Double(click.frame) / 44_100) s for the beat at \(beat) s")
        }
        // Beat one of each bar louder (1.5 kHz at 0.5 against 1 kHz at 0.3).
        let accents = clicks.map { $0.peak > 12_000 }
        #expect(accents == clicks.indices.map { $0 % 4 == 0 }, "\(clicks.map(\.peak))")
    }

    /// Started 0.3 s into the track at 120 BPM (beats at 0, 0.5 s, …) with a count-in of 4: the count-in clicks at
    /// 0, 0.5, 1 and 1.5 s, the music starts 0.2 s before the next beat, so its first click comes at 2 s — one grid.
    @Test func theCountInLandsOnTheSameGrid() async throws {
        let captured = try await Self.playSilence(seconds: 3) { player, ids in
            try await player.perform(.setBeat(TrackBeat(bpm: 120)))
            try await player.perform(.metronome(MetronomePlan(beatsPerBar: 4)))
            try await player.perform(.countIn(CountInPlan(beats: 4)))
            try await player.perform(.seekEntry(ids[0], seconds: 0.3))
        }
        let clicks = Self.clicks(captured).map { Double($0.frame) / 44_100 }
        // 4 count-in clicks, then the track's beats at 0.5 … 2.5 s: 9, every 0.5 s from 0.
        #expect(clicks.count == 9, "\(clicks)")
        for (index, time) in clicks.enumerated() {
            #expect(abs(time - Double(index) * 0.5) <= 0.001, "click \(index) at \(time) s")
        }
        // The music is the rest of the track after 0.3 s: the capture is 1.8 s of count-in and 2.7 s of track.
        #expect(abs(Double(captured.count / 2) / 44_100 - 4.5) < 0.001)
    }
}
