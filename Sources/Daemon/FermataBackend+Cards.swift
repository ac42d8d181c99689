import FermataCore
import MPDProtocol
import WebRemote

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

    /// `webpassword`: the web remote's password for `role`, hashed and stored; its sessions end.
    public func setWebPassword(_ password: String?, for role: WebRole) async throws {
        guard let access = webAccess.withLock({ $0 }) else { throw MPDError(.unknown, "the web remote is off (web.listen)") }
        do {
            try await access.setPassword(password, for: role)
        } catch let error as WebAccessError {
            throw MPDError(.system, error.description)
        }
        logger.notice("web remote: the \(role.rawValue)'s password was \(password == nil ? "removed" : "set")")
    }
}
