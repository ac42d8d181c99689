import Foundation
import Glibc
import Testing
import TestSupport

extension WebE2ETests {
    /// Scenario f: the web remote from an address that is not loopback, as a phone on the LAN reaches it. A network
    /// namespace joined to this one by a veth pair (10.213.N.1 here, 10.213.N.2 inside); fermatad's web remote listens on
    /// 10.213.N.1 and the browser runs inside the namespace (`ip netns exec`). Needs root and iproute2.
    @Suite struct Security {
        /// The namespace's name and the third octet of its addresses: this process's own, so that two runs side by side
        /// do not meet.
        static let namespace = "fermata-web-\(getpid())"
        static let octet = 1 + Int(getpid() % 250)

        /// Without a password: the login page says how to set one, the API is 401, a login 503. After `fermata web
        /// password` and `--guest`: a wrong password refused; the owner's login gives the stand; with that session a
        /// change without X-Fermata-Request, from another Origin or marked cross-site is 403; the cookie is HttpOnly and
        /// SameSite=Strict; logging out ends it; the guest gets play, pause, skip and the volume only (403 for the rest).
        @Test(.enabled(if: WebPrograms.hasBrowser, "needs chromium, chromium-driver and python3-selenium (deploy/build-deps.sh)"),
              .enabled(if: WebPrograms.ip != nil, "needs root and iproute2's ip for a network namespace (run as root)"))
        func fromAnotherAddress() async throws {
            let ip = try #require(WebPrograms.ip)
            let name = Self.namespace, octet = String(Self.octet)
            let netns = { @Sendable (what: String) throws -> ProgramResult in
                try WebPrograms.run(WebPrograms.python, [WebPrograms.script("netns.py"), what, name, octet])
            }
            let up = try await onThread { try netns("up") }
            try #require(up.status == 0, "netns.py up: \(up)")
            do {
                try await WebDaemon.with(webHost: "10.213.\(octet).1") { daemon in
                    try await Scripts.run("security.py", daemon.settings, prefix: [ip, "netns", "exec", name])
                }
            } catch {
                _ = try? await onThread { try netns("down") }
                throw error
            }
            let down = try await onThread { try netns("down") }
            #expect(down.status == 0, "netns.py down: \(down)")
        }
    }
}
