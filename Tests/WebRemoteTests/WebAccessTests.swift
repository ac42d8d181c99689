import FermataCore
import Synchronization
import Testing
@testable import WebRemote

/// The web remote's passwords and sessions (`WebAccess`) over a store in memory: hashes, never clear text; a wrong
/// password slowed down by the shared throttle; a session's cookie, and nothing else, opens it; a password change ends
/// that role's sessions; a session unused too long ends.
@Suite struct WebAccessTests {
    /// `WebAccessStore` in memory, counting writes.
    final class MemoryStore: WebAccessStore, Sendable {
        struct State {
            var hashes: [WebRole: String] = [:]
            var sessions: [String: WebSessionRecord] = [:]
            var writes = 0
        }

        let state = Mutex(State())

        func webPasswordHash(for role: WebRole) async throws -> String? { state.withLock { $0.hashes[role] } }
        func setWebPasswordHash(_ hash: String?, for role: WebRole, at time: Int64) async throws {
            state.withLock { state in
                state.hashes[role] = hash
                state.sessions = state.sessions.filter { $0.value.role != role }
                state.writes += 1
            }
        }
        func webSessions() async throws -> [WebSessionRecord] { state.withLock { Array($0.sessions.values) } }
        func saveWebSession(_ session: WebSessionRecord) async throws {
            state.withLock { state in
                state.sessions[session.id] = session
                state.writes += 1
            }
        }
        func deleteWebSessions(ids: [String]) async throws {
            state.withLock { state in for id in ids { state.sessions[id] = nil } }
        }
    }

    static func access(_ store: MemoryStore = MemoryStore(), lifetime: Duration = .seconds(3600)) -> WebAccess {
        WebAccess(store: store, throttle: PasswordThrottle(first: .milliseconds(50), cap: .milliseconds(200)),
                  sessionLifetime: lifetime)
    }

    @Test func hashesVerifyTheirOwnPasswordOnly() throws {
        let hash = try #require(PasswordHash.yescrypt("correct horse battery"))
        #expect(hash.hasPrefix("$y$"), "yescrypt: \(hash)")
        #expect(!hash.contains("correct horse"), "no clear text in the hash")
        #expect(PasswordHash.verify("correct horse battery", against: hash))
        #expect(!PasswordHash.verify("correct horse batterY", against: hash))
        #expect(!PasswordHash.verify("", against: hash))
        #expect(PasswordHash.yescrypt("correct horse battery") != hash, "a fresh salt each time")
        let token = try #require(PasswordHash.token("abc"))
        #expect(token.hasPrefix("$5$") && PasswordHash.verify("abc", against: token) && !PasswordHash.verify("abd", against: token))
        #expect(!PasswordHash.verify("x", against: "not a hash"))
    }

    @Test func noPasswordMeansNoLogin() async {
        let access = Self.access()
        await #expect(throws: WebAccess.LoginRefusal.noPassword) { _ = try await access.login(password: "anything", peer: "p") }
    }

    @Test func aSessionOpensWithItsCookieAndEndsWithThePassword() async throws {
        let store = MemoryStore()
        let access = Self.access(store)
        try await access.setPassword("owner-secret", for: .owner)
        try await access.setPassword("guest-secret", for: .guest)
        #expect(store.state.withLock { $0.hashes.values.allSatisfy { $0.hasPrefix("$y$") && !$0.contains("secret") } })
        let owner = try await access.login(password: "owner-secret", peer: "10.0.0.2")
        let guest = try await access.login(password: "guest-secret", peer: "10.0.0.3")
        #expect(owner.role == .owner && guest.role == .guest)
        #expect(await access.role(ofCookie: owner.cookie) == .owner)
        #expect(await access.role(ofCookie: guest.cookie) == .guest)
        // The store keeps the token's hash, not the token.
        let secret = String(owner.cookie.split(separator: ".")[1])
        #expect(store.state.withLock { $0.sessions.values.allSatisfy { !$0.tokenHash.contains(secret) } })
        // A cookie with another secret, or mangled, opens nothing.
        let forged = String(owner.cookie.prefix(33)) + String(repeating: "0", count: 64)
        #expect(await access.role(ofCookie: forged) == nil)
        #expect(await access.role(ofCookie: "x") == nil)
        #expect(await access.role(ofCookie: owner.cookie + "0") == nil)
        // A new guest password ends the guest's sessions, not the owner's.
        try await access.setPassword("another-guest", for: .guest)
        #expect(await access.role(ofCookie: guest.cookie) == nil)
        #expect(await access.role(ofCookie: owner.cookie) == .owner)
        // A restart (a new WebAccess over the same store) keeps the owner's session.
        #expect(await Self.access(store).role(ofCookie: owner.cookie) == .owner)
        await access.logout(cookie: owner.cookie)
        #expect(await access.role(ofCookie: owner.cookie) == nil)
    }

    @Test func aWrongPasswordIsRefusedAfterTheThrottlesDelay() async throws {
        let access = Self.access()
        try await access.setPassword("owner-secret", for: .owner)
        let clock = ContinuousClock()
        var delays: [Duration] = []
        for _ in 0..<3 {
            let start = clock.now
            await #expect(throws: WebAccess.LoginRefusal.wrongPassword) {
                _ = try await access.login(password: "guess", peer: "10.0.0.9")
            }
            delays.append(clock.now - start)
        }
        // 50, 100, 200 ms: each answer waits at least its delay (more on a loaded machine, never less).
        #expect(delays[0] >= .milliseconds(50) && delays[1] >= .milliseconds(100) && delays[2] >= .milliseconds(200),
                "\(delays)")
    }

    @Test func anUnusedSessionEnds() async throws {
        let access = Self.access(lifetime: .seconds(-1))
        try await access.setPassword("owner-secret", for: .owner)
        let session = try await access.login(password: "owner-secret", peer: "p")
        #expect(await access.role(ofCookie: session.cookie) == nil, "a session older than its lifetime opens nothing")
    }
}
