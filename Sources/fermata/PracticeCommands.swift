import ArgumentParser
import FermataCore
import Foundation

/// `fermata tempo [N|+N|-N]`: shows or sets the playback speed without pitch change (50–150 %, 5 % steps).
struct TempoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tempo", abstract: "Show or set the speed without pitch change (50-150 %, steps of 5).")
    @OptionGroup var connection: ConnectionOptions
    @Argument(parsing: .allUnrecognized, help: "New speed in percent, or +N / -N.") var words: [String] = []
    /// `words` without the `--` typed before a negative number (`.allUnrecognized` keeps it).
    var arguments: [String] { SignedWords.dropTerminator(words) }

    func validate() throws {
        guard arguments.count <= 1 else { throw ValidationError("give at most one speed: N, +N or -N") }
        if let value = arguments.first, Self.step(value) == nil {
            throw ValidationError("speed must be a percentage (50-150), or +N / -N up to 100")
        }
    }

    static func step(_ text: String) -> StepValue? { StepValue(text, absolute: 50...150, step: -100...100) }

    func run() throws {
        try withConnection(connection) { client in
            if let step = arguments.first.flatMap(Self.step) { _ = try client.command("tempo \(step.text)") }
            print("tempo \(dictionary(try client.command("tempo"))["tempo"] ?? "-") %")
        }
    }
}

/// `fermata transpose [SEMITONES]`: shows or sets the transposition, independent of the tempo (-12.5 to +12.5
/// semitones; 0.01 is a cent).
struct TransposeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transpose", abstract: "Show or set the pitch without tempo change (-12.5 to +12.5 semitones).")
    @OptionGroup var connection: ConnectionOptions
    @Argument(parsing: .allUnrecognized, help: "Semitones, e.g. -2, +7, 3.5 or 0.15 (15 cents).") var words: [String] = []
    /// `words` without the `--` typed before a negative number (`.allUnrecognized` keeps it).
    var arguments: [String] { SignedWords.dropTerminator(words) }

    func validate() throws {
        guard arguments.count <= 1 else { throw ValidationError("give at most one transposition in semitones") }
        if let value = arguments.first, Transposition.cents(semitones: value) == nil {
            throw ValidationError("transposition must be -12.5 to +12.5 semitones, at most two decimals")
        }
    }

    func run() throws {
        try withConnection(connection) { client in
            if let value = arguments.first { _ = try client.command("transpose \(value)") }
            print("transpose \(dictionary(try client.command("transpose"))["transpose"] ?? "-") semitones")
        }
    }
}

