/// The click over the track: a click on every beat of the track's grid — its beat (tapped or set, with the first
/// beat's offset) or else its file's BPM tag (first beat at 0) — mixed under the music, beat one of each bar accented,
/// following the tempo; with a count-in, the count-in lands on the same grid.
///
/// A value; any thread.
public struct MetronomePlan: Sendable, Hashable {
    /// Beats in a bar (1–16): beat one is accented.
    public var beatsPerBar: Int
    /// The click's loudness, 0.05–1 (1: as loud as the count-in).
    public var level: Double

    public init(beatsPerBar: Int = 4, level: Double = 1) {
        self.beatsPerBar = beatsPerBar
        self.level = level
    }

    /// Nil when usable.
    public var problem: String? {
        guard (1...16).contains(beatsPerBar) else { return "a bar has 1 to 16 beats" }
        guard level.isFinite, (0.05...1).contains(level) else { return "the click's level is 0.05 to 1" }
        return nil
    }
}

/// A track's beat grid: its tempo in beats per minute and where its first beat falls, in seconds of the track. The
/// listener's (tapped or set) or, without one, the file's BPM tag with its first beat at 0.
///
/// A value; any thread.
public struct TrackBeat: Sendable, Hashable {
    public var bpm: Double
    public var offsetSeconds: Double

    public init(bpm: Double, offsetSeconds: Double = 0) {
        self.bpm = bpm
        self.offsetSeconds = offsetSeconds
    }

    /// Nil when usable: 20–400 BPM (`CountInPlan.bpmRange`), the first beat within the first minute.
    public var problem: String? {
        guard bpm.isFinite, CountInPlan.bpmRange.contains(bpm) else { return "a beat must be 20-400 BPM" }
        guard offsetSeconds.isFinite, (0...60).contains(offsetSeconds) else {
            return "the first beat falls 0 to 60 seconds into the track"
        }
        return nil
    }
}
