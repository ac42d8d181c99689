import FermataCore
import Glibc

/// Fermata's own commands for what MPD lacks, under names MPD does not use (other clients never send them):
/// the A–B practice loop.
///
/// `loop_a`, `loop_b` (set an end at the heard sample), `loop_cycle` (the one-button A → B → clear cycle),
/// `loop_clear`, `loop_nudge a|b MS` (signed milliseconds), `loop_set START END [COUNT]` (seconds; COUNT limits the
/// jumps back) and `loop_status` (`loop_start`/`loop_end` in seconds, `loop_repeat`, `loop_pending_a`, `tempo`);
/// `tempo [PERCENT|+N|-N]` (speed without pitch change, 50–150; without an argument prints `tempo: N`) and
/// `speed_trainer START STEP EVERY CEILING` / `speed_trainer off`; `count_in BEATS [BPM|tag] [each]` / `count_in off`
/// (clicks before play starts, and with `each` before every loop pass; `tag` or no BPM: the file's BPM tag, else 100);
/// `bpm [N|off]` and `tap_tempo` (the track's beat, for the count-in and `loop_last N bars`);
/// `transpose [SEMITONES]` (pitch without tempo change: -12.5 to +12.5, two decimals at most — 0.01 is a cent;
/// without an argument prints `transpose: N`).
/// Stateless; run on the executing command's task.
enum FermataCommands {
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

    private static func describe(_ beat: TrackBeat, _ c: inout CommandContext) {
        c.response.line("bpm", bpmText(beat.bpm))
        if beat.offsetSeconds != 0 { c.response.line("bpm_offset", seconds: beat.offsetSeconds) }
    }

