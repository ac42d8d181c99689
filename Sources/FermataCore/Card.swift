/// What one card starts, with the volume cap it brings. A value; any thread.
public struct CardBinding: Sendable, Equatable {
    public static let maxIDLength = 32

    /// The id as the reader types it (digits, upper-case A–F).
    public var id: String
    public var target: CardTarget
    /// The highest volume while its music plays.
    public var volumeMax: Int?
    /// "FILE:LINE" for a card of the configuration, "assigned" for one bound with `fermata card`.
    public var origin: String
    /// A practice piece's tempo (percent) and A–B loop (seconds), applied when the card starts it (configuration
    /// only; without them a piece comes back with its practice memory).
    public var tempoPercent: Int?
    public var loop: (start: Double, end: Double)?

    public init(id: String, target: CardTarget, volumeMax: Int?, origin: String, tempoPercent: Int? = nil,
                loop: (start: Double, end: Double)? = nil) {
        self.id = id
        self.target = target
        self.volumeMax = volumeMax
        self.origin = origin
        self.tempoPercent = tempoPercent
        self.loop = loop
    }

    public static func == (l: Self, r: Self) -> Bool {
        l.id == r.id && l.target == r.target && l.volumeMax == r.volumeMax && l.origin == r.origin
            && l.tempoPercent == r.tempoPercent && l.loop?.start == r.loop?.start && l.loop?.end == r.loop?.end
    }

    /// `text` as a card id (upper-cased), or nil when it is not one: 1–32 characters, digits and A–F.
    public static func normalized(_ text: String) -> String? {
        let id = text.uppercased()
        guard (1...maxIDLength).contains(id.utf8.count),
              id.utf8.allSatisfy({ (48...57).contains($0) || (65...70).contains($0) }) else { return nil }
        return id
    }
}

/// What a card plays: a stored playlist, an album (by its tag), a folder of the music directory, a practice piece (one
/// file, with its practice memory or the card's own loop and tempo), a network stream (a radio station's http(s) URL,
/// or its playlist's), or a control action (`play-pause`, `next`, `volume+5`, …). A value; any thread.
public enum CardTarget: Sendable, Hashable, CustomStringConvertible {
    case playlist(String)
    case album(String)
    case folder(String)
    case piece(String)
    /// An http or https URL, as written (a card reads `https://radio.example/live` directly).
    case stream(String)
    case action(String)

    public static let expected = "expected \"playlist:NAME\", \"album:NAME\", \"folder:PATH\", \"piece:FILE\", "
        + "an http(s) URL or \"action:ACTION\""

    public init?(parsing text: String) {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let value = String(text[text.index(after: colon)...])
        guard !value.isEmpty, value.utf8.count <= 1024, !value.utf8.contains(where: { $0 < 0x20 }) else { return nil }
        switch text[..<colon] {
        case "playlist": self = .playlist(value)
        case "album": self = .album(value)
        case "folder": self = .folder(value)
        case "piece": self = .piece(value)
        case "action": self = .action(value)
        case "http", "https":
            guard PlayableItem.isLive(text), !text.contains(" ") else { return nil }
            self = .stream(text)
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case let .playlist(name): "playlist:" + name
        case let .album(name): "album:" + name
        case let .folder(path): "folder:" + path
        case let .piece(path): "piece:" + path
        case let .stream(url): url
        case let .action(action): "action:" + action
        }
    }
}
