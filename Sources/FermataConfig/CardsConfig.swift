import FermataCore

/// The `[cards]` section and the `[card-ID]` sections: what each RFID card (or barcode) starts, as a household box
/// uses them. A card reader is an `[input-NAME]` with `cards = true` (the controls' side); this is what its ids do.
///
///     [cards]
///     again = "pause"          # the same card while its music plays: pause (and play again), restart, or ignore
///
///     [card-0001234567]
///     play = "playlist:Lullabies"   # or album:NAME, folder:PATH (in the music directory), piece:FILE, action:ACTION
///     volume_max = 40               # the volume stays at or below this while the card's music plays
///
/// Cards bound with `fermata card assign`/`learn` are kept in the state database and listed beside these. A value
/// type; any thread.
public struct CardsConfig: Sendable, Equatable {
    /// What the card that started what is playing does when it is read again.
    public enum Again: String, Sendable, CaseIterable {
        /// Pause; read again, play on (a toggle).
        case pause
        /// Start its music again from the beginning.
        case restart
        /// Nothing.
        case ignore
    }

    public var again = Again.pause
    public var bindings: [CardBinding] = []

    public init() {}

    static func isSection(_ section: String) -> Bool { section == "cards" || section.hasPrefix("card-") }

    /// Builds the cards from the entries of `[cards]` and every `[card-ID]` section.
    static func parse(_ entries: [ConfigEntry], file: String) throws(ConfigError) -> CardsConfig {
        var config = CardsConfig()
        var order: [String] = []
        var sections: [String: [ConfigEntry]] = [:]
        for entry in entries {
            if entry.section == "cards" {
                guard entry.key == "again" else {
                    throw ConfigError(file: file, line: entry.line, key: entry.qualifiedKey,
                                      message: "unknown key (a card's binding goes in its own [card-ID] section)")
                }
                let options = Again.allCases.map(\.rawValue).joined(separator: ", ")
                guard case let .string(text) = entry.value, let again = Again(rawValue: text) else {
                    throw ConfigError(file: file, line: entry.line, key: entry.qualifiedKey,
                                      message: "must be one of " + options)
                }
                config.again = again
                continue
            }
            if sections[entry.section] == nil { order.append(entry.section) }
            sections[entry.section, default: []].append(entry)
        }
        for section in order {
            let entries = sections[section] ?? []
            let line = entries.first?.line ?? 0
            guard let id = CardBinding.normalized(String(section.dropFirst("card-".count))) else {
                throw ConfigError(file: file, line: line, key: nil, message: "[\(section)]: a card id is 1 to "
                    + "\(CardBinding.maxIDLength) digits or letters A-F, as the reader types it: [card-0001234567]")
            }
            var play: CardTarget?
            var volumeMax: Int?
            var tempo: Int?
            var loop: (start: Double, end: Double)?
            for entry in entries {
                switch (entry.key, entry.value) {
                case let ("play", .string(text)):
                    guard let target = CardTarget(parsing: text) else {
                        throw ConfigError(file: file, line: entry.line, key: entry.qualifiedKey,
                                          message: CardTarget.expected)
                    }
                    play = target
                case let ("volume_max", .integer(value)) where (0...100).contains(value):
                    volumeMax = value
                case ("volume_max", _):
                    throw ConfigError(file: file, line: entry.line, key: entry.qualifiedKey,
                                      message: "must be a whole number from 0 to 100")
                case let ("tempo", .integer(value)) where (50...150).contains(value):
                    tempo = value
                case ("tempo", _):
                    throw ConfigError(file: file, line: entry.line, key: entry.qualifiedKey,
                                      message: "must be a whole number from 50 to 150 (percent)")
                case let ("loop", .string(text)):
                    let ends = text.split(separator: "-", omittingEmptySubsequences: false).map { Double($0) }
                    guard ends.count == 2, let start = ends[0], let end = ends[1], start.isFinite, end.isFinite,
                          start >= 0, end > start, end <= 86_400 else {
                        throw ConfigError(file: file, line: entry.line, key: entry.qualifiedKey,
                                          message: "expected \"A-B\" in seconds, 0 <= A < B, e.g. \"12.5-20\"")
                    }
                    loop = (start, end)
                case ("loop", _):
                    throw ConfigError(file: file, line: entry.line, key: entry.qualifiedKey,
                                      message: "expected \"A-B\" in seconds, e.g. \"12.5-20\"")
                case ("play", _):
                    throw ConfigError(file: file, line: entry.line, key: entry.qualifiedKey, message: CardTarget.expected)
                default:
                    throw ConfigError(file: file, line: entry.line, key: entry.qualifiedKey, message: "unknown key")
                }
            }
            guard let play else {
                throw ConfigError(file: file, line: line, key: "\(section).play",
                                  message: "missing: what the card plays (" + CardTarget.expected + ")")
            }
            guard !config.bindings.contains(where: { $0.id == id }) else {
                throw ConfigError(file: file, line: line, key: nil, message: "card \(id) is bound twice")
            }
            if tempo != nil || loop != nil, case .piece = play {} else if tempo != nil || loop != nil {
                throw ConfigError(file: file, line: line, key: "\(section).play",
                                  message: "tempo and loop belong to a practice piece: play = \"piece:FILE\"")
            }
            config.bindings.append(CardBinding(id: id, target: play, volumeMax: volumeMax, origin: "\(file):\(line)",
                                               tempoPercent: tempo, loop: loop))
        }
        return config
    }
}
