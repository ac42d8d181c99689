import AudioCore
import FermataCore
import Logging
import Player

/// Idle power-off's driver: one `IdlePowerOff` value (the rules are there), the monotonic clock read for it, the
/// player's transport as its input, and the request written through `PowerOffRequest` (on `BlockingWork`: a file
/// write) when the box has been idle for `timers.idle_poweroff_minutes`.
///
/// An actor: the timers' tick and their activity feed (`TimersService`) call it.
public actor IdleWatch {
    private var machine: IdlePowerOff
    let request: PowerOffRequest
    let player: Player
    let logger: Logger
    let clock: @Sendable () -> UInt64

    /// `minutes` 0 (or not finite): never.
    public init(minutes: Double, request: PowerOffRequest, player: Player, logger: Logger,
                clock: @escaping @Sendable () -> UInt64 = { MonotonicClock.nanoseconds() }) {
        let limit = minutes.isFinite && minutes > 0 ? UInt64(min(minutes, 100_000) * 60_000_000_000) : nil  // < 2^63
        machine = IdlePowerOff(limitNanoseconds: limit, now: clock())
        self.request = request
        self.player = player
        self.logger = logger
        self.clock = clock
    }

    /// Something happened (a client changed something, a button, a card): the countdown starts again.
    public func activity() { machine.activity(at: clock()) }

    /// Seconds until the power-off is asked for (nil: off, playing, or already asked).
    public func remaining() -> Int? { machine.remainingSeconds(at: clock()) }

    /// One look at the player and the clock.
    public func tick() async {
        guard machine.limit != nil else { return }
        let playing = await player.isPlaying
        guard case let .requestPowerOff(seconds)? = machine.observe(playing: playing, at: clock()) else { return }
        let request = request, logger = logger
        let who = "timers: idle (not playing, nothing done) for \(TimerDuration.text(seconds: seconds))"
        _ = await BlockingWork.run { request.post(by: who, logger: logger) }
    }
}
