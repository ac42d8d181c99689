@testable import Engine
import FermataCore
import Testing

/// The click grid's arithmetic on its own: where beats fall in stretches of device frames at any ratio, that
/// consecutive stretches share no beat and miss none, the accents, a pickup before the first beat, and how far the
/// next beat is (the count-in's lead).
@Suite struct MetronomeGridTests {
    static func onsets(_ grid: ClickGrid, start: Double, ratio: Double, count: Int) -> [(Int, Bool)] {
        var found: [(Int, Bool)] = []
        grid.forEachOnset(start: start, ratio: ratio, count: count) { found.append(($0, $1)) }
        return found
    }

    @Test func beatsFallOnTheFirstDeviceFrameAtOrAfterThemWithBarOnesAccented() throws {
        // 120 BPM at 44.1 kHz: a beat every 22 050 frames from 11 025 (0.25 s).
        let grid = try #require(ClickGrid(beat: TrackBeat(bpm: 120, offsetSeconds: 0.25), sourceRate: 44_100,
                                          beatsPerBar: 4))
        let at100 = Self.onsets(grid, start: 0, ratio: 1, count: 44_100 * 3)
        #expect(at100.map(\.0) == [11_025, 33_075, 55_125, 77_175, 99_225, 121_275])
        #expect(at100.map(\.1) == [true, false, false, false, true, false])
        // At 75 %: 0.75 source frames per device frame, each beat 1/0.75 as far.
        let at75 = Self.onsets(grid, start: 0, ratio: 0.75, count: 44_100 * 3)
        #expect(at75.map(\.0) == [14_700, 44_100, 73_500, 102_900])
        // A pickup: with the first beat at 1.25 s, the grid goes on backwards, and the bar count with it.
        let pickup = try #require(ClickGrid(beat: TrackBeat(bpm: 120, offsetSeconds: 1.25), sourceRate: 44_100,
                                            beatsPerBar: 4))
        #expect(Self.onsets(pickup, start: 0, ratio: 1, count: 66_150).map(\.1) == [false, false, true])
    }

    @Test func consecutiveStretchesShareNoBeatAndMissNone() throws {
        let grid = try #require(ClickGrid(beat: TrackBeat(bpm: 173.3, offsetSeconds: 0.011), sourceRate: 48_000,
                                          beatsPerBar: 3))
        for ratio in [1.0, 0.75, 1.5, 44_100.0 / 48_000 * 0.85] {
            let whole = Self.onsets(grid, start: 1_000.5, ratio: ratio, count: 200_000).map(\.0)
            var pieces: [Int] = [], done = 0
            var size = 1
            while done < 200_000 {
                let count = min(size, 200_000 - done)
                pieces += Self.onsets(grid, start: 1_000.5 + Double(done) * ratio, ratio: ratio, count: count)
                    .map { $0.0 + done }
                done += count
                size = size * 7 % 4_099 + 1  // stretches of every size, 1 frame included
            }
            #expect(pieces == whole, "ratio \(ratio)")
            #expect(!whole.isEmpty)
        }
    }

    @Test func theNextBeatAndNothingFromNonsense() throws {
        let grid = try #require(ClickGrid(beat: TrackBeat(bpm: 120), sourceRate: 44_100, beatsPerBar: 4))
        #expect(grid.framesToNextBeat(from: 0.3 * 44_100, ratio: 1) == 8_820, "0.2 s to the beat at 0.5 s")
        #expect(grid.framesToNextBeat(from: 0.3 * 44_100, ratio: 0.75) == 11_760, "at 75 %: 0.2 / 0.75 s")
        #expect(grid.framesToNextBeat(from: 22_050, ratio: 1) == 0, "on a beat")
        #expect(ClickGrid(beat: TrackBeat(bpm: .nan), sourceRate: 44_100, beatsPerBar: 4) == nil)
        #expect(ClickGrid(beat: TrackBeat(bpm: 120), sourceRate: 44_100, beatsPerBar: 0) == nil)
        #expect(Self.onsets(grid, start: .infinity, ratio: 1, count: 10).isEmpty)
        #expect(Self.onsets(grid, start: 1e300, ratio: 1, count: 10).isEmpty)
        #expect(Self.onsets(grid, start: 0, ratio: 0, count: 10).isEmpty, "a count-in holds the position: no beats")
    }
}
