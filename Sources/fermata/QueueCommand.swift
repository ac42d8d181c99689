import ArgumentParser
import Foundation

/// `fermata queue list|add|rm|move|clear|shuffle`.
struct QueueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue", abstract: "Show and edit the queue.",
        subcommands: [List.self, Add.self, Remove.self, Move.self, Clear.self, Shuffle.self], defaultSubcommand: List.self)

    /// `fermata queue list`: one line per entry, `>` marks the current one.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the queue.")
        @OptionGroup var connection: ConnectionOptions
        func run() throws {
            try withConnection(connection) { client in
                let current = dictionary(try client.command("status"))["songid"]
                print(Self.format(try client.command("playlistinfo"), current: current), terminator: "")
            }
        }

        static func format(_ pairs: [(key: String, value: String)], current: String?) -> String {
            var songs: [[String: String]] = []
            for (key, value) in pairs {
                if key == "file" { songs.append([:]) }
                if !songs.isEmpty, songs[songs.count - 1][key] == nil { songs[songs.count - 1][key] = value }
            }
            return songs.enumerated().map { index, song in
                let title = [song["Artist"], song["Title"]].compactMap { $0 }.joined(separator: " - ")
                let time = song["duration"].flatMap(Double.init).map { "  " + clock($0) } ?? ""
                let mark = song["Id"] == current && current != nil ? ">" : " "
                // A part of the file: the section's name (or the range), its passes and tempo.
                var part = song["Section"].map { "  [\($0)" } ?? song["Range"].map { "  [\($0) s" } ?? ""
                if !part.isEmpty {
                    part += (song["Passes"].map { " ×\($0)" } ?? "") + (song["Tempo"].map { " \($0) %" } ?? "") + "]"
                }
                return String(format: "%@%4d  ", mark, index + 1) + (title.isEmpty ? song["file"] ?? "" : title) + part + time
                    + "\n"
            }.joined()
        }
    }

    /// `fermata queue add URI...`: paths relative to the music directory (folders add everything inside), or network
    /// streams' http(s) URLs (queued without being fetched, as MPD's `add` does).
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Add files, folders or radio streams.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "Paths relative to the music directory, or a stream's http:// or https:// URL.") var uris: [String]
        func run() throws {
            try withConnection(connection) { client in
                for uri in uris { _ = try client.command("add " + ControlConnection.quote(uri)) }
            }
        }
    }

    /// `fermata queue rm POSITION...` (1-based).
    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove entries by position.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "1-based positions.", transform: Remove.position) var positions: [QueuePosition]
        func run() throws {
            try withConnection(connection) { client in
                // Highest first, each once, so the positions still name the entries the user saw.
                for position in Set(positions).sorted(by: >) { _ = try client.command("delete \(position.index)") }
            }
        }

        static func position(_ text: String) throws -> QueuePosition {
            guard let position = QueuePosition(argument: text) else { throw ValidationError(QueuePosition.problem(text)) }
            return position
        }
    }

    /// `fermata queue move FROM TO` (1-based).
    struct Move: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "move", abstract: "Move an entry.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "1-based position of the entry.", transform: Remove.position) var from: QueuePosition
        @Argument(help: "1-based position it moves to.", transform: Remove.position) var to: QueuePosition
        func run() throws { try SimpleCommand.send(connection, "move \(from.index) \(to.index)") }
    }

    /// `fermata queue clear`.
    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "clear", abstract: "Empty the queue.")
        @OptionGroup var connection: ConnectionOptions
        func run() throws { try SimpleCommand.send(connection, "clear") }
    }

    /// `fermata queue shuffle [on|off]`: without an argument reorders the list once; on/off toggles shuffled play.
    struct Shuffle: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "shuffle",
                                                        abstract: "Shuffle the list once, or shuffled play on/off.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "on or off (shuffled play order, the list is kept).") var mode: String?
        func run() throws {
            switch mode {
            case nil: try SimpleCommand.send(connection, "shuffle")
            case "on": try SimpleCommand.send(connection, "random 1")
            case "off": try SimpleCommand.send(connection, "random 0")
            default: throw ValidationError("shuffle takes on, off or nothing")
            }
        }
    }
}

