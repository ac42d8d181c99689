/// Decides, tick by tick, which alarms fire, judging the wall clock by the monotonic one. A Raspberry Pi has no
/// real-time clock: it boots at 1970 or at the time it last shut down, and NTP later sets the clock forward, maybe by
/// days. Each tick compares how far the wall clock moved with how far the monotonic clock did:
///
/// * in step (within `jumpTolerance`): every alarm whose next firing falls in the time passed since the last tick
///   fires (once, however many of its firings the interval holds; one due more than `latenessLimit` ago — the daemon
///   was stopped, the machine stalled — is missed and logged instead);
/// * the wall clock jumped forward: the firings jumped over are skipped, each one reported (nobody wants Monday's alarm
///   because NTP found it is Tuesday);
/// * it went back: nothing fires in this tick, and a firing that comes round again does not fire twice (each alarm's
///   `lastFired`).
///
/// The first tick only sets where the clock is: no alarm fires for a time passed before the daemon was running.
/// Time is an input (`Reading`), so every case replays exactly (`AlarmClockTests`).
///
/// A value; owned by one driver (the daemon's `AlarmService`) or a test.
public struct AlarmClock: Sendable, Equatable {
    /// One look at both clocks.
    public struct Reading: Sendable, Equatable {
        /// The wall clock, milliseconds since 1970 (UTC).
        public var wallMilliseconds: Int64
        /// The monotonic clock, nanoseconds from any origin.
        public var monotonicNanoseconds: UInt64

        public init(wallMilliseconds: Int64, monotonicNanoseconds: UInt64) {
            self.wallMilliseconds = wallMilliseconds
            self.monotonicNanoseconds = monotonicNanoseconds
        }
    }

    /// What a tick found.
    public enum Event: Sendable, Equatable {
        /// This alarm fires now, for its firing at `at` (Unix seconds).
        case fire(Alarm.ID, at: Int64)
        /// This alarm's firing at `at` was jumped over by the wall clock: it does not fire.
        case skippedByClockJump(Alarm.ID, at: Int64)
        /// This alarm's firing at `at` is more than `latenessLimit` past: it does not fire.
        case missed(Alarm.ID, at: Int64)
        /// The wall clock moved this many milliseconds more (negative: less) than the monotonic clock.
        case clockJumped(milliseconds: Int64)
    }

    /// A wall clock this far out of step with the monotonic one has been set, not merely slewed.
    public static let jumpTolerance: Int64 = 60_000
    /// A firing noticed later than this is missed.
    public static let latenessLimit: Int64 = 300_000

    public private(set) var last: Reading?

    public init() {}

    /// The firings due between the last reading and `now` among `alarms`, in alarm order.
    public mutating func tick(_ now: Reading, alarms: [Alarm], in zone: some LocalTimeZone) -> [Event] {
        guard let last else {
            self.last = now
            return []
        }
        self.last = now
        let wallMoved = now.wallMilliseconds &- last.wallMilliseconds
        let monotonicMoved = now.monotonicNanoseconds >= last.monotonicNanoseconds
            ? Int64(clamping: (now.monotonicNanoseconds - last.monotonicNanoseconds) / 1_000_000) : 0
        let drift = wallMoved &- monotonicMoved
        var events: [Event] = []
        if drift.magnitude > Self.jumpTolerance.magnitude { events.append(.clockJumped(milliseconds: drift)) }
        guard wallMoved > 0 else { return events }
        let jumpedForward = drift > Self.jumpTolerance
        // Firings in (last, now]: the first after the last reading's whole second, up to now.
        let from = LocalTime.floorDiv(last.wallMilliseconds, 1000)
        for alarm in alarms {
            guard var due = alarm.nextFiring(after: max(from, alarm.lastFired ?? from), in: zone),
                  due * 1000 <= now.wallMilliseconds else { continue }
            if jumpedForward {
                events.append(.skippedByClockJump(alarm.id, at: due))
                continue
            }
            // The latest of its firings in the interval (more than one only when ticks were days apart), in at most
            // a few hundred steps.
            for _ in 0..<400 {
                guard let later = alarm.nextFiring(after: due, in: zone), later * 1000 <= now.wallMilliseconds else { break }
                due = later
            }
            if now.wallMilliseconds - due * 1000 > Self.latenessLimit {
                events.append(.missed(alarm.id, at: due))
            } else {
                events.append(.fire(alarm.id, at: due))
            }
        }
        return events
    }
}