    /// `tap_tempo`: one tap, timed as the command arrives (a button's tap is timed by the kernel instead).
    static func tapTempo(_ c: inout CommandContext) async throws {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        try await c.backend.perform(.tapTempo(atNanoseconds: UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)))
    }

    /// `sections`: the current track's sections, one block each (`section`, `start`, `end`, `passes`, `tempo`), and
    /// `active_section` (from 1) when the loop is one of them.
    static func sections(_ c: inout CommandContext) async throws {
        let player = try await c.backend.status().player
        for section in player.sections { describe(section, &c) }
        if let active = player.activeSection { c.response.line("active_section", active + 1) }
    }

    /// `section_save [NAME]`: the A–B loop, its passes and the tempo as a section ("section N" without a name).
    static func sectionSave(_ c: inout CommandContext) async throws {
        _ = try await c.backend.editSections(.saveLoop(name: c.argument(0)))
    }

    /// `section_add NAME START END [PASSES|forever [TEMPO]]` (seconds).
    static func sectionAdd(_ c: inout CommandContext) async throws {
        let (start, end) = (try c.seconds(1), try c.seconds(2))
        var passes: Int?
        if let text = c.argument(3), text != "forever" {
            passes = try ArgumentParser.int(text, in: 1...1000, "a section plays 1 to 1000 times")
        }
        let tempo = c.argument(4) == nil
            ? nil : try ArgumentParser.percent(c.arguments[4], in: 50...150, "a section's tempo is 50-150 %")
        guard let section = PracticeSection(name: c.arguments[0], startSeconds: start, endSeconds: end, passes: passes,
                                            tempoPercent: tempo) else {
            throw MPDError.badArgument("a section runs from 0 or later to a later end, within 24 hours")
        }
        if let problem = section.problem { throw MPDError.badArgument(problem) }
        _ = try await c.backend.editSections(.add(section))
    }

    /// `section_queue URI NAME [POSITION]`: queues the track's section NAME as an entry of its own (its part of the
    /// file, its passes and tempo, then on to the next entry); answers `Id:` as `addid`. A stored playlist saved from
    /// the queue keeps it by name.
    static func sectionQueue(_ c: inout CommandContext) async throws {
        let uri = try c.uri(0, unsafe: .noSuchSong())
        let name = c.arguments[1]
        let position = c.argument(2) == nil ? QueueInsertPosition.end : try c.insertPosition(2)
        guard let section = try await c.backend.sections(of: uri).first(where: { $0.name == name }) else {
            throw MPDError(.noExist, "this track has no section named \(name)")
        }
        let ids = try await c.backend.editQueue(.add(.part(uri: uri, PlaySpan(section: section)), at: position))
        guard let id = ids.first else { throw MPDError.noSuchSong() }
        c.response.line("Id", id)
    }

    /// `section_delete N` (from 1).
    static func sectionDelete(_ c: inout CommandContext) async throws {
        let position = try ArgumentParser.int(c.arguments[0], in: 1...PracticeSection.maxPerTrack, "sections count from 1")
        _ = try await c.backend.editSections(.delete(position - 1))
    }

    /// `section_play N|NAME` (N from 1), `section_next`, `section_previous`.
    static func sectionPlay(_ c: inout CommandContext) async throws {
        let text = c.arguments[0]
        let choice: SectionChoice = if Int(text) != nil {
            .index(try ArgumentParser.int(text, in: 1...PracticeSection.maxPerTrack, "sections count from 1") - 1)
        } else {
            .named(text)
        }
        try await c.backend.perform(.playSection(choice))
    }

    static func sectionNext(_ c: inout CommandContext) async throws { try await c.backend.perform(.playSection(.next)) }
    static func sectionPrevious(_ c: inout CommandContext) async throws {
        try await c.backend.perform(.playSection(.previous))
    }

    private static func describe(_ section: PracticeSection, _ c: inout CommandContext) {
        c.response.line("section", section.name)
        c.response.line("start", seconds: Double(section.startMilliseconds) / 1000)
        c.response.line("end", seconds: Double(section.endMilliseconds) / 1000)
        if let passes = section.passes { c.response.line("passes", passes) }
        if let tempo = section.tempoPercent { c.response.line("tempo", tempo) }
    }

    /// A beat to one decimal ("120", "92.5").
    static func bpmText(_ bpm: Double) -> String {
        let tenths = (bpm * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? String(Int(tenths / 10)) : String(tenths / 10)
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
        }
        if let pending = player.loopPendingA { c.response.line("loop_pending_a", seconds: Double(pending) / rate) }
        c.response.line("tempo", player.tempoPercent)
        c.response.line("transpose", Transposition.semitonesText(cents: player.transposeCents))
        if let beat = player.beat { describe(beat, &c) }
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

    /// `announce [TEXT]`: speak TEXT, or what is playing.
    static func announce(_ c: inout CommandContext) async throws {
        let text = c.arguments.isEmpty ? nil : c.arguments.joined(separator: " ")
        let limit = ControlAction.maxAnnouncementCharacters
        if let text, text.count > limit {
            throw MPDError(.argument, "announcement text is limited to \(limit) characters (got \(text.count))")
        }
        try await c.backend.perform(.announce(text))
    }

    /// `announce_mode over|before [tracks]`: ducked over the music or before it; `tracks`: at every track change.
    static func announceMode(_ c: inout CommandContext) async throws {
        guard ["over", "before"].contains(c.arguments[0]), c.arguments.dropFirst().allSatisfy({ $0 == "tracks" }) else {
            throw MPDError.badArgument("announce_mode over|before [tracks]")
        }
        try await c.backend.perform(.setAnnouncements(duck: c.arguments[0] == "over", onTrackChange: c.arguments.count == 2))
    }

    static func speedTrainer(_ c: inout CommandContext) async throws {
        if c.arguments.count == 1, c.arguments[0] == "off" {
            try await c.backend.perform(.speedTrainer(nil))
            return
        }
        guard c.arguments.count == 4 else { throw MPDError.badArgument("speed_trainer START STEP EVERY CEILING, or off") }
        let tempos = "tempos must be 50-150 %"
        let steps = "step 1-50 %, every 1 or more passes"
        let plan = SpeedTrainerPlan(
            startPercent: try ArgumentParser.percent(c.arguments[0], in: 50...150, tempos),
            stepPercent: try ArgumentParser.percent(c.arguments[1], in: 1...50, steps),
            everyPasses: try ArgumentParser.int(c.arguments[2], in: 1...Int(Int32.max), steps),
            ceilingPercent: try ArgumentParser.percent(c.arguments[3], in: 50...150, tempos))
        if let problem = plan.problem { throw MPDError.badArgument(problem) }
        try await c.backend.perform(.speedTrainer(plan))
    }
}

