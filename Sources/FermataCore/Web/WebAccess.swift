/// Who a web remote session acts for: the owner (everything the page offers) or a guest (play, pause, skip and the
/// volume within its cap: a child's or a visitor's phone).
public enum WebRole: String, Sendable, Hashable, CaseIterable {
    case owner
    case guest
}

/// One web remote session as the state database keeps it: the token's hash (never the token), its role, and when it
/// was made and last used (Unix seconds).
public struct WebSessionRecord: Sendable, Hashable {
    public var id: String
    public var tokenHash: String
    public var role: WebRole
    public var createdAt: Int64
    public var usedAt: Int64

    public init(id: String, tokenHash: String, role: WebRole, createdAt: Int64, usedAt: Int64) {
        self.id = id
        self.tokenHash = tokenHash
        self.role = role
        self.createdAt = createdAt
        self.usedAt = usedAt
    }
}

/// What the web remote keeps across restarts and power cuts: the password hashes (owner's and guest's, set with
/// `fermata web password`) and the sessions. Implemented by the state database (`StateStore`); the web remote is its
/// only caller.
///
/// Methods may be called from any task; each write is durable when it returns.
public protocol WebAccessStore: Sendable {
    /// The stored hash of `role`'s password (nil: none set).
    func webPasswordHash(for role: WebRole) async throws -> String?
    /// Sets (nil: removes) `role`'s password hash, and ends every session of that role in the same transaction.
    func setWebPasswordHash(_ hash: String?, for role: WebRole, at time: Int64) async throws
    /// Every session kept.
    func webSessions() async throws -> [WebSessionRecord]
    /// Adds or replaces a session.
    func saveWebSession(_ session: WebSessionRecord) async throws
    /// Ends sessions by id (unknown ids are ignored).
    func deleteWebSessions(ids: [String]) async throws
}
