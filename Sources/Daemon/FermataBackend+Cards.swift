import FermataCore
import MPDProtocol

/// The cards commands (`cards`, `cardassign`, `cardlearn`, `cardforget`, `cardread`), answered by the daemon's
/// `CardService`.
extension FermataBackend {
    public func cards() async throws -> CardsReport {
        guard let service = cardService.withLock({ $0 }) else { throw MPDError(.unknown, "no cards here") }
        return await service.report()
    }

    public func editCards(_ edit: CardEdit) async throws {
        guard let service = cardService.withLock({ $0 }) else { throw MPDError(.unknown, "no cards here") }
        try await service.edit(edit)
    }
}
