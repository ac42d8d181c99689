import ArgumentParser
import FermataCore

/// A 1-based queue position as people count (`fermata queue rm 3`, `fermata play 2`): 1 up to the protocol's
/// largest position. Zero and negatives are refused where they are parsed (exit 64) — `rm 0` used to become
/// `delete -1`, which empties the whole queue.
///
/// A plain value; parsed by ArgumentParser.
struct QueuePosition: ExpressibleByArgument, Hashable, Comparable, CustomStringConvertible {
    /// The largest position the protocol takes (MPD's positions are 32-bit).
    static let largest = Int(Int32.max)

    /// 1-based.
    let number: Int

    init?(argument: String) {
        guard let value = Int(argument), (1...Self.largest).contains(value) else { return nil }
        number = value
    }

    /// The protocol's 0-based index.
    var index: Int { number - 1 }
    var description: String { String(number) }
    static func < (a: Self, b: Self) -> Bool { a.number < b.number }

    static var defaultValueDescription: String { "1-based position" }

    /// The message for text that is not a position (the CLI's own wording, with the range).
    static func problem(_ text: String) -> String {
        if let value = Int(text), value <= 0 { return "positions start at 1 (got \(text))" }
        return "a position is a whole number from 1 to \(largest) (got \(text))"
    }
}

/// A time for `fermata seek`: seconds (`90`, `12.5`), `m:ss` or `h:mm:ss`, optionally `+`/`-` for relative; finite and
/// at most `maximumSeconds`, so `seek 1e300` is refused here rather than sent on.
///
/// A plain value.
struct SeekTime: Hashable {
    /// Ten days: longer than any track, far from every conversion limit.
    static let maximumSeconds = 864_000.0

    enum Direction: Hashable { case absolute, forward, backward }

    let direction: Direction
    let seconds: Double

    init?(_ text: String) {
        let sign = text.first
        direction = sign == "+" ? .forward : sign == "-" ? .backward : .absolute
        let body = direction == .absolute ? Substring(text) : text.dropFirst()
        let parts = body.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0.0
        for (index, part) in parts.enumerated() {
            // Only plain decimal digits: no "nan", "inf", exponents or a second sign.
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
                  let value = Double(part), value.isFinite else { return nil }
            if index > 0, value >= 60 { return nil }  // m:ss — the seconds and minutes fields are below 60
            total = total * 60 + value
        }
        guard total <= Self.maximumSeconds else { return nil }
        seconds = total
    }

    /// The `seekcur` argument.
    var protocolArgument: String {
        switch direction {
        case .absolute: String(seconds)
        case .forward: "+" + String(seconds)
        case .backward: "-" + String(seconds)
        }
    }
}

/// `N`, `+N` or `-N` within bounds (volume 0–100 and ±100; tempo 50–150 and ±100).
///
/// A plain value.
struct StepValue: Hashable {
    let relative: Bool
    let value: Int

    init?(_ text: String, absolute: ClosedRange<Int>, step: ClosedRange<Int>) {
        relative = text.hasPrefix("+") || text.hasPrefix("-")
        guard let number = Int(text.hasPrefix("+") ? String(text.dropFirst()) : text),
              (relative ? step : absolute).contains(number) else { return nil }
        value = number
    }

    /// The number as the protocol takes it (`+5`, `-5`, `80`).
    var text: String { relative && value >= 0 ? "+\(value)" : String(value) }
}

// The domain's choices as command-line values: ArgumentParser lists the cases in help and refuses anything else.
extension RepeatMode: ExpressibleByArgument {}
extension ReplayGainMode: ExpressibleByArgument {}

extension DeviceFormatSetting: ExpressibleByArgument {
    public init?(argument: String) { self.init(text: argument) }
    public var defaultValueDescription: String { description }
}

/// The words of a command that takes signed numbers (`seek -5`, `volume -10`, `loop nudge a -250`), parsed with
/// `.allUnrecognized` so a negative number is not an unknown option. That strategy also keeps the `--` a shell user
/// types before a negative number (`seek -- -5`) as a word: `dropTerminator` takes the first one out.
enum SignedWords {
    static func dropTerminator(_ words: [String]) -> [String] {
        guard let index = words.firstIndex(of: "--") else { return words }
        var rest = words
        rest.remove(at: index)
        return rest
    }
}
