import ArgumentParser
import FermataCore
import Foundation
import MPDProtocol

/// `fermata record [on|off|status]`: recording yourself over a loop or a section (each pass a take). With no argument
/// or `status`, what it does: the device, on or off, capturing or waiting, the round trip measured, the last problem.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record", abstract: "Record yourself over the loop (on, off) or show what recording does (status).")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "on, off or status (the default).") var what: String = "status"

    func validate() throws {
        guard ["on", "off", "status"].contains(what) else { throw ValidationError("record takes on, off or status") }
    }

    func run() throws {
        try withConnection(connection) { client in
            let line = what == "status" ? "record" : "record \(what)"
            let status = dictionary(try client.command(line))
            let device = status["record_device"].flatMap { $0.isEmpty ? nil : $0 } ?? "none (set record.device)"
            print("recording: \(status["record"] == "1" ? "on" : "off"), \(status["record_phase"] ?? "?")"
                + (status["record_rate"].map { " at \($0) Hz" } ?? ""))
            print("capture device: \(device)")
            print("round trip: " + (status["record_latency_ms"].map { "\($0) ms" } ?? "not measured (fermata audio latency)"))
            if let error = status["record_error"] { print("last problem: \(error)") }
            print("takes kept: \(status["takes"] ?? "0")")
        }
    }
}

/// `fermata takes`: the takes recorded (`list`, of one track with `--file`), `delete ID`, `play ID` (alone;
/// `--alternate N`: the original's loop then the take, N times; `--balance TAKE%`: the take over the original).
struct TakesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "takes", abstract: "The takes recorded over loops: list, delete, play.",
        subcommands: [TakesList.self, TakesDelete.self, TakesPlay.self], defaultSubcommand: TakesList.self)
}

/// A take's id as typed, checked before anything is sent.
private func checkedTakeID(_ text: String) throws -> Int {
    guard let id = Int(text), (1...Int(Int32.max)).contains(id) else {
        throw ValidationError("a take id is a positive whole number (fermata takes lists them)")
    }
    return id
}

/// `fermata takes list [--file PATH]`: one line per take, newest first.
struct TakesList: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "The takes, newest first.")
    @OptionGroup var connection: ConnectionOptions
    @Option(help: "Only the takes of this track (its path in the library).") var file: String?

    func run() throws {
        try withConnection(connection) { client in
            var lines: [String] = []
            var take: [String: String] = [:]
            func flush() {
                guard let id = take["take"] else { return }
                lines.append("\(id)  \(take["date"] ?? "?")  \(take["file"] ?? "?")  loop \(take["loop_start"] ?? "?")–"
                    + "\(take["loop_end"] ?? "?") s  pass \(take["pass"] ?? "?")  tempo \(take["tempo"] ?? "?") %  "
                    + "\(take["duration"] ?? "?") s")
                take = [:]
            }
            let line = file.map { "takes \(ControlConnection.quote($0))" } ?? "takes"
            for (key, value) in try client.command(line) {
                if key == "take" { flush() }
                take[key] = value
            }
            flush()
            print(lines.isEmpty ? "no takes" : lines.joined(separator: "\n"))
        }
    }
}

/// `fermata takes delete ID`: the take's row and file.
struct TakesDelete: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a take (its file too).")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The take's id.") var id: String

    func validate() throws { _ = try checkedTakeID(id) }

    func run() throws {
        try withConnection(connection) { client in _ = try client.command("takedelete \(try checkedTakeID(id))") }
    }
}

/// `fermata takes play ID [--alternate N | --balance TAKE% [--rounds N]]`: queued after the current entry and
/// played — alone, alternating with the original, or mixed over the original at a balance.
struct TakesPlay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a take after the current entry: alone, alternating with the original, or over it.")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The take's id.") var id: String
    @Option(help: "Alternate the original's loop (at the take's tempo) and the take this many times (1-50).")
    var alternate: Int?
    @Option(help: "Play the take over the original's loop at the take's tempo, the take at this share (0-100; 50: both -3 dB).")
    var balance: Int?
    @Option(help: "With --balance: how many passes of the loop (1-50, default 2).")
    var rounds: Int?

    func validate() throws {
        _ = try checkedTakeID(id)
        if let alternate, !TakePlayback.rounds.contains(alternate) { throw ValidationError("--alternate must be 1-50") }
        if alternate != nil && balance != nil { throw ValidationError("--alternate and --balance are two ways: one") }
        if let balance, !TakePlayback.percents.contains(balance) { throw ValidationError("--balance must be 0-100") }
        if let rounds {
            guard balance != nil else { throw ValidationError("--rounds goes with --balance") }
            guard TakePlayback.rounds.contains(rounds) else { throw ValidationError("--rounds must be 1-50") }
        }
    }

    /// What `playtake` is asked for.
    var playback: TakePlayback {
        if let alternate { return .alternate(rounds: alternate) }
        if let balance { return .balance(takePercent: balance, rounds: rounds ?? TakePlayback.defaultRounds) }
        return .alone
    }

    func run() throws {
        try withConnection(connection) { client in
            _ = try client.command("playtake \(try checkedTakeID(id)) \(playback)")
        }
    }
}

