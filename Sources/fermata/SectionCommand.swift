import ArgumentParser
import FermataCore
import Foundation

/// `fermata section [list] | save [NAME] | add NAME A B [--passes N] [--tempo P] | play N|NAME | next | prev |
/// delete N | queue NAME [FILE] | trainer N|NAME START STEP EVERY TARGET [--fallback] | trainer N|NAME off`: the
/// current track's named practice sections (positions from 1, times in seconds or m:ss); `queue` adds a section of the
/// current track (or of FILE) to the queue as an entry of its own; `trainer` keeps a step trainer with a section.
struct SectionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "section", abstract: "List, save, add, play or delete the current track's practice sections.")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "list, save [NAME], add NAME A B, play N|NAME, next, prev, delete N, or queue NAME [FILE].")
    var words: [String] = []
    @Option(help: "With add: how many times the section plays (1-1000; default: for ever).") var passes: Int?
    @Option(help: "With add: the section's tempo in percent (50-150).") var tempo: Int?
    @Flag(help: "With trainer: \"again\" falls back a step.") var fallback = false

    static let usage = "use: section [list] | save [NAME] | add NAME A B [--passes N] [--tempo P] | play N|NAME | "
        + "next | prev | delete N | queue NAME [FILE] | trainer N|NAME START STEP EVERY TARGET [--fallback] | trainer N|NAME off"

    /// The protocol line for the words, or nil for `list`.
    func line() throws -> String? {
        switch words.first ?? "list" {
        case "list" where words.count <= 1: return nil
        case "queue" where words.count == 2 || words.count == 3: return nil  // needs the current file: `run`
        case "save" where words.count <= 2: return "section_save" + (words.count == 2 ? " " + ControlConnection.quote(words[1]) : "")
        case "next" where words.count == 1: return "section_next"
        case "prev" where words.count == 1, "previous" where words.count == 1: return "section_previous"
        case "play" where words.count == 2: return "section_play " + ControlConnection.quote(words[1])
        case "trainer" where words.count == 3 && words[2] == "off" && !fallback:
            return "section_trainer \(ControlConnection.quote(words[1])) off"
        case "trainer" where words.count == 6:
            guard words[2...].allSatisfy({ Int($0).map { (0...1000).contains($0) } ?? false }) else {
                throw ValidationError("use: section trainer N|NAME START STEP EVERY TARGET [--fallback] (numbers)")
            }
            return "section_trainer \(ControlConnection.quote(words[1])) " + words[2...].joined(separator: " ")
                + (fallback ? " fallback" : "")
        case "delete" where words.count == 2:
            guard let n = Int(words[1]), (1...PracticeSection.maxPerTrack).contains(n) else {
                throw ValidationError("use: section delete N (from 1)")
            }
            return "section_delete \(n)"
        case "add" where words.count == 4:
            guard let a = SeekTime(words[2]), let b = SeekTime(words[3]), a.direction == .absolute,
                  b.direction == .absolute, b.seconds > a.seconds else {
                throw ValidationError("use: section add NAME A B with 0 <= A < B, in seconds or m:ss")
            }
            guard let section = PracticeSection(name: words[1], startSeconds: a.seconds, endSeconds: b.seconds,
                                                passes: passes, tempoPercent: tempo) else {
                throw ValidationError("a section runs from 0 or later to a later end, within 24 hours")
            }
            if let problem = section.problem { throw ValidationError(problem) }
            let tail = (passes.map { " \($0)" } ?? (tempo == nil ? "" : " forever")) + (tempo.map { " \($0)" } ?? "")
            return "section_add \(ControlConnection.quote(words[1])) \(a.seconds) \(b.seconds)" + tail
        default: throw ValidationError(Self.usage)
        }
    }

    func validate() throws {
        if (passes != nil || tempo != nil) && words.first != "add" { throw ValidationError("--passes and --tempo go with add") }
        if fallback && words.first != "trainer" { throw ValidationError("--fallback goes with trainer") }
        _ = try line()
    }

    func run() throws {
        try withConnection(connection) { client in
            if words.first == "queue" { return try queue(client) }
            if let line = try line() { _ = try client.command(line) }
            var sections: [[String: String]] = []
            var active: String?
            for (key, value) in try client.command("sections") {
                if key == "section" { sections.append([:]) }
                if key == "active_section" { active = value } else if !sections.isEmpty { sections[sections.count - 1][key] = value }
            }
            guard !sections.isEmpty else {
                return print("no sections on this track (loop a, loop b, then: fermata section save NAME)")
            }
            for (index, section) in sections.enumerated() {
                let mark = active == String(index + 1) ? "▶" : " "
                let passes = section["passes"].map { "  ×\($0)" } ?? "  for ever"
                let tempo = section["tempo"].map { "  \($0) %" } ?? ""
                let trainer = section["trainer"].map { "  trainer \($0)" } ?? ""
                print("\(mark) \(index + 1). \(section["section"] ?? "?")  \(section["start"] ?? "?")-\(section["end"] ?? "?") s"
                      + passes + tempo + trainer)
            }
        }
    }

    /// `section queue NAME [FILE]`: the section of FILE (default: the current track) as a queue entry of its own.
    private func queue(_ client: ControlConnection) throws {
        let name = words[1]
        var file = words.count == 3 ? words[2] : nil
        if file == nil { file = try client.command("currentsong").first { $0.0 == "file" }?.1 }
        guard let file else { throw ValidationError("nothing is playing: name the file, section queue NAME FILE") }
        let answer = try client.command("section_queue \(ControlConnection.quote(file)) \(ControlConnection.quote(name))")
        print("queued \(name) of \(file) (id \(answer.first { $0.0 == "Id" }?.1 ?? "?"))")
    }
}
