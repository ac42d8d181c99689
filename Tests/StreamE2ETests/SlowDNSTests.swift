import Foundation
import Glibc
import Synchronization
import Testing
import TestSupport

/// A station whose name takes seconds to resolve, and one whose name never resolves: fermatad runs with a resolver
/// of its own (`with_dns.sh`: a private mount namespace whose /etc/resolv.conf points at `slow_dns.py`), so libcurl's
/// threaded resolver meets the slow answers. The slow one plays; the dead one fails within the connect bound with a
/// clear error; no status answer waits for either. Root only (a mount namespace, port 53): CI runs as root.
@Suite(.serialized) struct SlowDNSTests {
    static let isRoot = getuid() == 0

    @Test(.enabled(if: isRoot, "needs root: a mount namespace and port 53"))
    func aSlowNameResolvesAndADeadOneFailsInTime() async throws {
        let scratch = try TemporaryDirectory(prefix: "fermata-dns")
        let dns = try await onThread {
            try BackgroundTool("slow_dns.py", ["--address", "127.53.0.1", "--port", "53", "--delay", "2"], scratch: scratch)
        }
        let server = try await onThread { try BackgroundTool("hostile_server.py", ["--port", "0"], scratch: scratch) }
        let launcher = ["/bin/bash", StreamTools.tool("with_dns.sh"), "--options", "timeout:4 attempts:1", "--"]
        let daemon = try await onThread {
            try StreamDaemon(config: "[streams]\nconnect_timeout_ms = 6000\n", launcher: launcher)
        }
        _ = dns
        let slowest = Mutex<Double>(0)
        let polling = Atomic<Bool>(true)
        let poller = Task.detached {
            while polling.load(ordering: .relaxed) {
                let started = ContinuousClock.now
                _ = try? daemon.status()
                let took = ContinuousClock.now - started
                slowest.withLock { $0 = max($0, Double(took.components.seconds) + Double(took.components.attoseconds) * 1e-18) }
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        try await onThread {
            try daemon.ok("add " + "http://never.test:\(server.port)/ok.mp3".quoted)
            try daemon.ok("add " + "http://radio.test:\(server.port)/ok.mp3?loop=0".quoted)
            try daemon.ok("play")
        }
        let played = try await Patience.wait {
            daemon.log.contains("skipping entry 1:") && Double((try? daemon.status()["elapsed"]) ?? nil ?? "0") ?? 0 > 1
        }
        polling.store(false, ordering: .relaxed)
        await poller.value
        let log = daemon.log
        #expect(played, "\(log)")
        let failure = log.split(separator: "\n").first { $0.contains("skipping entry 1:") }
        #expect(failure?.contains("never.test") == true && failure?.contains("resolve") == true, "\(failure ?? "")")
        #expect(!log.contains("skipping entry 2:"), "the slow name resolved and played:\n\(log)")
        #expect(slowest.withLock { $0 } < 2, "slowest status answer: \(slowest.withLock { $0 }) s (the lookups take 2 s and more)")
        #expect(try await onThread { daemon.stop() } == 0)
    }
}