/// `fermata search TEXT`: case-insensitive search over artist, album, title and path.
struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "search", abstract: "Search the library.")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "Words to look for.") var words: [String]
    func run() throws {
        try withConnection(connection) { client in
            let pairs = try client.command("search any " + ControlConnection.quote(words.joined(separator: " ")))
            for (key, value) in pairs where key == "file" { print(value) }
        }
    }
}

/// `fermata loop a|b|clear|cycle|again [SECONDS]|nudge a|b MS|set A B [COUNT]`.
struct LoopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "loop", abstract: "Set, nudge or clear the A-B loop.")
    @OptionGroup var connection: ConnectionOptions
    // `.allUnrecognized`: `loop nudge a -5` is a signed step, not an unknown option (as `seek -5`, `volume -5`).
    @Argument(parsing: .allUnrecognized,
              help: "a, b, clear, cycle, again [SECONDS], again N bars [BEATS], nudge a|b MS, or set A B [COUNT] (seconds).")
    var words: [String]
    /// `words` without the `--` typed before a negative number (`.allUnrecognized` keeps it).
    var arguments: [String] { SignedWords.dropTerminator(words) }

    func run() throws {
        let line: String
        // One word for a, b, clear and cycle: `.allUnrecognized` hands a mistyped option (`--sokcet`) over as a word.
        switch arguments.first {
        case "a" where arguments.count == 1: line = "loop_a"
        case "b" where arguments.count == 1: line = "loop_b"
        case "clear" where arguments.count == 1: line = "loop_clear"
        case "cycle" where arguments.count == 1: line = "loop_cycle"
        case "again" where arguments.count == 3 && arguments[2] == "bars",
             "again" where arguments.count == 4 && arguments[2] == "bars":
            // "Again!" by bars: the last N bars (of BEATS beats, 4 by default) at the track's beat.
            guard let bars = Int(arguments[1]), (1...64).contains(bars) else {
                throw ValidationError("use: loop again N bars [BEATS] (1 to 64 bars of 1 to 16 beats)")
            }
            let beats = arguments.count == 4 ? Int(arguments[3]) : 4
            guard let beats, (1...16).contains(beats) else {
                throw ValidationError("use: loop again N bars [BEATS] (1 to 64 bars of 1 to 16 beats)")
            }
            line = "loop_last \(bars) bars \(beats)"
        case "again" where arguments.count <= 2:
            // "Again!": the last SECONDS heard (8 by default) loop; again, straight playback.
            let seconds = arguments.count == 2 ? Double(arguments[1]) : 8
            guard let seconds, seconds.isFinite, (0.5...600).contains(seconds) else {
                throw ValidationError("use: loop again [SECONDS] (0.5 to 600)")
            }
            line = "loop_last \(seconds)"
        case "nudge" where arguments.count == 3:
            // A range check, not `abs`: `abs(Int.min)` traps.
            guard ["a", "b"].contains(arguments[1]), let ms = Int(arguments[2]), (-600_000...600_000).contains(ms) else {
                throw ValidationError("use: loop nudge a|b MS (signed milliseconds, at most 600000)")
            }
            line = "loop_nudge \(arguments[1]) \(ms)"
        case "set" where (3...4).contains(arguments.count):
            guard let a = SeekTime(arguments[1]), let b = SeekTime(arguments[2]), a.direction == .absolute,
                  b.direction == .absolute, b.seconds > a.seconds else {
                throw ValidationError("use: loop set A B [COUNT] with 0 <= A < B, in seconds or m:ss")
            }
            let count = arguments.count == 4 ? Int(arguments[3]) : nil
            if arguments.count == 4, !(0...1_000_000).contains(count ?? -1) {
                throw ValidationError("COUNT must be a whole number from 0 to 1000000")
            }
            line = "loop_set \(a.seconds) \(b.seconds)" + (count.map { " \($0)" } ?? "")
        default:
            throw ValidationError(
                "use: loop a | b | clear | cycle | again [SECONDS] | again N bars [BEATS] | nudge a|b MS | set A B [COUNT]")
        }
        try SimpleCommand.send(connection, line)
    }
}
