import FermataCore

/// RFID cards: `cards`, `cardassign ID TARGET [VOLUME_MAX]`, `cardlearn TARGET [VOLUME_MAX]`, `cardforget ID`,
/// `cardread ID`.
///
/// Stateless; run on the executing command's task.
enum CardCommands {
    /// `cards`: for each card, `card`, `play` (`playlist:NAME`, `album:NAME`, `folder:PATH` or `action:ACTION`),
    /// `volume_max` when it has one, and `origin` ("FILE:LINE" or "assigned"); then `active_card` (whose music is in
    /// the queue) and `unknown_card` with `unknown_card_seconds_ago` (the last card read that is bound to nothing).
    static func cards(_ c: inout CommandContext) async throws {
        let report = try await c.backend.cards()
        for card in report.cards {
            c.response.line("card", card.id)
            c.response.line("play", card.target.description)
            if let cap = card.volumeMax { c.response.line("volume_max", String(cap)) }
            c.response.line("origin", card.origin)
        }
        if let active = report.active { c.response.line("active_card", active) }
        if let unknown = report.unknown {
            c.response.line("unknown_card", unknown.id)
            c.response.line("unknown_card_seconds_ago", String(unknown.secondsAgo))
        }
    }

    /// `cardassign ID TARGET [VOLUME_MAX]`.
    static func cardAssign(_ c: inout CommandContext) async throws {
        let id = try cardID(c.arguments[0])
        let target = try cardTarget(c.arguments[1])
        let cap = try c.arguments.count > 2 ? ArgumentParser.int(c.arguments[2], in: 0...100) : nil
        try await c.backend.editCards(.assign(id: id, target: target, volumeMax: cap))
    }

    /// `cardlearn TARGET [VOLUME_MAX]`: binds the last unknown card read.
    static func cardLearn(_ c: inout CommandContext) async throws {
        let target = try cardTarget(c.arguments[0])
        let cap = try c.arguments.count > 1 ? ArgumentParser.int(c.arguments[1], in: 0...100) : nil
        try await c.backend.editCards(.learn(target: target, volumeMax: cap))
    }

    /// `cardforget ID`: unbinds an assigned card (a card of the configuration stays until the file changes).
    static func cardForget(_ c: inout CommandContext) async throws {
        try await c.backend.editCards(.forget(id: try cardID(c.arguments[0])))
    }

    /// `cardread ID`: does what reading the card would do.
    static func cardRead(_ c: inout CommandContext) async throws {
        try await c.backend.editCards(.read(id: try cardID(c.arguments[0])))
    }

    static func cardID(_ text: String) throws(MPDError) -> String {
        guard let id = CardBinding.normalized(text) else {
            throw MPDError(.argument, "a card id is 1 to \(CardBinding.maxIDLength) digits or letters A-F")
        }
        return id
    }

    static func cardTarget(_ text: String) throws(MPDError) -> CardTarget {
        guard let target = CardTarget(parsing: text) else { throw MPDError(.argument, CardTarget.expected) }
        return target
    }
}
