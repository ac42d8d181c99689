/// The sleep timer as one value: off, counting down, or fading out; commands and the clock in, effects out. Time is
/// an input (monotonic nanoseconds, any origin: the timer counts elapsed time, so a wall clock set by NTP never moves
/// it), so a recorded sequence replays exactly (`SleepTimerTests`).
///
/// The rules: the timer's time is when the music has stopped; the fade takes its last `fadeMilliseconds` (all of it
/// when shorter). During the countdown only a new time or `off` changes it (pause, play, skip and the volume do not:
/// it counts wall time, not playing time); paused when the fade should begin, the fade begins on play, over what is
/// left; still not playing when the time runs out, it just ends. During the fade a pause or a stop by anyone ends the
/// timer there (the level comes back at once, so play is heard at the volume shown); a skip or a volume change does
/// not. The fade reaching silence ends playback (`endAction`); if the output never says so (a device gone), the time
/// plus `lateGrace` ends it anyway.
///
/// A value; owned by one driver (the daemon's `SleepService`) or a test.
public struct SleepTimer: Sendable, Equatable {
    public enum Phase: Sendable, Equatable {
        case off
        /// Counting down to `deadline` (monotonic nanoseconds); the fade begins `fadeMilliseconds` before it.
        case counting(deadline: UInt64)
        /// The fade is under way; playback ends when it has reached silence.
        case fading(deadline: UInt64)
    }

    /// What ends the music: `pause` (play resumes where it fell silent) or `stop`.
    public enum EndAction: String, Sendable, Hashable, CaseIterable {
        case pause, stop
    }

    /// Where the output's fade is, as the engine reports it.
    public enum FadeReport: Sendable, Equatable {
        /// Still falling (or not begun yet).
        case falling
        /// Reached silence; the silence holds until playback pauses or stops.
        case silent
        /// Ended by a pause or a stop nobody here asked for, or replaced by another fade (an alarm's).
        case released
    }

    /// What the driver does, in order.
    public enum Effect: Sendable, Equatable {
        /// Fade the output to silence over this many milliseconds (apart from the volume, which does not change).
        case fadeOut(milliseconds: Int)
        /// Bring the output's level back up (a fade called off).
        case restoreLevel
        /// End playback; the output's level returns to unity as it pauses or stops.
        case endPlayback(EndAction)
        /// What `status` shows changed (clients are told).
        case changed(Change)
    }

    /// Why the timer changed, for the log and clients.
    public enum Change: Sendable, Equatable {
        case set(seconds: Int)
        case cancelled
        case fadeBegan
        /// The time ran out with nothing playing: nothing to put to sleep.
        case ranOutNotPlaying
        /// Someone paused or stopped during the fade.
        case interrupted
        case ended(EndAction)
    }

    /// After the time, how long a fade not reported silent may still take before playback is ended anyway.
    public static let lateGrace: UInt64 = 5_000_000_000
    /// The shortest fade begun late (playback resumed in the fade's last moments).
    public static let shortestFadeMilliseconds = 50

    public private(set) var phase = Phase.off
    public let fadeMilliseconds: Int
    public let endAction: EndAction

    public init(fadeSeconds: Int, endAction: EndAction) {
        fadeMilliseconds = max(0, min(fadeSeconds, 3600)) * 1000
        self.endAction = endAction
    }

    /// Whole seconds until the music stops (rounded up), or nil when off.
    public func remainingSeconds(at now: UInt64) -> Int? {
        switch phase {
        case .off: return nil
        case let .counting(deadline), let .fading(deadline):
            guard deadline > now else { return 0 }
            let nanoseconds = deadline - now
            return Int(nanoseconds / 1_000_000_000) + (nanoseconds % 1_000_000_000 > 0 ? 1 : 0)
        }
    }

    /// Sets the timer to `seconds` from now (within `TimerDuration.sleepSeconds`), replacing any running one.
    public mutating func set(seconds: Int, at now: UInt64, playing: Bool) -> [Effect] {
        let seconds = max(TimerDuration.sleepSeconds.lowerBound, min(seconds, TimerDuration.sleepSeconds.upperBound))
        var effects: [Effect] = []
        if case .fading = phase { effects.append(.restoreLevel) }
        let span = UInt64(seconds) * 1_000_000_000
        phase = .counting(deadline: now > UInt64.max - span ? UInt64.max : now + span)
        effects.append(.changed(.set(seconds: seconds)))
        return effects + tick(at: now, playing: playing, fade: .falling)
    }

    /// Turns the timer off (`off`); a fade under way is called off.
    public mutating func cancel() -> [Effect] {
        switch phase {
        case .off: return []
        case .counting:
            phase = .off
            return [.changed(.cancelled)]
        case .fading:
            phase = .off
            return [.restoreLevel, .changed(.cancelled)]
        }
    }

    /// The clock and what is heard: `playing`, the player's transport; `fade`, the output's report on the fade this
    /// timer began (ignored while counting).
    public mutating func tick(at now: UInt64, playing: Bool, fade: FadeReport) -> [Effect] {
        switch phase {
        case .off:
            return []
        case let .counting(deadline):
            let fade = UInt64(fadeMilliseconds) * 1_000_000
            guard now >= (deadline > fade ? deadline - fade : 0) else { return [] }
            guard playing else {
                guard now >= deadline else { return [] }  // paused in the fade's window: it begins on play
                phase = .off
                return [.changed(.ranOutNotPlaying)]
            }
            let left = deadline > now ? Int((deadline - now) / 1_000_000) : 0
            guard fadeMilliseconds > 0 else {
                guard now >= deadline else { return [] }
                phase = .off
                return [.endPlayback(endAction), .changed(.ended(endAction))]
            }
            phase = .fading(deadline: deadline)
            return [.fadeOut(milliseconds: max(Self.shortestFadeMilliseconds, min(left, fadeMilliseconds))),
                    .changed(.fadeBegan)]
        case let .fading(deadline):
            switch fade {
            case .released:
                phase = .off
                return [.changed(.interrupted)]
            case .silent:
                phase = .off
                return [.endPlayback(endAction), .changed(.ended(endAction))]
            case .falling:
                guard playing else {
                    // Paused before the output said so, or before the fade began: called off, so it cannot wait
                    // for the next play.
                    phase = .off
                    return [.restoreLevel, .changed(.interrupted)]
                }
                guard now >= deadline &+ Self.lateGrace else { return [] }
                phase = .off
                return [.endPlayback(endAction), .changed(.ended(endAction))]
            }
        }
    }
}