extension FermataCommands {
    /// `scan_status`: `scan_job`, `scan_phase`, `scan_files_seen`, `scan_files_read`, `scan_errors`, `scan_elapsed`
    /// (seconds), then the last finished scan's counts as `last_KEY` lines.
    static func scanStatus(_ c: inout CommandContext) async throws {
        let report = try await c.backend.scanReport()
        c.response.line("scan_job", report.job)
        c.response.line("scan_phase", report.phase)
        c.response.line("scan_files_seen", report.filesSeen)
        c.response.line("scan_files_read", report.filesRead)
        c.response.line("scan_errors", report.errors)
        c.response.line("scan_elapsed", seconds: report.elapsed)
        for (key, value) in report.lastSummary { c.response.line("last_" + key, value) }
    }
}

extension FermataCommands {
    /// `scan_issues`: for each file the library holds an issue for, `file`, `issue` (its kind) and `reason` lines;
    /// `fermata scan` and `fermata doctor` name the files Fermata cannot play from it.
    static func scanIssues(_ c: inout CommandContext) async throws {
        for issue in try await c.backend.scanIssues() {
            c.response.line("file", issue.path)
            c.response.line("issue", issue.kind)
            c.response.line("reason", issue.reason)
        }
    }
}

extension FermataCommands {
    /// `cards`: for each card, `card`, `play` (`playlist:NAME`, `album:NAME`, `folder:PATH` or `action:ACTION`),
    /// `volume_max` when it has one, and `origin` ("FILE:LINE" or "assigned"); then `active_card` (whose music is in
    /// the queue) and `unknown_card` with `unknown_card_seconds_ago` (the last card read that is bound to nothing).
    static func cards(_ c: inout CommandContext) async throws {
        let report = try await c.backend.cards()
        for card in report.cards {
            c.response.line("card", card.id)
            c.response.line("play", card.target.description)
            if let cap = card.volumeMax { c.response.line("volume_max", String(cap)) }
            c.response.line("origin", card.origin)
        }
        if let active = report.active { c.response.line("active_card", active) }
        if let unknown = report.unknown {
            c.response.line("unknown_card", unknown.id)
            c.response.line("unknown_card_seconds_ago", String(unknown.secondsAgo))
        }
    }

    /// `cardassign ID TARGET [VOLUME_MAX]`.
    static func cardAssign(_ c: inout CommandContext) async throws {
        let id = try cardID(c.arguments[0])
        let target = try cardTarget(c.arguments[1])
        let cap = try c.arguments.count > 2 ? ArgumentParser.int(c.arguments[2], in: 0...100) : nil
        try await c.backend.editCards(.assign(id: id, target: target, volumeMax: cap))
    }

    /// `cardlearn TARGET [VOLUME_MAX]`: binds the last unknown card read.
    static func cardLearn(_ c: inout CommandContext) async throws {
        let target = try cardTarget(c.arguments[0])
        let cap = try c.arguments.count > 1 ? ArgumentParser.int(c.arguments[1], in: 0...100) : nil
        try await c.backend.editCards(.learn(target: target, volumeMax: cap))
    }

    /// `cardforget ID`: unbinds an assigned card (a card of the configuration stays until the file changes).
    static func cardForget(_ c: inout CommandContext) async throws {
        try await c.backend.editCards(.forget(id: try cardID(c.arguments[0])))
    }

    /// `cardread ID`: does what reading the card would do.
    static func cardRead(_ c: inout CommandContext) async throws {
        try await c.backend.editCards(.read(id: try cardID(c.arguments[0])))
    }

    static func cardID(_ text: String) throws(MPDError) -> String {
        guard let id = CardBinding.normalized(text) else {
            throw MPDError(.argument, "a card id is 1 to \(CardBinding.maxIDLength) digits or letters A-F")
        }
        return id
    }

    static func cardTarget(_ text: String) throws(MPDError) -> CardTarget {
        guard let target = CardTarget(parsing: text) else { throw MPDError(.argument, CardTarget.expected) }
        return target
    }
}
