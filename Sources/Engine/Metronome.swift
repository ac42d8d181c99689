import AudioCore
import FermataCore

/// The click over the track as the engine plays it: the listener's plan, and the listener's beat for one entry (every
/// other entry clicks at its file's BPM tag, first beat at 0). Sent by the player (`PlaybackEngine.setMetronome`);
/// the decoder thread mixes the clicks and lines the count-in up with the same grid.
public struct MetronomeSetting: Sendable, Equatable {
    /// The listener's beat and the entry it belongs to.
    public struct EntryGrid: Sendable, Equatable {
        public var entry: EntryID
        public var beat: TrackBeat

        public init(entry: EntryID, beat: TrackBeat) {
            self.entry = entry
            self.beat = beat
        }
    }

    public var plan: MetronomePlan
    public var beat: EntryGrid?

    public init(plan: MetronomePlan, beat: EntryGrid?) {
        self.plan = plan
        self.beat = beat
    }

    /// The grid `entry` clicks on: the listener's beat when it is that entry's, else its file's tag (first beat at 0);
    /// nil when neither is usable.
    func beat(for entry: EntryID, tagged: Double?) -> TrackBeat? {
        if let beat, beat.entry == entry { return beat.beat }
        return tagged.map { TrackBeat(bpm: $0) }.flatMap { $0.problem == nil ? $0 : nil }
    }
}

/// A beat grid in source frames (beat k at `first + k × interval`) and where its beats fall in a stretch of device
/// frames: pure arithmetic, tested on its own (`MetronomeGridTests`).
///
/// A value; the decoder thread's.
struct ClickGrid: Equatable {
    /// Source frame of beat 0 (earlier beats, a pickup, continue the grid backwards to the track's start).
    var first: Double
    /// Source frames per beat.
    var interval: Double
    var beatsPerBar: Int

    init?(beat: TrackBeat, sourceRate: Int, beatsPerBar: Int) {
        let interval = 60 / beat.bpm * Double(sourceRate)
        guard beat.problem == nil, interval.isFinite, interval >= 1, beatsPerBar >= 1 else { return nil }
        first = beat.offsetSeconds * Double(sourceRate)
        self.interval = interval
        self.beatsPerBar = beatsPerBar
    }

    /// Calls `body(offset, accented)` for each beat whose onset falls in device frames `0..<count` of a stretch that
    /// begins at source frame `start` and advances `ratio` source frames per device frame, in order. A beat's onset is
    /// the first device frame at or after it, so consecutive stretches share no beat and miss none.
    func forEachOnset(start: Double, ratio: Double, count: Int, _ body: (Int, Bool) -> Void) {
        guard ratio > 0, count > 0, start.isFinite, ratio.isFinite else { return }
        let low = start - ratio, high = start + Double(count - 1) * ratio  // the beats in (low, high]
        let firstBeat = ((low - first) / interval).rounded(.down) + 1
        guard firstBeat.isFinite, abs(firstBeat) < 1e12 else { return }
        var k = Int(firstBeat)
        while true {
            let frame = first + Double(k) * interval
            if frame > high { break }
            if frame >= 0 {
                let offset = Int(((frame - start) / ratio).rounded(.up))
                body(min(count - 1, max(0, offset)), ((k % beatsPerBar) + beatsPerBar) % beatsPerBar == 0)
            }
            k += 1
        }
    }

    /// Whether a beat's onset falls in that stretch (`forEachOnset` would call its body).
    func hasOnset(start: Double, ratio: Double, count: Int) -> Bool {
        var found = false
        forEachOnset(start: start, ratio: ratio, count: count) { _, _ in found = true }
        return found
    }

    /// Device frames from source frame `start` to the next beat at or after it, at `ratio` source frames per device
    /// frame (a count-in that lines up with the grid is this much shorter).
    func framesToNextBeat(from start: Double, ratio: Double) -> Int {
        guard ratio > 0 else { return 0 }
        let next = ((start - first) / interval).rounded(.up)
        guard next.isFinite, abs(next) < 1e12 else { return 0 }
        let frames = (first + next * interval - start) / ratio
        return frames.isFinite && abs(frames) < 1e12 ? max(0, Int(frames.rounded())) : 0
    }
}

/// Where the beats of the track being written fall from one ring position on: its grid, the source frame there, the
/// source frames per device frame, and the click's level and length (device frames). The decoder thread's.
struct ClickStretch {
    var grid: ClickGrid
    var start: Double
    var ratio: Double
    var level: Float
    var length: Int
}

/// One click sounding: how far into it the output is.
struct ClickVoice: Equatable {
    var accented: Bool
    var frame = 0
    var length: Int
}
