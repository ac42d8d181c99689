import FermataCore
import MPDProtocol

/// The timers' commands (`sleep_timer`, `alarms`, `alarm_add`, `alarm_remove`, `alarm_enable`), answered by the
/// daemon's `HouseholdTimers`.
extension FermataBackend {
    public func sleepTimer(_ request: SleepTimerRequest?) async throws -> Int? {
        guard let timers = timers.withLock({ $0 }) else { throw MPDError(.unknown, "no timers here") }
        switch request {
        case nil: return await timers.sleep.remaining()
        case let .set(seconds):
            guard TimerDuration.sleepSeconds.contains(seconds) else {
                throw MPDError(.argument, "a sleep timer is 1 second to 24 hours")
            }
            return await timers.sleep.set(seconds: seconds)
        case .cancel:
            await timers.sleep.cancel()
            return nil
        }
    }

    public func alarms() async throws -> [AlarmReport] {
        guard let timers = timers.withLock({ $0 }) else { throw MPDError(.unknown, "no timers here") }
        return await timers.alarms.reports()
    }

    @discardableResult
    public func editAlarms(_ edit: AlarmEdit) async throws -> Int64? {
        guard let timers = timers.withLock({ $0 }) else { throw MPDError(.unknown, "no timers here") }
        return try await timers.alarms.edit(edit)
    }
}
