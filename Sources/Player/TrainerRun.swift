import FermataCore

/// The step trainer as the player knows it: the plan running (nil: none) and the last one started (the `trainer`
/// key starts it again), the tempo changes the decoder made at seams the listener has not heard yet (each applies when
/// its pass is heard, so `status` shows the tempo heard), and the last loop pass heard to its end with its tempo —
/// what the practice statistics record as the tempo reached.
///
/// Threads: a value, part of `PlayerState`.
struct TrainerRun: Equatable {
    var plan: SpeedTrainerPlan?
    var lastPlan: SpeedTrainerPlan?
    /// Tempo changes decided ahead of the listener, oldest first (a handful at most: the decoder is seconds ahead).
    private(set) var scheduled: [PassTempo] = []
    /// The last pass heard to its end (nil: none since the loop or the entry changed).
    private(set) var completed: PassTempo?
    /// The pass heard now, for a schedule that arrives after its pass (events from two threads).
    private var heard: PassTempo?

    /// Pass `pass` of `entry` at `percent`.
    struct PassTempo: Equatable {
        var entry: EntryID
        var pass: Int
        var percent: Int
    }

    /// The decoder set pass `pass` of `entry` to `percent`; returns the tempo to show now when that pass is already
    /// heard.
    mutating func schedule(_ change: PassTempo) -> Int? {
        if let heard, heard.entry == change.entry, heard.pass >= change.pass { return change.percent }
        scheduled.append(change)
        if scheduled.count > 16 { scheduled.removeFirst(scheduled.count - 16) }
        return nil
    }

    /// Pass `pass` of `entry` is heard from now on; the pass before it ended at `percent` (the tempo shown until now).
    /// Returns the tempo to show from now on, when the decoder changed it at this seam.
    mutating func passHeard(entry: EntryID, pass: Int, endedAt percent: Int) -> Int? {
        if pass > 1 { completed = PassTempo(entry: entry, pass: pass - 1, percent: percent) }
        heard = PassTempo(entry: entry, pass: pass, percent: percent)
        guard let index = scheduled.lastIndex(where: { $0.entry == entry && $0.pass <= pass }) else { return nil }
        let change = scheduled[index]
        scheduled.removeFirst(index + 1)
        return change.percent
    }

    /// The listener changed the tempo: what the decoder scheduled ahead is spliced away.
    mutating func forgetScheduled() { scheduled.removeAll() }

    /// The loop changed: its passes count from 1 again, and none is complete yet.
    mutating func forgetPasses() {
        scheduled.removeAll()
        completed = nil
        heard = nil
    }
}
