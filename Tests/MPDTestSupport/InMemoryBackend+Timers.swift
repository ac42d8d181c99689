import FermataCore
import MPDProtocol

/// The timers kept as plain values for the protocol tests: a sleep timer with no clock (it stays as set), alarms in a
/// list whose next firing is always a fixed instant (when on). Changes publish `options`, as the daemon does.
extension InMemoryBackend {
    /// The next firing every enabled alarm reports (2026-12-01 07:00 UTC).
    public static let nextFiring: Int64 = 1_764_572_400

    public func sleepTimer(_ request: SleepTimerRequest?) async throws -> Int? {
        switch request {
        case nil: return sleepSeconds
        case let .set(seconds): sleepSeconds = seconds
        case .cancel: sleepSeconds = nil
        }
        idle.publish(.options)
        return sleepSeconds
    }

    public func alarms() async throws -> [AlarmReport] {
        alarmList.map {
            AlarmReport(alarm: $0, next: $0.enabled ? Self.nextFiring : nil, nextText: $0.enabled ? "2026-12-01 07:00+00:00" : nil)
        }
    }

    @discardableResult
    public func editAlarms(_ edit: AlarmEdit) async throws -> Int64? {
        defer { idle.publish(.options) }
        switch edit {
        case var .add(alarm):
            alarm.id = (alarmList.map(\.id).max() ?? 0) + 1
            alarmList.append(alarm)
            return alarm.id
        case let .remove(id):
            guard alarmList.contains(where: { $0.id == id }) else { throw MPDError(.noExist, "no alarm \(id)") }
            alarmList.removeAll { $0.id == id }
        case let .enable(id, on):
            guard let index = alarmList.firstIndex(where: { $0.id == id }) else { throw MPDError(.noExist, "no alarm \(id)") }
            alarmList[index].enabled = on
        }
        return nil
    }
}
