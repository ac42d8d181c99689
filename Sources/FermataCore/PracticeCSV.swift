/// The practice statistics as comma-separated values, one row per day, track and loop region:
/// `day,file,title,artist,section,loop_start,loop_end,seconds` (a track's row leaves the loop columns empty; its loops'
/// rows follow it), quoted as RFC 4180 says. `fermata practice --csv` and the web remote's download write it.
///
/// Pure; any thread.
public enum PracticeCSV {
    public static let header = "day,file,title,artist,section,loop_start,loop_end,seconds"

    /// One row; each field as written (numbers already formatted), nil as empty.
    public static func row(_ fields: [String?]) -> String {
        fields.map { field($0 ?? "") }.joined(separator: ",")
    }

    /// A field, quoted when it holds a comma, a quote or a line break (quotes doubled).
    public static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        var out = "\""
        for character in text { out += character == "\"" ? "\"\"" : String(character) }
        return out + "\""
    }
}
