/// Durations as people write them for the household timers: `90s`, `30m`, `1h`, `1h30m`, `2h5m10s`; and how they are
/// printed back (`1h 30m`, `29m 58s`). Read digit by digit with a bound, so no text can overflow or trap.
///
/// Pure; any thread.
public enum TimerDuration {
    /// What a sleep timer may be set to: one second to a day.
    public static let sleepSeconds: ClosedRange<Int> = 1...86_400

    /// Seconds from `text`: groups of digits each followed by `h`, `m` or `s` (in that order, each at most once); a
    /// bare number is `bareUnit` seconds each (the CLI's `fermata sleep 30` is 30 minutes, the protocol's
    /// `sleep_timer 30` is 30 seconds). Nil when unreadable, zero, or above `limit`.
    public static func seconds(_ text: some StringProtocol, bareUnit: Int = 60, limit: Int = sleepSeconds.upperBound)
        -> Int? {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= 16 else { return nil }
        var total = 0
        var digits = 0
        var value = 0
        var lastUnit = 0  // 3 = h, 2 = m, 1 = s: each unit must come after the bigger ones
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                digits += 1
                guard digits <= 6 else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "h"), UInt8(ascii: "m"), UInt8(ascii: "s"):
                let (rank, size) = byte == UInt8(ascii: "h") ? (3, 3600) : byte == UInt8(ascii: "m") ? (2, 60) : (1, 1)
                guard digits > 0, lastUnit == 0 || rank < lastUnit else { return nil }
                total += value * size
                guard total <= limit else { return nil }
                (digits, value, lastUnit) = (0, 0, rank)
            default:
                return nil
            }
        }
        if digits > 0 {
            guard lastUnit == 0 else { return nil }  // "1h30": a unit is missing
            guard bareUnit > 0, value <= limit / bareUnit else { return nil }
            total = value * bareUnit
        }
        return total > 0 && total <= limit ? total : nil
    }

    /// `1h 30m`, `29m 58s`, `45s` (zero and below: `0s`).
    public static func text(seconds: Int) -> String {
        guard seconds > 0 else { return "0s" }
        let h = seconds / 3600, m = seconds % 3600 / 60, s = seconds % 60
        var parts: [String] = []
        if h > 0 { parts.append("\(h)h") }
        if m > 0 { parts.append("\(m)m") }
        if s > 0 && h == 0 { parts.append("\(s)s") }
        return parts.isEmpty ? "\(h)h" : parts.joined(separator: " ")
    }
}
