import ArgumentParser
import Foundation

/// Sends one protocol command and prints nothing (transport commands); failures follow `withConnection`.
struct SimpleCommand {
    static func send(_ connection: ConnectionOptions, _ line: String) throws {
        try withConnection(connection) { _ = try $0.command(line) }
    }
}

/// `fermata pause`: toggles pause.
struct PauseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pause", abstract: "Pause or resume.")
    @OptionGroup var connection: ConnectionOptions
    func run() throws { try SimpleCommand.send(connection, "pause") }
}

/// `fermata stop`.
struct StopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stop", abstract: "Stop (stays stopped after a restart).")
    @OptionGroup var connection: ConnectionOptions
    func run() throws { try SimpleCommand.send(connection, "stop") }
}

/// `fermata next`.
struct NextCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "next", abstract: "Skip to the next track.")
    @OptionGroup var connection: ConnectionOptions
    func run() throws { try SimpleCommand.send(connection, "next") }
}

/// `fermata prev`.
struct PreviousCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "prev", abstract: "Back to the previous track.")
    @OptionGroup var connection: ConnectionOptions
    func run() throws { try SimpleCommand.send(connection, "previous") }
}

/// `fermata seek TIME`: absolute (`1:30`, `90`) or relative (`+10`, `-5`).
struct SeekCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "seek", abstract: "Seek: 1:30, 90, +10 or -5 seconds.")
    @OptionGroup var connection: ConnectionOptions
    @Argument(parsing: .allUnrecognized, help: "Position in seconds or m:ss; +N/-N is relative.") var words: [String]
    /// `words` without the `--` typed before a negative number (`.allUnrecognized` keeps it).
    var arguments: [String] { SignedWords.dropTerminator(words) }

    func validate() throws {
        guard arguments.count == 1 else { throw ValidationError("give one TIME: 1:30, 90, +10 or -5") }
        guard SeekTime(arguments[0]) != nil else {
            throw ValidationError("TIME must be seconds, m:ss or h:mm:ss (at most 240 hours), optionally with + or -")
        }
    }

    func run() throws {
        guard let time = SeekTime(arguments[0]) else { return }
        try SimpleCommand.send(connection, "seekcur " + time.protocolArgument)
    }
}

/// `fermata volume [N|+N|-N]`: sets or changes the volume, then prints it.
struct VolumeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "volume", abstract: "Show or set the volume (0-100).")
    @OptionGroup var connection: ConnectionOptions
    @Argument(parsing: .allUnrecognized, help: "New volume, or +N / -N.") var words: [String] = []
    /// `words` without the `--` typed before a negative number (`.allUnrecognized` keeps it).
    var arguments: [String] { SignedWords.dropTerminator(words) }

    func validate() throws {
        guard arguments.count <= 1 else { throw ValidationError("give at most one volume: N, +N or -N") }
        if let value = arguments.first, Self.step(value) == nil {
            throw ValidationError("volume must be 0-100, or +N / -N up to 100")
        }
    }

    static func step(_ text: String) -> StepValue? { StepValue(text, absolute: 0...100, step: -100...100) }

    func run() throws {
        let step = arguments.first.flatMap(Self.step)
        try withConnection(connection) { client in
            if let step { _ = try client.command(step.relative ? "volume \(step.value)" : "setvol \(step.value)") }
            print("volume \(dictionary(try client.command("status"))["volume"] ?? "-")")
        }
    }
}
