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

    func validate() throws {
        guard words.count == 1 else { throw ValidationError("give one TIME: 1:30, 90, +10 or -5") }
    }

    func run() throws {
        let time = words[0]
        let relative = time.hasPrefix("+") || time.hasPrefix("-")
        let body = relative ? String(time.dropFirst()) : time
        let parts = body.split(separator: ":").map { Double($0) }
        guard !parts.isEmpty, parts.allSatisfy({ $0 != nil }) else {
            throw ValidationError("TIME must be seconds or m:ss, optionally with + or -")
        }
        let seconds = parts.reduce(0.0) { $0 * 60 + $1! }
        let sign = time.hasPrefix("-") ? "-" : "+"
        try SimpleCommand.send(connection, "seekcur " + (relative ? sign : "") + String(seconds))
    }
}

/// `fermata volume [N|+N|-N]`: sets or changes the volume, then prints it.
struct VolumeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "volume", abstract: "Show or set the volume (0-100).")
    @OptionGroup var connection: ConnectionOptions
    @Argument(parsing: .allUnrecognized, help: "New volume, or +N / -N.") var words: [String] = []

    func validate() throws {
        guard words.count <= 1 else { throw ValidationError("give at most one volume: N, +N or -N") }
        if let value = words.first, Int(value.hasPrefix("+") ? String(value.dropFirst()) : value) == nil {
            throw ValidationError("volume must be a number, +N or -N")
        }
    }

    func run() throws {
        let value = words.first
        try withConnection(connection) { client in
            if let value {
                guard let number = Int(value.hasPrefix("+") ? String(value.dropFirst()) : value) else {
                    throw ValidationError("volume must be a number, +N or -N")
                }
                _ = try client.command(value.hasPrefix("+") || value.hasPrefix("-") ? "volume \(number)" : "setvol \(number)")
            }
            print("volume \(dictionary(try client.command("status"))["volume"] ?? "-")")
        }
    }
}
