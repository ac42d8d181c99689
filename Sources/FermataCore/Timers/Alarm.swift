/// One alarm: at a local time, on the days it repeats (or once, on a date), it plays its source at its volume, faded
/// in from silence over `fadeSeconds`. Stored in the state database (`alarm`, migration `v15-alarms`).
///
/// A value; any thread.
public struct Alarm: Sendable, Hashable, Identifiable {
    /// The fade-in an alarm may have, in seconds.
    public static let fadeSeconds: ClosedRange<Int> = 0...3600
    /// The default fade-in: half a minute, so nobody wakes to a blast.
    public static let defaultFadeSeconds = 30
    /// At most this many alarms (a household needs a handful; the table stays small).
    public static let maxCount = 64

    /// The database's id (0 before it is stored).
    public var id: Int64
    public var time: AlarmTime
    public var repeats: AlarmRepeat
    public var source: AlarmSource
    /// The volume it plays at (0–100; the player's `volume_min`/`volume_max` still hold); nil: the volume as it is.
    public var volume: Int?
    public var fadeSeconds: Int
    public var enabled: Bool
    /// The firing (Unix seconds) that last played: one that comes round again after the clock went back does not play
    /// twice.
    public var lastFired: Int64?

    public init(id: Int64 = 0, time: AlarmTime, repeats: AlarmRepeat, source: AlarmSource, volume: Int? = nil,
                fadeSeconds: Int = Alarm.defaultFadeSeconds, enabled: Bool = true, lastFired: Int64? = nil) {
        self.id = id
        self.time = time
        self.repeats = repeats
        self.source = source
        self.volume = volume
        self.fadeSeconds = fadeSeconds
        self.enabled = enabled
        self.lastFired = lastFired
    }

    /// Nil when every field is within its range, else what is wrong.
    public var problem: String? {
        if let volume, !(0...100).contains(volume) { return "the volume is 0 to 100" }
        guard Self.fadeSeconds.contains(fadeSeconds) else { return "the fade-in is 0 to 3600 seconds" }
        return nil
    }

    /// When it next fires after `unixSeconds` (nil: disabled, or a date that has passed).
    public func nextFiring(after unixSeconds: Int64, in zone: some LocalTimeZone) -> Int64? {
        guard enabled else { return nil }
        return AlarmSchedule(time: time, repeats: repeats).nextFiring(after: unixSeconds, in: zone)
    }
}

/// A local time of day, `07:00`: hours 0–23, minutes 0–59. A value; any thread.
public struct AlarmTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let hour: Int
    public let minute: Int

    public init?(hour: Int, minute: Int) {
        guard (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        (self.hour, self.minute) = (hour, minute)
    }

    /// `H:MM` or `HH:MM`.
    public init?(parsing text: some StringProtocol) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
              parts.allSatisfy({ $0.utf8.allSatisfy { (48...57).contains($0) } }),
              let h = Int(parts[0]), let m = Int(parts[1]) else { return nil }
        self.init(hour: h, minute: m)
    }

    /// Seconds after local midnight.
    public var secondsOfDay: Int64 { Int64(hour * 3600 + minute * 60) }

    public var description: String { Self.twoDigits(hour) + ":" + Self.twoDigits(minute) }

    public static func < (l: Self, r: Self) -> Bool { l.secondsOfDay < r.secondsOfDay }

    static func twoDigits(_ value: Int) -> String { (value < 10 ? "0" : "") + String(value) }
}

/// Which days an alarm fires: once on a date, or on a set of weekdays (`daily`, `weekdays`, `weekends`,
/// `mon,wed,fri`). A value; any thread.
public enum AlarmRepeat: Sendable, Hashable, CustomStringConvertible {
    case once(CivilDate)
    /// Bit 0 Monday … bit 6 Sunday; never empty.
    case days(UInt8)

    public static let everyDay: UInt8 = 0x7F
    public static let mondayToFriday: UInt8 = 0x1F
    public static let saturdayAndSunday: UInt8 = 0x60
    static let names = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    public static let expected = "expected daily, weekdays, weekends, days like mon,wed,fri, or a date YYYY-MM-DD"

    /// `daily`, `weekdays`, `weekends`, `mon,tue,…` (any order, no repeats), `YYYY-MM-DD` or `once:YYYY-MM-DD`.
    public init?(parsing text: String) {
        switch text {
        case "daily": self = .days(Self.everyDay)
        case "weekdays": self = .days(Self.mondayToFriday)
        case "weekends": self = .days(Self.saturdayAndSunday)
        default:
            if let date = CivilDate(parsing: text.hasPrefix("once:") ? text.dropFirst(5) : Substring(text)) {
                self = .once(date)
                return
            }
            var mask: UInt8 = 0
            for name in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard let index = Self.names.firstIndex(of: String(name)), mask & (1 << index) == 0 else { return nil }
                mask |= 1 << index
            }
            guard mask != 0 else { return nil }
            self = .days(mask)
        }
    }

    public var description: String {
        switch self {
        case let .once(date): date.description
        case .days(Self.everyDay): "daily"
        case .days(Self.mondayToFriday): "weekdays"
        case .days(Self.saturdayAndSunday): "weekends"
        case let .days(mask): Self.names.indices.filter { mask & (1 << $0) != 0 }.map { Self.names[$0] }.joined(separator: ",")
        }
    }
}

/// What an alarm plays: a card's target (`playlist:NAME`, `album:NAME`, `folder:PATH`, `piece:FILE`,
/// `action:ACTION`, as `CardTarget` reads it) or a stream's `http://`/`https://` URL. A value; any thread.
public enum AlarmSource: Sendable, Hashable, CustomStringConvertible {
    case target(CardTarget)
    case stream(String)

    public static let expected = CardTarget.expected + ", or a stream's http:// or https:// URL"

    public init?(parsing text: String) {
        if text.hasPrefix("http://") || text.hasPrefix("https://") {
            guard text.utf8.count <= 2048, !text.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { return nil }
            self = .stream(text)
        } else if let target = CardTarget(parsing: text) {
            self = .target(target)
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case let .target(target): target.description
        case let .stream(url): url
        }
    }
}
