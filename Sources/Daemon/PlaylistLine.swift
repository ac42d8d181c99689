import FermataCore

/// One entry of a stored playlist: a song URI and, for a range or a practice section, the part of the file it plays.
/// In the `.m3u` file a part is a comment line before its URI, so MPD and other players read the file as plain URIs:
///
///     #FERMATA-SPAN:12.500-30.000 passes=4 tempo=80 section=the solo
///     Artist/Album/03 Track.flac
///
/// (seconds to the millisecond, the end optional as in MPD's `Range:`; `section=` last, as a name may hold spaces).
/// A value; any thread.
public struct PlaylistLine: Sendable, Hashable {
    public var uri: String
    public var span: PlaySpan?

    public init(uri: String, span: PlaySpan? = nil) {
        self.uri = uri
        self.span = span
    }

    static let spanPrefix = "#FERMATA-SPAN:"

    /// The file's lines for this entry.
    var text: String {
        guard let span else { return uri + "\n" }
        var words = [PlaySpan.seconds(span.startMilliseconds) + "-" + (span.endMilliseconds.map(PlaySpan.seconds) ?? "")]
        if span.passes != 1 { words.append("passes=\(span.passes)") }
        if let tempo = span.tempoPercent { words.append("tempo=\(tempo)") }
        // A name with a line break would end the comment early: the part is kept without its name.
        if let name = span.section, !name.contains(where: \.isNewline) { words.append("section=" + name) }
        return Self.spanPrefix + words.joined(separator: " ") + "\n" + uri + "\n"
    }

    /// The part a `#FERMATA-SPAN:` comment describes (after the prefix); nil when it is not one `PlaySpan` accepts,
    /// so a hand-edited mistake plays the whole file instead of failing the playlist.
    static func span(comment: Substring) -> PlaySpan? {
        var rest = comment[...]
        var name: String?
        if let marker = rest.firstRange(of: " section=") {
            name = String(rest[marker.upperBound...])
            rest = rest[..<marker.lowerBound]
        }
        let words = rest.split(separator: " ")
        guard let range = words.first, let dash = range.firstIndex(of: "-"),
              let start = PlaySpan.milliseconds(decimalSeconds: range[..<dash]) else { return nil }
        let endText = range[range.index(after: dash)...]
        var span = PlaySpan(startMilliseconds: start, section: name)
        if !endText.isEmpty {
            guard let end = PlaySpan.milliseconds(decimalSeconds: endText) else { return nil }
            span.endMilliseconds = end
        }
        for word in words.dropFirst() {
            let pair = word.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, let value = Int(pair[1]) else { return nil }
            switch pair[0] {
            case "passes": span.passes = value
            case "tempo": span.tempoPercent = value
            default: return nil
            }
        }
        return span.problem == nil ? span : nil
    }

    /// The entries of a playlist file's text: URI lines (blank ones and other comments skipped; `isSafe` decides
    /// which URIs are kept), each with the part the comment just before it describes.
    static func parse(_ text: String, isSafe: (String) -> Bool) -> [PlaylistLine] {
        var lines: [PlaylistLine] = []
        var pending: PlaySpan?
        // `isNewline`, not "\n": a CRLF file (written on Windows) has "\r\n", one Character that "\n" never matches.
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.drop(while: { $0 == " " || $0 == "\t" })
            if line.hasPrefix(spanPrefix) {
                pending = span(comment: line.dropFirst(spanPrefix.count).drop(while: { $0 == " " }))
                continue
            }
            let uri = String(line).trimmingTrailingSpace()
            if uri.isEmpty || uri.hasPrefix("#") { continue }
            defer { pending = nil }
            // A line that points outside the music directory (`/etc/…`, `../…`) or holds a NUL is skipped, as
            // `add` refuses it.
            guard isSafe(uri) else { continue }
            lines.append(PlaylistLine(uri: uri, span: pending))
        }
        return lines
    }
}

extension String {
    fileprivate func trimmingTrailingSpace() -> String {
        var end = endIndex
        while end > startIndex, self[index(before: end)] == " " || self[index(before: end)] == "\t" { end = index(before: end) }
        return String(self[..<end])
    }
}
