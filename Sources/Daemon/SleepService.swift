import AudioCore
import Engine
import FermataCore
import Logging
import Player

/// The sleep timer's driver: one `SleepTimer` value (the rules are there), the monotonic clock read for it, and its
/// effects carried out — the fade on the engine's output (apart from the volume, which clients see unchanged), the
/// pause or stop through the player, clients told through `announce` (`options` on `idle`, the page's status).
///
/// An actor: `sleep_timer`, the web page, the buttons and cards (`sleep-30`, `sleep-off`) and the timers' tick
/// (`TimersService`) call it. It does no blocking work.
public actor SleepService {
    /// How fast the tick comes while a timer runs (the fade's silence is noticed within this).
    static let watchInterval: Duration = .milliseconds(100)
    /// A fade called off comes back up over this long.
    static let restoreMilliseconds = 500

    private var timer: SleepTimer
    /// The fade this timer asked the engine for (its serial), while one is under way.
    private var fade: Int?
    let player: Player
    let logger: Logger
    let clock: @Sendable () -> UInt64
    /// Tells clients the timer changed (the backend's `idle`, the web page).
    private let announce: @Sendable () -> Void
    /// Wakes the timers' tick now (a timer just set is watched at once).
    private let wake: @Sendable () -> Void

    public init(fadeSeconds: Int, endAction: SleepTimer.EndAction, player: Player, logger: Logger,
                clock: @escaping @Sendable () -> UInt64 = { MonotonicClock.nanoseconds() },
                announce: @escaping @Sendable () -> Void, wake: @escaping @Sendable () -> Void = {}) {
        timer = SleepTimer(fadeSeconds: fadeSeconds, endAction: endAction)
        self.player = player
        self.logger = logger
        self.clock = clock
        self.announce = announce
        self.wake = wake
    }

    /// Whole seconds until the music stops, or nil when no timer runs.
    public func remaining() -> Int? { timer.remainingSeconds(at: clock()) }

    /// Sets the timer to `seconds` from now (1 s to a day), replacing one that runs; the seconds left.
    @discardableResult
    public func set(seconds: Int) async -> Int? {
        let playing = await player.isPlaying
        let now = clock()
        await carryOut(timer.set(seconds: seconds, at: now, playing: playing))
        wake()
        return timer.remainingSeconds(at: now)
    }

    /// Turns the timer off; a fade under way comes back up.
    public func cancel() async {
        await carryOut(timer.cancel())
    }

    /// One look at the clock and the player; how soon to look again.
    public func tick() async -> Duration {
        let playing = await player.isPlaying
        await carryOut(timer.tick(at: clock(), playing: playing, fade: fadeReport()))
        return timer.phase == .off ? .seconds(1) : Self.watchInterval
    }

    /// Where this timer's fade is, in the timer's words.
    private func fadeReport() -> SleepTimer.FadeReport {
        guard let fade else { return .falling }
        switch player.engine.fadeState(of: fade) {
        case .pending, .falling, .rising: return .falling
        case .silent: return .silent
        case .done, .released, .superseded: return .released
        }
    }

    private func carryOut(_ effects: [SleepTimer.Effect]) async {
        for effect in effects {
            switch effect {
            case let .fadeOut(milliseconds):
                fade = player.engine.fade(.out(milliseconds: milliseconds))
            case .restoreLevel:
                // Not over a fade that replaced this one (an alarm's fade-in).
                if let fade, player.engine.fadeState(of: fade) != .superseded {
                    player.engine.fade(.restore(milliseconds: Self.restoreMilliseconds))
                }
                fade = nil
            case let .endPlayback(action):
                // Ended by the late grace with nothing of the fade played (the device gone): called off, so the
                // next play does not begin with it.
                if let fade, player.engine.fadeState(of: fade) == .pending {
                    player.engine.fade(.restore(milliseconds: 0))
                }
                fade = nil
                do {
                    try await player.perform(action == .pause ? .pause : .stop)
                } catch {
                    logger.warning("sleep timer: could not \(action.rawValue): \(error)")
                }
            case let .changed(change):
                log(change)
                announce()
            }
        }
    }

    private func log(_ change: SleepTimer.Change) {
        switch change {
        case let .set(seconds):
            let fading = timer.fadeMilliseconds > 0 ? ", fading out over its last \(timer.fadeMilliseconds / 1000) s" : ""
            logger.notice("sleep timer: the music stops in \(TimerDuration.text(seconds: seconds))\(fading)")
        case .cancelled: logger.notice("sleep timer: off")
        case .fadeBegan: logger.info("sleep timer: fading out")
        case .ranOutNotPlaying: logger.notice("sleep timer: ran out with nothing playing")
        case .interrupted: logger.notice("sleep timer: paused or stopped during the fade; the timer is off")
        case let .ended(action): logger.notice("sleep timer: faded out; \(action == .pause ? "paused" : "stopped")")
        }
    }
}