/// `fermata bpm [N [--offset S]|off]`: shows or sets the current track's beat (what the count-in and `loop again N bars` count by;
/// the tap-tempo button sets it too; `off`: the file's BPM tag counts again).
struct BeatCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bpm", abstract: "Show or set the current track's beat (20-400 BPM), or off for its BPM tag.")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "Beats per minute (20-400), or off.") var value: String?
    @Option(help: "Where the first beat falls, in seconds of the track (0-60).") var offset = 0.0

    func validate() throws {
        if let value, value != "off" {
            guard let bpm = Double(value), TrackBeat(bpm: bpm, offsetSeconds: offset).problem == nil else {
                throw ValidationError(TrackBeat(bpm: Double(value) ?? .nan, offsetSeconds: offset).problem ?? "")
            }
        }
    }

    func run() throws {
        try withConnection(connection) { client in
            if let value { _ = try client.command(value == "off" ? "bpm off" : "bpm \(value) \(offset)") }
            print("bpm \(dictionary(try client.command("bpm"))["bpm"] ?? "- (the file's tag, if it has one)")")
        }
    }
}

/// `fermata metronome [on [--beats N] [--level L] | off]`: the click over the track, on the track's beat (`fermata
/// bpm`, the tap-tempo button, or the file's BPM tag).
struct MetronomeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metronome", abstract: "Show, or turn on or off, the click over the track (at the track's beat).")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "on or off.") var state: String?
    @Option(help: "Beats in a bar, beat one accented (1-16).") var beats = 4
    @Option(help: "The click's level, 0.05-1.") var level = 1.0

    func validate() throws {
        guard state == nil || state == "on" || state == "off" else { throw ValidationError("use: metronome [on|off]") }
        if let problem = MetronomePlan(beatsPerBar: beats, level: level).problem { throw ValidationError(problem) }
    }

    func run() throws {
        try withConnection(connection) { client in
            switch state {
            case "on": _ = try client.command("metronome on \(beats) \(level)")
            case "off": _ = try client.command("metronome off")
            default: break
            }
            let answer = dictionary(try client.command("metronome"))
            guard let beats = answer["metronome"], beats != "off" else { return print("metronome off") }
            print("metronome on: \(beats) beats a bar, level \(answer["metronome_level"] ?? "1")")
        }
    }
}

/// `fermata trainer START STEP EVERY TARGET [--fallback]`, `fermata trainer again`, `fermata trainer off`, or
/// `fermata trainer` alone (what runs, the tempo and the tempo of the last pass heard to its end): the step trainer on
/// the A–B loop or the section playing.
struct TrainerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trainer",
        abstract: "Step trainer: start at START %, add STEP % every EVERY passes up to TARGET %; again; or off.",
        discussion: "Each pass is exact and the tempo changes only where a pass begins; the click and the count-in "
            + "follow it. With --fallback, \"again\" (this command, the trainer-again button or pedal) takes the next "
            + "pass a step slower; without, the pass heard does not count. \"fermata section trainer\" keeps a plan "
            + "with a section.")
    @OptionGroup var connection: ConnectionOptions
    @Flag(help: "\"again\" falls back a step.") var fallback = false
    @Argument(help: "START STEP EVERY TARGET (e.g. 70 5 2 100), again, or off; nothing: what runs.") var words: [String] = []

    func validate() throws {
        let numbers = words.count == 4 && words.allSatisfy { Int($0).map { (0...1000).contains($0) } ?? false }
        guard words.isEmpty || words == ["off"] || words == ["again"] || numbers else {
            throw ValidationError("use: trainer START STEP EVERY TARGET [--fallback] (numbers), trainer again, or trainer off")
        }
        if fallback && !numbers { throw ValidationError("--fallback goes with a plan: trainer 70 5 2 100 --fallback") }
    }

    func run() throws {
        guard !words.isEmpty else {
            try withConnection(connection) { client in
                let answer = dictionary(try client.command("loop_status"))
                let last = answer["pass_tempo"].map { "; last pass at \($0) %" } ?? ""
                print("trainer: \(answer["trainer"] ?? "off"); tempo \(answer["tempo"] ?? "100") %\(last)")
            }
            return
        }
        try SimpleCommand.send(connection, "speed_trainer " + words.joined(separator: " ") + (fallback ? " fallback" : ""))
    }
}

/// `fermata countin BEATS [--bpm N] [--each-pass]` or `fermata countin off`: clicks before play starts.
struct CountInCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "countin", abstract: "Count-in clicks before playing (and before each loop pass); or off.")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "Number of clicks (1-16), or off.") var beats: String
    @Option(help: "Tempo in BPM (default: the file's BPM tag, else 100).") var bpm: Double?
    @Flag(help: "Also before every pass of the A-B loop.") var eachPass = false

    func validate() throws {
        guard beats == "off" || (Int(beats).map { (1...16).contains($0) } ?? false) else {
            throw ValidationError("BEATS must be 1-16, or off")
        }
        if let bpm, !(20...400).contains(bpm) { throw ValidationError("--bpm must be 20-400") }
    }

    func run() throws {
        let line = beats == "off" ? "count_in off"
            : "count_in \(beats) " + (bpm.map { String($0) } ?? "tag") + (eachPass ? " each" : "")
        try SimpleCommand.send(connection, line)
    }
}

/// `fermata announce [TEXT...]`: speaks TEXT, or what is playing; `--mode over|before [--tracks]` sets how.
struct AnnounceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "announce", abstract: "Speak TEXT, or what is playing (title, artist, loop, speed).")
    @OptionGroup var connection: ConnectionOptions
    @Option(help: "over (the music ducks) or before (the music waits).") var mode: String?
    @Flag(help: "With --mode: also announce every new track.") var tracks = false
    @Argument(help: "Words to speak (default: what is playing).") var words: [String] = []

    func validate() throws {
        if let mode, !["over", "before"].contains(mode) { throw ValidationError("--mode must be over or before") }
        if tracks && mode == nil { throw ValidationError("--tracks goes with --mode") }
    }

    func run() throws {
        try withConnection(connection) { client in
            if let mode { _ = try client.command("announce_mode \(mode)" + (tracks ? " tracks" : "")) }
            if mode == nil || !words.isEmpty {
                let text = words.joined(separator: " ")
                let quoted = "\"" + text.replacingOccurrences(of: "\\", with: "\\\\")
                    .replacingOccurrences(of: "\"", with: "\\\"") + "\""
                _ = try client.command(words.isEmpty ? "announce" : "announce \(quoted)")
            }
        }
    }
}
