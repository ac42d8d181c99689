import AudioCore
import FermataCore
import Foundation

/// The system's time zone (`/etc/localtime`, or `TZ`) for the alarms, through Foundation. A value; any thread.
public struct SystemTimeZone: LocalTimeZone {
    public init() {}

    public func secondsFromGMT(atUnixSeconds unixSeconds: Int64) -> Int {
        TimeZone.current.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(unixSeconds)))
    }

    /// Both clocks now, for the alarm clock.
    public static func reading() -> AlarmClock.Reading {
        AlarmClock.Reading(wallMilliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)),
                           monotonicNanoseconds: MonotonicClock.nanoseconds())
    }
}
