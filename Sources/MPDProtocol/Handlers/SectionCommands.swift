import FermataCore

/// A track's named practice sections: `sections`, `section_save [NAME]`, `section_add`, `section_delete N`,
/// `section_play N|NAME`, `section_next`, `section_previous`, `section_queue URI NAME [POSITION]`,
/// `section_trainer N|NAME PLAN|off`.
///
/// Stateless; run on the executing command's task.
enum SectionCommands {
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

    static func describe(_ section: PracticeSection, _ c: inout CommandContext) {
        c.response.line("section", section.name)
        c.response.line("start", seconds: Double(section.startMilliseconds) / 1000)
        c.response.line("end", seconds: Double(section.endMilliseconds) / 1000)
        if let passes = section.passes { c.response.line("passes", passes) }
        if let tempo = section.tempoPercent { c.response.line("tempo", tempo) }
        if let plan = section.trainer { c.response.line("trainer", plan.words) }
    }

    /// `section_trainer N|NAME START STEP EVERY TARGET [fallback]`, or `section_trainer N|NAME off`: the step trainer
    /// the section climbs with when played, kept with it in the track's practice memory.
    static func sectionTrainer(_ c: inout CommandContext) async throws {
        let list = try await c.backend.status().player.sections
        let text = c.arguments[0]
        let index: Int
        if Int(text) != nil {
            index = try ArgumentParser.int(text, in: 1...PracticeSection.maxPerTrack, "sections count from 1") - 1
        } else if let found = list.firstIndex(where: { $0.name == text }) {
            index = found
        } else {
            throw MPDError(.noExist, "this track has no section named \(text)")
        }
        guard list.indices.contains(index) else {
            throw MPDError(.noExist, "no section \(index + 1): this track has \(list.count)")
        }
        var section = list[index]
        section.trainer = c.arguments[1...] == ["off"] ? nil : try TempoCommands.trainerPlan(c.arguments[1...])
        _ = try await c.backend.editSections(.replace(index, section))
    }
}
