import FermataCore

/// Fermata's A–B practice loop, under names MPD does not use (other clients never send them): `loop_a`, `loop_b` (set
/// an end at the heard sample), `loop_cycle` (the one-button A → B → clear cycle), `loop_clear`, `loop_last` ("Again!"),
/// `loop_nudge a|b MS` (signed milliseconds), `loop_set START END [COUNT]` (seconds; COUNT limits the jumps back) and
/// `loop_status` (`loop_start`/`loop_end` in seconds, `loop_repeat`, `loop_pending_a`, `tempo`, `transpose`, the beat).
///
/// Stateless; run on the executing command's task.
enum LoopCommands {
    static func loopA(_ c: inout CommandContext) async throws { try await c.backend.perform(.loopSetA) }

    static func loopB(_ c: inout CommandContext) async throws { try await c.backend.perform(.loopSetB) }

    static func loopCycle(_ c: inout CommandContext) async throws { try await c.backend.perform(.loopCycle) }

    static func loopClear(_ c: inout CommandContext) async throws { try await c.backend.perform(.loopClear) }

    /// `loop_last [SECONDS]` ("Again!", 8 s by default): loops the last SECONDS heard; `loop_last N bars [BEATS]`: the
    /// last N bars of BEATS beats (4) at the track's beat; with a loop set, clears it.
    static func loopLast(_ c: inout CommandContext) async throws {
        if c.argument(1) == "bars" {
            let bars = try ArgumentParser.int(c.arguments[0], in: 1...64, "loop_last takes 1 to 64 bars")
            let beats = c.argument(2) == nil
                ? 4 : try ArgumentParser.int(c.arguments[2], in: 1...16, "a bar has 1 to 16 beats")
            return try await c.backend.perform(.loopLastBars(bars, beatsPerBar: beats))
        }
        guard c.arguments.count <= 1 else { throw MPDError.badArgument("loop_last [SECONDS], or loop_last N bars [BEATS]") }
        let seconds = c.argument(0) == nil ? 8 : try c.seconds(0)
        guard (0.5...600).contains(seconds) else { throw MPDError.badArgument("loop_last takes 0.5 to 600 seconds") }
        try await c.backend.perform(.loopLast(seconds: seconds))
    }

    static func loopNudge(_ c: inout CommandContext) async throws {
        guard let endpoint = LoopEndpoint(rawValue: c.arguments[0].lowercased()) else {
            throw MPDError.badArgument("loop end must be \"a\" or \"b\"")
        }
        try await c.backend.perform(.loopNudge(endpoint, milliseconds: try c.milliseconds(1)))
    }

    static func loopSet(_ c: inout CommandContext) async throws {
        let (start, end) = (try c.seconds(0), try c.seconds(1))
        guard end > start else { throw MPDError.badArgument("loop end must be after its start") }
        let count = c.argument(2) == nil ? nil : try c.unsigned(2)
        try await c.backend.perform(.setLoop(startSeconds: start, endSeconds: end, repeatCount: count))
    }

    static func loopStatus(_ c: inout CommandContext) async throws {
        let player = try await c.backend.status().player
        let rate = Double(max(player.sourceSampleRate, 1))
        if let loop = player.loop {
            c.response.line("loop_start", seconds: Double(loop.start) / rate)
            c.response.line("loop_end", seconds: Double(loop.end) / rate)
            if let count = loop.repeatCount { c.response.line("loop_repeat", count) }
            if let pass = player.loopPass { c.response.line("loop_pass", pass) }
        }
        if let pending = player.loopPendingA { c.response.line("loop_pending_a", seconds: Double(pending) / rate) }
        c.response.line("tempo", player.tempoPercent)
        if let plan = player.trainer { c.response.line("trainer", plan.words) }
        if let reached = player.lastPassTempoPercent { c.response.line("pass_tempo", reached) }
        c.response.line("transpose", Transposition.semitonesText(cents: player.transposeCents))
        if let beat = player.beat { TempoCommands.describe(beat, &c) }
    }
}
