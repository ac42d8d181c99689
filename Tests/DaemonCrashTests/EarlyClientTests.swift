import Foundation
import Glibc
import Testing
import TestSupport

/// A restart opens the control port while it still reads the saved queue back (audio starts from the current entry
/// first); commands wait for the whole queue, so a client that connects at once never sees it half restored.
@Suite struct EarlyClientTests {
    @Test func aClientConnectingAtOnceSeesTheWholeQueue() async throws {
        let dir = try TemporaryDirectory(prefix: "fermata-early")
        let music = dir.file("music")
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        for track in 0..<4 {
            let signal = TestSignal.sweep(frames: 22_050 * 4, channels: 1, bits: 16, sampleRate: 22_050, seed: UInt64(track))
            try FLACFixture.write(path: music + "/\(track).flac", samples: signal, channels: 1, bitsPerSample: 16,
                                  sampleRate: 22_050, tags: ["TITLE": "t\(track)"])
        }
        let state = dir.file("state")
        let log = dir.file("fermatad.log")
        let port = TestSocket.freePort()
        var daemon = try FermatadProcess.forCrashTest(music: music, state: state, port: port, log: log)
        var client = try await daemon.connected()
        try client.ok("update")
        // The scan's end is an `update` event (changes wait for the connection's next idle: no race with status).
        while try client.ok("status")["updating_db"] != nil { try client.ok("idle update") }
        try client.sendLine("command_list_begin")
        for index in 0..<20_000 { try client.sendLine("add \"\(index % 4).flac\"") }
        try client.ok("command_list_end")
        try client.ok("play 15000")
        daemon.stop()

        for attempt in 0..<3 {
            daemon = try FermatadProcess.forCrashTest(music: music, state: state, port: port, log: log)
            // Connect as soon as the port is there (every 0.2 ms), and ask at once. On a thread of its own (the poll
            // would hold a thread of the cooperative pool the whole time the restart takes), and bounded only as a hang
            // detector: 100,000 tries (20 s and more) were a bound on the restart, which a loaded machine can overrun.
            let early = try await onThread { () -> (client: MPDTestClient, status: MPDReply)? in
                let deadline = ContinuousClock.now + Patience.stall
                while ContinuousClock.now < deadline {
                    if let connected = try? MPDTestClient(port: port) { return (connected, try connected.ok("status")) }
                    usleep(200)
                }
                return nil
            }
            let (connected, status) = try #require(early, "attempt \(attempt): never connected")
            client = connected
            #expect(status["playlistlength"] == "20000", "attempt \(attempt): \(status)")
            #expect(status["song"] == "15000", "attempt \(attempt): \(status)")
            daemon.stop()
        }
    }
}
