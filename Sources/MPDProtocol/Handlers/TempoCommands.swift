import FermataCore
import Glibc

/// Fermata's commands for how the music is played back while practising: `tempo [PERCENT|+N|-N]` (speed without pitch
/// change, 50–150; without an argument prints `tempo: N`), `transpose [SEMITONES]` (pitch without tempo change: -12.5
/// to +12.5, two decimals at most — 0.01 is a cent), `speed_trainer START STEP EVERY CEILING` / `speed_trainer off`,
/// `count_in BEATS [BPM|tag] [each]` / `count_in off` (clicks before play starts, and with `each` before every loop
/// pass; `tag` or no BPM: the file's BPM tag, else 100), `bpm [N [OFFSET]|off]` and `tap_tempo` (the track's beat, for
/// the count-in, the click and `loop_last N bars`), `metronome [on [BEATS [LEVEL]]|off]` (the click over the track).
///
/// Stateless; run on the executing command's task.
enum TempoCommands {
    static func tempo(_ c: inout CommandContext) async throws {
        guard let text = c.argument(0) else {
            c.response.line("tempo", try await c.backend.status().player.tempoPercent)
            return
        }
        let relative = text.hasPrefix("+") || text.hasPrefix("-")
        // A change beyond ±100 could only clamp; bounding it keeps the player's sum from overflowing.
        let value = try ArgumentParser.percent(
            text, in: relative ? -100...100 : 50...150, "tempo must be a percentage (50-150) or +N/-N")
        try await c.backend.perform(relative ? .changeTempo(by: value) : .setTempo(percent: value))
    }

    static func transpose(_ c: inout CommandContext) async throws {
        guard let text = c.argument(0) else {
            c.response.line("transpose", Transposition.semitonesText(cents: try await c.backend.status().player.transposeCents))
            return
        }
        guard let cents = Transposition.cents(semitones: text) else {
            throw MPDError.badArgument("transpose takes semitones from -12.5 to +12.5 (at most two decimals)")
        }
        try await c.backend.perform(.setTranspose(cents: cents))
    }

    /// `speed_trainer START STEP EVERY TARGET [fallback]`, `speed_trainer off`, `speed_trainer again`.
    static func speedTrainer(_ c: inout CommandContext) async throws {
        switch c.arguments {
        case ["off"]: try await c.backend.perform(.speedTrainer(nil))
        case ["again"]: try await c.backend.perform(.trainerAgain)
        default: try await c.backend.perform(.speedTrainer(try trainerPlan(c.arguments[...])))
        }
    }

    /// A step trainer's plan from its words, `START STEP EVERY TARGET [fallback]`, every number range-checked.
    static func trainerPlan(_ words: ArraySlice<String>) throws -> SpeedTrainerPlan {
        let usage = "speed_trainer START STEP EVERY TARGET [fallback], off, or again"
        guard (4...5).contains(words.count), words.count == 4 || words.last == "fallback" else {
            throw MPDError.badArgument(usage)
        }
        let w = Array(words)
        let tempos = "tempos must be 50-150 %"
        let steps = "step 1-50 %, every 1 to \(SpeedTrainerPlan.maxPassesPerStep) passes"
        let plan = SpeedTrainerPlan(
            startPercent: try ArgumentParser.percent(w[0], in: 50...150, tempos),
            stepPercent: try ArgumentParser.percent(w[1], in: 1...50, steps),
            everyPasses: try ArgumentParser.int(w[2], in: 1...SpeedTrainerPlan.maxPassesPerStep, steps),
            ceilingPercent: try ArgumentParser.percent(w[3], in: 50...150, tempos),
            fallsBack: w.count == 5)
        if let problem = plan.problem { throw MPDError.badArgument(problem) }
        return plan
    }

