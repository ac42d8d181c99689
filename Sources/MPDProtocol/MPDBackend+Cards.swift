import FermataCore

/// What the cards are bound to, for Fermata's `cards` command (`fermata card list`). A value; any thread.
public struct CardsReport: Sendable, Equatable {
    /// The configuration's cards, then the assigned ones (an assigned card replaces a configured one with its id).
    public var cards: [CardBinding] = []
    /// The card whose music is in the queue (its volume cap holds), if any.
    public var active: String?
    /// The last card read that is bound to nothing (what `cardlearn` binds), and how many whole seconds ago.
    public var unknown: (id: String, secondsAgo: Int64)?

    public init() {}

    public static func == (l: Self, r: Self) -> Bool {
        l.cards == r.cards && l.active == r.active && l.unknown?.id == r.unknown?.id
            && l.unknown?.secondsAgo == r.unknown?.secondsAgo
    }
}

/// A change to the cards (`cardassign`, `cardlearn`, `cardforget`), or a card read on behalf of a reader
/// (`cardread`: what a reader would do, for trying a binding without the card). A value; any thread.
public enum CardEdit: Sendable, Hashable {
    case assign(id: String, target: CardTarget, volumeMax: Int?)
    /// Binds the last unknown card read.
    case learn(target: CardTarget, volumeMax: Int?)
    case forget(id: String)
    case read(id: String)
}

/// The default for backends without cards (test doubles): `ACK [5@0] {…} no cards here`.
extension MPDBackend {
    public func cards() async throws -> CardsReport {
        throw MPDError(.unknown, "no cards here")
    }

    public func editCards(_ edit: CardEdit) async throws {
        throw MPDError(.unknown, "no cards here")
    }

    public func setWebPassword(_ password: String?, for role: WebRole) async throws {
        throw MPDError(.unknown, "no web remote here")
    }
}
