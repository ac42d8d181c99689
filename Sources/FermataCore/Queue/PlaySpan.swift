/// The part of its file a queue entry plays instead of the whole: MPD's song range (`rangeid`, `Range:`) and a
/// practice section queued by name ("the solo of track 3 four times at 80 %"). From `startMilliseconds` to
/// `endMilliseconds` (nil: the file's end), `passes` times (the loop seam between passes is the A–B loop's, then the
/// stream goes on gaplessly to the next entry), at `tempoPercent` (nil: the listener's tempo, which the entry after it
/// returns to). `section`: the name of the section it was queued as (a stored playlist names it, so a section edited
/// since plays as edited).
///
/// A value; any thread.
public struct PlaySpan: Sendable, Hashable {
    public var startMilliseconds: Int64
    public var endMilliseconds: Int64?
    /// 1 to 1000.
    public var passes: Int
    /// 50–150 %, nil: the listener's.
    public var tempoPercent: Int?
    public var section: String?

    public init(startMilliseconds: Int64, endMilliseconds: Int64? = nil, passes: Int = 1, tempoPercent: Int? = nil,
                section: String? = nil) {
        self.startMilliseconds = startMilliseconds
        self.endMilliseconds = endMilliseconds
        self.passes = passes
        self.tempoPercent = tempoPercent
        self.section = section
    }

    /// A section as a queue entry's span: its ends, its passes (a section looping for ever plays once here: a queue
    /// entry ends), its tempo, its name.
    public init(section: PracticeSection) {
        self.init(startMilliseconds: section.startMilliseconds, endMilliseconds: section.endMilliseconds,
                  passes: section.passes ?? 1, tempoPercent: section.tempoPercent, section: section.name)
    }

    /// MPD's `START:END` in seconds, either side optional (`rangeid`); nil when not that shape, negative, not
    /// finite, past 24 hours, or with the end not after the start. Both empty (`:`) is "no range": `.some(nil)`.
    public static func parseMPDRange(_ text: String) -> PlaySpan?? {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        func milliseconds(_ part: Substring) -> Int64?? {
            if part.isEmpty { return .some(nil) }
            return Self.milliseconds(decimalSeconds: part).map { .some($0) }
        }
        guard let start = milliseconds(parts[0]), let end = milliseconds(parts[1]) else { return nil }
        if start == nil && end == nil { return .some(nil) }
        let span = PlaySpan(startMilliseconds: start ?? 0, endMilliseconds: end)
        if let end, end <= span.startMilliseconds { return nil }
        return .some(span)
    }

    /// `SECONDS[.FRACTION]` (`12.5`, `.25`, `61.005`) as milliseconds, rounded half up at the fourth decimal; nil for
    /// anything else (a sign, an exponent, `nan`, a second point) or past 24 hours. Digits only, in integer arithmetic:
    /// no conversion that could trap. MPD's `rangeid` and a stored playlist's `#FERMATA-SPAN:` both read it.
    public static func milliseconds(decimalSeconds text: Substring) -> Int64? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0], fraction = parts.count == 2 ? parts[1] : ""
        guard !(whole.isEmpty && fraction.isEmpty), whole.count <= 6,
              (whole + fraction).allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        var total = (Int64(whole) ?? 0) * 1000
        for (place, digit) in zip([100, 10, 1, 0] as [Int64], fraction.prefix(4)) {
            let value = Int64(digit.wholeNumberValue ?? 0)
            total += place > 0 ? value * place : (value >= 5 ? 1 : 0)
        }
        return total <= PracticeSection.maxMilliseconds ? total : nil
    }

    /// Nil when usable: 0 ≤ start < end ≤ 24 h, 1–1000 passes, 50–150 %, a section name as sections have.
    public var problem: String? {
        guard startMilliseconds >= 0, startMilliseconds <= PracticeSection.maxMilliseconds else {
            return "a range starts between 0 and 24 hours"
        }
        if let end = endMilliseconds, end <= startMilliseconds || end > PracticeSection.maxMilliseconds {
            return "a range ends after its start, within 24 hours"
        }
        guard (1...1000).contains(passes) else { return "a range plays 1 to 1000 times" }
        if let tempoPercent, !(50...150).contains(tempoPercent) { return "a range's tempo is 50-150 %" }
        if let section, let problem = PracticeSection.nameProblem(section) { return problem }
        return nil
    }

    /// The range as MPD prints it (`Range: 12.500-30.000`, `Range: 12.500-`), nil for a span that is the whole file.
    public var mpdRange: String? {
        if let end = endMilliseconds { return Self.seconds(startMilliseconds) + "-" + Self.seconds(end) }
        return startMilliseconds > 0 ? Self.seconds(startMilliseconds) + "-" : nil
    }

    /// Non-negative milliseconds as seconds with three decimals (`12.500`), as MPD prints a range.
    public static func seconds(_ milliseconds: Int64) -> String {
        let ms = max(0, milliseconds)
        let fraction = String(ms % 1000)
        return "\(ms / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
