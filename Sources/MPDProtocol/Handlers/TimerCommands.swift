import FermataCore

/// The household timers: `sleep_timer [SECONDS|off]`, `alarms`, `alarm_add TIME REPEAT SOURCE [VOLUME [FADE]]`,
/// `alarm_remove ID`, `alarm_enable ID 0|1`.
///
/// Stateless; run on the executing command's task.
enum TimerCommands {
    /// `sleep_timer`: with no argument, `sleep: SECONDS` while one runs (nothing when none); with `SECONDS` (1–86400)
    /// sets it, with `off` (or `0`) turns it off. Answers the seconds left after the change, as `status` does.
    static func sleepTimer(_ c: inout CommandContext) async throws {
        var request: SleepTimerRequest?
        if let text = c.argument(0) {
            if text == "off" || text == "0" {
                request = .cancel
            } else {
                let range = TimerDuration.sleepSeconds
                request = .set(seconds: try ArgumentParser.int(
                    text, in: range, "sleep_timer takes \(range.lowerBound) to \(range.upperBound) seconds, or off"))
            }
        }
        if let left = try await c.backend.sleepTimer(request) { c.response.line("sleep", left) }
    }

    /// `alarms`: for each alarm `alarm` (its id), `time`, `repeat`, `play`, `volume` (absent: the volume as it is),
    /// `fade` (seconds), `enabled`, and when it fires next `next` (Unix seconds) and `next_local` (local time).
    static func alarms(_ c: inout CommandContext) async throws {
        for report in try await c.backend.alarms() {
            let alarm = report.alarm
            c.response.line("alarm", String(alarm.id))
            c.response.line("time", alarm.time.description)
            c.response.line("repeat", alarm.repeats.description)
            c.response.line("play", alarm.source.description)
            if let volume = alarm.volume { c.response.line("volume", volume) }
            c.response.line("fade", alarm.fadeSeconds)
            c.response.line("enabled", flag: alarm.enabled)
            if let next = report.next { c.response.line("next", String(next)) }
            if let text = report.nextText { c.response.line("next_local", text) }
        }
    }

    /// `alarm_add TIME REPEAT SOURCE [VOLUME [FADE]]`: `07:00`, `daily`/`weekdays`/`weekends`/`mon,wed`/a date
    /// `YYYY-MM-DD`, a card target or a stream URL, the volume 0–100 (`keep`: as it is), the fade-in 0–3600 s.
    /// Answers `alarm: ID`.
    static func alarmAdd(_ c: inout CommandContext) async throws {
        guard let time = AlarmTime(parsing: c.arguments[0]) else {
            throw MPDError.badArgument("the time is HH:MM, 00:00 to 23:59")
        }
        guard let repeats = AlarmRepeat(parsing: c.arguments[1]) else { throw MPDError.badArgument(AlarmRepeat.expected) }
        guard let source = AlarmSource(parsing: c.arguments[2]) else { throw MPDError.badArgument(AlarmSource.expected) }
        var volume: Int?
        if let text = c.argument(3), text != "keep" {
            volume = try ArgumentParser.int(text, in: 0...100, "the volume is 0 to 100, or keep")
        }
        let fade = try c.argument(4).map {
            try ArgumentParser.int($0, in: Alarm.fadeSeconds, "the fade-in is 0 to 3600 seconds")
        } ?? Alarm.defaultFadeSeconds
        let alarm = Alarm(time: time, repeats: repeats, source: source, volume: volume, fadeSeconds: fade)
        if let id = try await c.backend.editAlarms(.add(alarm)) { c.response.line("alarm", String(id)) }
    }

    /// `alarm_remove ID`.
    static func alarmRemove(_ c: inout CommandContext) async throws {
        try await c.backend.editAlarms(.remove(id: try alarmID(c.arguments[0])))
    }

    /// `alarm_enable ID 0|1`: switches an alarm off or on (kept either way).
    static func alarmEnable(_ c: inout CommandContext) async throws {
        let id = try alarmID(c.arguments[0])
        try await c.backend.editAlarms(.enable(id: id, try ArgumentParser.bool(c.arguments[1])))
    }

    static func alarmID(_ text: String) throws(MPDError) -> Int64 {
        Int64(try ArgumentParser.int(text, in: 1...Int(Int32.max), "an alarm id is a positive whole number"))
    }
}
