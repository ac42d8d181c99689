import AudioCore
import FermataCore

/// The A–B loop settings the decoder machine applies at each seam: which entry loops over which region, the speed
/// trainer's steps, and the count-in before each pass. A value; it decides, the machine acts.
struct LoopPractice: Equatable {
    /// The entry and its region (nil: no loop).
    private(set) var setting: Setting?
    /// The step trainer on the loop, if one runs.
    var trainer: StepTrainer?
    /// The count-in before each pass, if any.
    var passCountIn: CountInPlan?

    struct Setting: Equatable {
        var entry: EntryID
        var region: LoopRegion
    }

    mutating func set(entry: EntryID, _ region: LoopRegion?) {
        setting = region.map { Setting(entry: entry, region: $0) }
    }

    /// The region in force for a track at `position` of `entry` after `passes` seams, if any: none once the decoder
    /// is past B (the loop was set behind it) or the repeat count is spent.
    func region(entry: EntryID, position: Int64, passes: Int) -> LoopRegion? {
        guard let setting, setting.entry == entry, setting.region.length > 0 else { return nil }
        if let limit = setting.region.repeatCount, passes >= limit { return nil }
        guard position <= setting.region.end else { return nil }
        return setting.region
    }

    /// The count-in to play before the next pass, if any.
    var seamCountIn: CountInPlan? {
        guard let plan = passCountIn, plan.beats > 0 else { return nil }
        return plan
    }

    /// The trainer's tempo for the next pass at a seam, if it changes there (`StepTrainer.passEnded`).
    mutating func trainedTempo() -> Double? { trainer?.passEnded() }

    /// The seam's crossfade length: `milliseconds` at the source rate, at most what the buffers hold and half a pass.
    static func fadeFrames(milliseconds: Int, format: AudioFormat, capacity: Int, region: LoopRegion) -> Int {
        let wanted = format.frames(forMilliseconds: max(0, milliseconds))
        return max(0, min(wanted, capacity - 1, Int(region.length / 2)))
    }
}