    static func countIn(_ c: inout CommandContext) async throws {
        if c.arguments == ["off"] || c.arguments == ["0"] {
            try await c.backend.perform(.countIn(nil))
            return
        }
        let usage = "count_in BEATS [BPM|tag] [each], or off"
        let beats = try ArgumentParser.int(c.arguments[0], in: 1...16, "count-in beats must be 1-16")
        // BEATS, then at most a tempo, then at most `each`, in that order: a word out of place (`count_in 4 each 100`,
        // `count_in 4 100 bogus`) is refused rather than ignored.
        var rest = c.arguments.dropFirst()
        let each = rest.last == "each"
        if each { rest.removeLast() }
        guard rest.count <= 1, !rest.contains("each") else { throw MPDError.badArgument(usage) }
        var bpm: Double?
        if let text = rest.first, text != "tag" {
            bpm = try ArgumentParser.number(
                text, in: 20...400, invalid: usage, outOfRange: "count-in tempo must be 20-400 BPM")
        }
        let plan = CountInPlan(beats: beats, bpm: bpm, beforeEachPass: each)
        if let problem = plan.problem { throw MPDError.badArgument(problem) }
        try await c.backend.perform(.countIn(plan))
    }

    /// `bpm [N [OFFSET]|off]`: the current track's beat (20–400, as tapped or set; OFFSET: its first beat, seconds
    /// into the track; `off` forgets it and the file's BPM tag counts); without an argument prints `bpm: N` (and
    /// `bpm_offset` when not 0) when one is set.
    static func bpm(_ c: inout CommandContext) async throws {
        guard let text = c.argument(0) else {
            if let beat = try await c.backend.status().player.beat { describe(beat, &c) }
            return
        }
        if text == "off" && c.arguments.count == 1 { return try await c.backend.perform(.setBeat(nil)) }
        let bpm = try ArgumentParser.number(text, in: CountInPlan.bpmRange, invalid: "bpm N [OFFSET] (20-400) or off",
                                            outOfRange: "a beat must be 20-400 BPM")
        let offset = c.argument(1) == nil ? 0 : try ArgumentParser.number(
            c.arguments[1], in: 0...60, invalid: "bpm N [OFFSET] (20-400) or off",
            outOfRange: "the first beat falls 0 to 60 seconds into the track")
        try await c.backend.perform(.setBeat(TrackBeat(bpm: bpm, offsetSeconds: offset)))
    }

    /// `tap_tempo`: one tap, timed as the command arrives (a button's tap is timed by the kernel instead).
    static func tapTempo(_ c: inout CommandContext) async throws {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        try await c.backend.perform(.tapTempo(atNanoseconds: UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)))
    }

    /// `metronome [on [BEATS [LEVEL]]|off]`: the click over the track (BEATS per bar, 4; LEVEL 0.05–1, 1); without an
    /// argument prints `metronome: off` or `metronome: BEATS` and `metronome_level`.
    static func metronome(_ c: inout CommandContext) async throws {
        let usage = "metronome [on [BEATS [LEVEL]]|off]"
        switch c.argument(0) {
        case nil:
            if let plan = try await c.backend.status().player.metronome {
                c.response.line("metronome", plan.beatsPerBar)
                c.response.line("metronome_level", String(plan.level))
            } else {
                c.response.line("metronome", "off")
            }
        case "off" where c.arguments.count == 1: try await c.backend.perform(.metronome(nil))
        case "on":
            let beats = c.argument(1) == nil ? 4 : try ArgumentParser.int(c.arguments[1], in: 1...16, "a bar has 1 to 16 beats")
            let level = c.argument(2) == nil ? 1 : try ArgumentParser.number(
                c.arguments[2], in: 0.05...1, invalid: usage, outOfRange: "the click's level is 0.05 to 1")
            try await c.backend.perform(.metronome(MetronomePlan(beatsPerBar: beats, level: level)))
        default: throw MPDError.badArgument(usage)
        }
    }

    static func describe(_ beat: TrackBeat, _ c: inout CommandContext) {
        c.response.line("bpm", bpmText(beat.bpm))
        if beat.offsetSeconds != 0 { c.response.line("bpm_offset", seconds: beat.offsetSeconds) }
    }

    /// A beat to one decimal ("120", "92.5").
    static func bpmText(_ bpm: Double) -> String {
        let tenths = (bpm * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? String(Int(tenths / 10)) : String(tenths / 10)
    }
}
