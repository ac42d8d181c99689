#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Text formatting shared by the response printers: value sanitizing, MPD's number and time formats.
///
/// Pure functions; callable from any thread.
public enum ResponseText {
    /// `value` with line breaks replaced by spaces, so a tag can never inject a protocol line.
    public static func sanitized(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) else { return value }
        return String(value.map { $0 == "\n" || $0 == "\r" || $0 == "\r\n" ? " " : $0 })
    }

    /// The largest magnitude printed in seconds; beyond it (only a backend bug gets there) values are clamped rather
    /// than trapping in `Int64(_:)`. About 292,000 years.
    static let maxPrintedSeconds = 9_000_000_000_000.0

    /// `value` with exactly three decimals (MPD's `%1.3f`), e.g. `12.5` → `12.500`.
    public static func fixed3(_ value: Double) -> String {
        guard value.isFinite else { return "0.000" }
        let thousandths = Int64((min(abs(value), maxPrintedSeconds) * 1000).rounded())
        let sign = value < 0 && thousandths != 0 ? "-" : ""
        let fraction = String(thousandths % 1000)
        return "\(sign)\(thousandths / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }

    /// Seconds rounded to the nearest whole second, as MPD prints `Time:` and `time:`.
    public static func wholeSeconds(_ value: Double) -> Int64 {
        value.isFinite && value > 0 ? Int64(min(value, maxPrintedSeconds).rounded()) : 0
    }

    /// A Unix time (seconds, UTC) in ISO 8601 as MPD prints `Last-Modified`, e.g. `2024-05-01T12:00:00Z`.
    public static func iso8601(_ unixTime: Int64) -> String {
        var bytes: [UInt8] = []
        appendISO8601(unixTime, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `iso8601` written straight into response bytes (a `listallinfo` prints two per song).
    static func appendISO8601(_ unixTime: Int64, to bytes: inout [UInt8]) {
        var seconds = time_t(unixTime)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else {
            bytes.append(contentsOf: "1970-01-01T00:00:00Z".utf8)
            return
        }
        func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            let value = value
            // Years past 9999 keep all their digits.
            while value / divisor >= 10 { divisor *= 10 }
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        let year = Int(parts.tm_year) + 1900
        if year < 0 { bytes.append(UInt8(ascii: "-")) }
        digits(abs(year), 1)
        bytes.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mon) + 1, 2)
        bytes.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mday), 2)
        bytes.append(UInt8(ascii: "T"))
        digits(Int(parts.tm_hour), 2)
        bytes.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_min), 2)
        bytes.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_sec), 2)
        bytes.append(UInt8(ascii: "Z"))
    }
}
