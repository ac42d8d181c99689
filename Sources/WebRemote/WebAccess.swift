import FermataCore
import Foundation

/// Who may use the web remote: logins, sessions and the two passwords (owner and guest).
///
/// A request from the box itself (the loopback address: a browser on the box, or an SSH tunnel) is the owner's without
/// a login, as the MPD port on loopback is; from anywhere else it needs a session: `login` checks the password (the
/// yescrypt hash the state database keeps; the wrong ones slowed down by the throttle the MPD port shares), and answers
/// a token the page keeps in an HttpOnly cookie. Tokens are 256 random bits; the database keeps their sha256crypt hash,
/// so a copy of the database opens no session. A session unused for `sessionLifetime` ends; at most `maxSessions` are
/// kept (the least recently used goes first). Setting a password ends that role's sessions.
///
/// Threads: an actor; the web server's request tasks and the MPD backend (`web_password`) call it. Hashing runs on
/// `BlockingWork`, never on the actor or the cooperative pool.
public actor WebAccess {
    /// Why a login was refused.
    public enum LoginRefusal: Error, Equatable {
        /// No password of either role is set: nobody can log in from the network yet.
        case noPassword
        case wrongPassword
    }

    static let maxSessions = 64
    /// How long a session may go unused (and how often its last use is written: at most once an hour).
    let sessionLifetime: Duration
    let store: any WebAccessStore
    let throttle: PasswordThrottle
    /// Sessions by id, loaded from the store at the first use.
    private var sessions: [String: WebSessionRecord] = [:]
    private var loaded = false
    /// Cookies already checked against their hash (the hash costs a millisecond; a page sends many requests).
    private var verified: [String: String] = [:]

    public init(store: any WebAccessStore, throttle: PasswordThrottle, sessionLifetime: Duration = .seconds(30 * 86_400)) {
        self.store = store
        self.throttle = throttle
        self.sessionLifetime = sessionLifetime
    }

    /// Whether a password is set for each role (the login page says how to set one when none is).
    public func passwordsSet() async -> (owner: Bool, guest: Bool) {
        let owner = (try? await store.webPasswordHash(for: .owner)) ?? nil
        let guest = (try? await store.webPasswordHash(for: .guest)) ?? nil
        return (owner != nil, guest != nil)
    }

    /// Sets `role`'s password (nil: removes it, so that role cannot log in from the network); its sessions end.
    public func setPassword(_ password: String?, for role: WebRole) async throws {
        var hash: String?
        if let password {
            guard let made = await BlockingWork.run({ PasswordHash.yescrypt(password) }) else {
                throw WebAccessError("the password could not be hashed (libcrypt)")
            }
            hash = made
        }
        try await store.setWebPasswordHash(hash, for: role, at: Self.now())
        try await loadIfNeeded()
        for (id, session) in sessions where session.role == role { sessions[id] = nil }
        verified = verified.filter { sessions[Self.sessionID(ofCookie: $0.key) ?? ""] != nil }
    }

    /// Checks `password` from `peer` (its address: the throttle's key) against the owner's, then the guest's; on
    /// success, a new session and its cookie value. A refusal is answered after the throttle's delay for `peer`.
    public func login(password: String, peer: String) async throws -> (cookie: String, role: WebRole) {
        let owner = try await store.webPasswordHash(for: .owner)
        let guest = try await store.webPasswordHash(for: .guest)
        guard owner != nil || guest != nil else { throw LoginRefusal.noPassword }
        let role: WebRole? = await BlockingWork.run {
            if let owner, PasswordHash.verify(password, against: owner) { return .owner }
            if let guest, PasswordHash.verify(password, against: guest) { return .guest }
            return nil
        }
        guard let role else {
            try? await Task.sleep(for: throttle.refused(peer))
            throw LoginRefusal.wrongPassword
        }
        throttle.accepted(peer)
        let id = Self.randomHex(bytes: 16), secret = Self.randomHex(bytes: 32)
        guard let hash = await BlockingWork.run({ PasswordHash.token(secret) }) else {
            throw WebAccessError("the session could not be made (libcrypt)")
        }
        try await loadIfNeeded()
        let now = Self.now()
        let session = WebSessionRecord(id: id, tokenHash: hash, role: role, createdAt: now, usedAt: now)
        try await store.saveWebSession(session)
        sessions[id] = session
        let cookie = id + "." + secret
        verified[cookie] = id
        try await evictBeyondLimit()
        return (cookie, role)
    }

    /// The role of the session `cookie` names, or nil (none, ended, expired, or a wrong token).
    public func role(ofCookie cookie: String) async -> WebRole? {
        guard let id = Self.sessionID(ofCookie: cookie), (try? await loadIfNeeded()) != nil,
              var session = sessions[id] else { return nil }
        let now = Self.now()
        if Duration.seconds(now - session.usedAt) > sessionLifetime {
            await end([id])
            return nil
        }
        if verified[cookie] != id {
            let secret = String(cookie.dropFirst(id.count + 1))
            let hash = session.tokenHash
            guard await BlockingWork.run({ PasswordHash.verify(secret, against: hash) }) else { return nil }
            if verified.count > 4 * Self.maxSessions { verified.removeAll() }
            verified[cookie] = id
        }
        // The last use is written at most once an hour: a page's requests must not wear the SD card.
        if now - session.usedAt > 3600 {
            session.usedAt = now
            sessions[id] = session
            try? await store.saveWebSession(session)
        }
        return session.role
    }

    /// Ends the session `cookie` names (logging out).
    public func logout(cookie: String) async {
        guard let id = Self.sessionID(ofCookie: cookie) else { return }
        await end([id])
    }

    // MARK: helpers

    private func end(_ ids: [String]) async {
        for id in ids { sessions[id] = nil }
        verified = verified.filter { !ids.contains($0.value) }
        try? await store.deleteWebSessions(ids: ids)
    }

    private func loadIfNeeded() async throws {
        guard !loaded else { return }
        let stored = try await store.webSessions()
        // Loaded while another call waited: keep what is there now (a login made meanwhile).
        if !loaded {
            for session in stored where sessions[session.id] == nil { sessions[session.id] = session }
            loaded = true
        }
    }

    private func evictBeyondLimit() async throws {
        guard sessions.count > Self.maxSessions else { return }
        let stalest = sessions.values.sorted { $0.usedAt < $1.usedAt }.prefix(sessions.count - Self.maxSessions)
        await end(stalest.map(\.id))
    }

    /// "id.secret" → id, when it has that shape (hexadecimal, 32 and 64 digits).
    static func sessionID(ofCookie cookie: String) -> String? {
        let parts = cookie.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 32, parts[1].count == 64,
              cookie.utf8.allSatisfy({ $0 == UInt8(ascii: ".") || ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) })
        else { return nil }
        return String(parts[0])
    }

    static func randomHex(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef")
        var out = ""
        for _ in 0..<count {
            let byte = UInt8.random(in: 0...255, using: &generator)
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 15)])
        }
        return out
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }
}

/// A web access failure with its reason in words.
public struct WebAccessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
