import ArgumentParser
import FermataCore

/// `fermata sleep [DURATION|off]`: the sleep timer. With no argument, what is left; `30m`, `90s`, `1h`, `1h30m` (a
/// bare number is minutes) sets it: the music fades out over its last part (`timers.sleep_fade_seconds`) and pauses
/// (or stops: `timers.sleep_action`); `off` turns it off.
struct SleepCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sleep", abstract: "Show or set the sleep timer: 30m, 90s, 1h, 1h30m (a bare number is minutes) or off.")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "How long until the music stops (1 second to 24 hours), or off.") var duration: String?

    func validate() throws {
        if let duration, duration != "off", TimerDuration.seconds(duration) == nil {
            throw ValidationError("the time is 30m, 90s, 1h or 1h30m (a bare number is minutes), 1 second to 24 hours; or off")
        }
    }

    func run() throws {
        try withConnection(connection) { client in
            var line = "sleep_timer"
            if let duration { line += duration == "off" ? " off" : " \(TimerDuration.seconds(duration) ?? 0)" }
            let left = dictionary(try client.command(line))["sleep"].flatMap { Int($0) }
            if let left {
                print("sleep timer: the music stops in \(TimerDuration.text(seconds: left))")
            } else {
                print(duration == "off" ? "sleep timer off" : "no sleep timer")
            }
        }
    }
}

/// `fermata alarm`: the alarms. `list` shows each with its next firing; `add TIME REPEAT SOURCE` adds one (`07:00
/// weekdays playlist:Wake --volume 40 --fade 60`); `remove`, `enable` and `disable` take its id.
struct AlarmCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alarm", abstract: "Alarms: music at a time of day, faded in.",
        subcommands: [AlarmList.self, AlarmAdd.self, AlarmRemove.self, AlarmEnable.self, AlarmDisable.self],
        defaultSubcommand: AlarmList.self)
}

struct AlarmList: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "The alarms and when each fires next.")
    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        try withConnection(connection) { client in
            var lines: [String] = []
            var alarm: [String: String] = [:]
            func flush() {
                guard let id = alarm["alarm"] else { return }
                let volume = alarm["volume"].map { "volume \($0)" } ?? "volume as it is"
                let when = alarm["enabled"] == "1" ? alarm["next_local"].map { "next \($0)" } ?? "never again" : "off"
                lines.append("\(id)  \(alarm["time"] ?? "?") \(alarm["repeat"] ?? "?")  \(alarm["play"] ?? "?")  "
                    + "(\(volume), fade-in \(alarm["fade"] ?? "?") s)  \(when)")
                alarm = [:]
            }
            for (key, value) in try client.command("alarms") {
                if key == "alarm" { flush() }
                alarm[key] = value
            }
            flush()
            print(lines.isEmpty ? "no alarms" : lines.joined(separator: "\n"))
        }
    }
}

struct AlarmAdd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Add an alarm: TIME REPEAT SOURCE (07:00 weekdays playlist:Wake).")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The local time, HH:MM.") var time: String
    @Argument(help: "daily, weekdays, weekends, days (mon,wed,fri) or a date (YYYY-MM-DD: once).") var repeats: String
    @Argument(help: "What it plays: playlist:NAME, album:NAME, folder:PATH, piece:FILE, action:ACTION or a stream URL.")
    var source: String
    @Option(help: "The volume it plays at (0-100; without it, the volume as it is).") var volume: Int?
    @Option(help: "Seconds to fade in from silence (0-3600).") var fade: Int = Alarm.defaultFadeSeconds

    func validate() throws {
        guard AlarmTime(parsing: time) != nil else { throw ValidationError("the time is HH:MM, 00:00 to 23:59") }
        guard AlarmRepeat(parsing: repeats) != nil else { throw ValidationError(AlarmRepeat.expected) }
        guard AlarmSource(parsing: source) != nil else { throw ValidationError(AlarmSource.expected) }
        if let volume, !(0...100).contains(volume) { throw ValidationError("--volume must be 0-100") }
        guard Alarm.fadeSeconds.contains(fade) else { throw ValidationError("--fade must be 0-3600 seconds") }
    }

    func run() throws {
        try withConnection(connection) { client in
            let line = "alarm_add \(time) \(repeats) \(ControlConnection.quote(source)) \(volume.map(String.init) ?? "keep") \(fade)"
            let id = dictionary(try client.command(line))["alarm"] ?? "?"
            var current: String?
            var next: String?
            for (key, value) in try client.command("alarms") {
                if key == "alarm" { current = value }
                if key == "next_local", current == id { next = value }
            }
            print("alarm \(id): \(time) \(repeats), \(source)\(next.map { "; next \($0)" } ?? "")")
        }
    }
}

/// An alarm's id as typed, checked before anything is sent.
private func checkedAlarmID(_ text: String) throws -> Int {
    guard let id = Int(text), (1...Int(Int32.max)).contains(id) else {
        throw ValidationError("an alarm id is a positive whole number (fermata alarm list shows them)")
    }
    return id
}

struct AlarmRemove: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove an alarm.")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The alarm's id.") var id: String

    func validate() throws { _ = try checkedAlarmID(id) }

    func run() throws {
        try withConnection(connection) { client in _ = try client.command("alarm_remove \(try checkedAlarmID(id))") }
    }
}

struct AlarmEnable: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "enable", abstract: "Switch an alarm on.")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The alarm's id.") var id: String

    func validate() throws { _ = try checkedAlarmID(id) }

    func run() throws {
        try withConnection(connection) { client in _ = try client.command("alarm_enable \(try checkedAlarmID(id)) 1") }
    }
}

struct AlarmDisable: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "disable", abstract: "Switch an alarm off (it is kept).")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The alarm's id.") var id: String

    func validate() throws { _ = try checkedAlarmID(id) }

    func run() throws {
        try withConnection(connection) { client in _ = try client.command("alarm_enable \(try checkedAlarmID(id)) 0") }
    }
}
