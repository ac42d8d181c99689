/// Idle power-off as one value: after `limit` of not playing (stopped, or paused — a paused box left alone is idle, as
/// Phoniebox users expect) with no activity, it asks once for the power-off. Any activity (a command that changed
/// something, a button, a card) or playback starts the countdown again. Time is an input (monotonic nanoseconds, any
/// origin), so a recorded sequence replays exactly (`IdlePowerOffTests`).
///
/// A value; owned by one driver (the daemon's `IdleWatch`) or a test.
public struct IdlePowerOff: Sendable, Equatable {
    public enum Phase: Sendable, Equatable {
        /// `timers.idle_poweroff_minutes = 0`: never.
        case disabled
        /// Playing: no countdown.
        case playing
        /// Not playing since `since`, nothing done since.
        case idle(since: UInt64)
        /// The power-off was asked for; activity or playback starts a new countdown.
        case requested
    }

    /// What the driver does.
    public enum Effect: Sendable, Equatable {
        /// Ask for the power-off (`PowerOffRequest`): idle for this many whole seconds.
        case requestPowerOff(idleSeconds: Int)
    }

    public private(set) var phase: Phase
    /// Nil: disabled.
    public let limit: UInt64?

    /// `limitNanoseconds` nil or 0: disabled. The countdown starts at `now` (a box that starts stopped powers off
    /// `limit` after its start unless something happens).
    public init(limitNanoseconds: UInt64?, now: UInt64) {
        let limit = limitNanoseconds.flatMap { $0 > 0 ? $0 : nil }
        self.limit = limit
        phase = limit == nil ? .disabled : .idle(since: now)
    }

    /// The player's transport as it is `now`; the effect once the limit is reached.
    public mutating func observe(playing: Bool, at now: UInt64) -> Effect? {
        guard let limit else { return nil }
        if playing {
            phase = .playing
            return nil
        }
        switch phase {
        case .disabled:
            return nil
        case .playing:
            phase = .idle(since: now)
            return nil
        case let .idle(since):
            guard now >= since, now - since >= limit else { return nil }
            phase = .requested
            return .requestPowerOff(idleSeconds: Int((now - since) / 1_000_000_000))
        case .requested:
            return nil
        }
    }

    /// Something happened (a client changed something, a button, a card): the countdown starts again at `now`.
    public mutating func activity(at now: UInt64) {
        switch phase {
        case .disabled, .playing: break
        case .idle, .requested: phase = .idle(since: now)
        }
    }

    /// Whole seconds until the power-off is asked for, while counting (nil: disabled, playing or asked).
    public func remainingSeconds(at now: UInt64) -> Int? {
        guard let limit, case let .idle(since) = phase else { return nil }
        let end = since &+ limit
        return end > now ? Int((end - now + 999_999_999) / 1_000_000_000) : 0
    }
}
