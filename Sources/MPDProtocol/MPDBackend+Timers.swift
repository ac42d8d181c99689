import FermataCore

/// What `sleep_timer` asks: set the timer to a number of seconds from now, or turn it off. A value; any thread.
public enum SleepTimerRequest: Sendable, Hashable {
    case set(seconds: Int)
    case cancel
}

/// One alarm as `alarms` reports it: the alarm, and when it next fires (Unix seconds and the local time in words),
/// nil when it is off or its date has passed. A value; any thread.
public struct AlarmReport: Sendable, Hashable {
    public var alarm: Alarm
    public var next: Int64?
    /// `2026-12-24 07:00+01:00`.
    public var nextText: String?

    public init(alarm: Alarm, next: Int64?, nextText: String?) {
        self.alarm = alarm
        self.next = next
        self.nextText = nextText
    }
}

/// A change to the alarms (`alarm_add`, `alarm_remove`, `alarm_enable`). A value; any thread.
public enum AlarmEdit: Sendable, Hashable {
    case add(Alarm)
    case remove(id: Int64)
    case enable(id: Int64, Bool)
}

/// The defaults for backends without timers (test doubles): `ACK [5@0] {…} no timers here`.
extension MPDBackend {
    public func sleepTimer(_ request: SleepTimerRequest?) async throws -> Int? {
        throw MPDError(.unknown, "no timers here")
    }

    public func alarms() async throws -> [AlarmReport] {
        throw MPDError(.unknown, "no timers here")
    }

    @discardableResult
    public func editAlarms(_ edit: AlarmEdit) async throws -> Int64? {
        throw MPDError(.unknown, "no timers here")
    }
}
