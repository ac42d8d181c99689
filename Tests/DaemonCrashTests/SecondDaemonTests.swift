import Foundation
import Glibc
import Testing
import TestSupport

/// A second fermatad on a state directory in use — started by hand over SSH while the service runs — is refused before
/// it touches anything. It used to start, save its own queue over the running daemon's (that one's next save then
/// failed: "UNIQUE constraint failed", after its client had its OK) and unlink the running daemon's control socket.
@Suite struct SecondDaemonTests {
    @Test func aSecondDaemonOnTheSameStateIsRefusedAndTheFirstKeepsItsSocketAndQueue() async throws {
        let dir = try TemporaryDirectory(prefix: "fermata-second")
        let music = dir.file("music")
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        for (index, name) in ["a.flac", "b.flac"].enumerated() {
            try FLACFixture.write(path: music + "/" + name, samples: TestSignal.sweep(frames: 22_050, channels: 1, bits: 16,
                                                                                  sampleRate: 22_050, seed: UInt64(index)),
                                  channels: 1, bitsPerSample: 16, sampleRate: 22_050)
        }
        let socket = dir.file("mpd.sock")
        let arguments = ["--music", music, "--state", dir.file("state"), "--output", "null", "--socket", socket,
                         "--resume", "paused"]
        let port = TestSocket.freePort()
        let first = try FermatadProcess(arguments: arguments, port: port, logPath: dir.file("first.log"))
        let client = try await onThread { try first.connect() }
        try await onThread {
            try client.ok("update")
            while try client.ok("status")["updating_db"] != nil { try client.ok("idle update") }
            try client.ok("add a.flac")
        }

        let second = try FermatadProcess(arguments: arguments, port: TestSocket.freePort(),
                                         logPath: dir.file("second.log"))
        let exited = try await onThread { second.process.reap(timeout: Patience.stallSeconds) }  // a hang detector
        if !exited { second.stop() }
        #expect(exited, "the second daemon is still running; its log:\n\(second.log)")
        #expect(!exited || second.process.reapedTerminationStatus == 1)
        #expect(second.log.contains(
            "another fermatad (pid \(first.process.processIdentifier)) is using the state directory"), "\(second.log)")
        #expect(access(socket, F_OK) == 0, "the running daemon's socket was unlinked")

        _ = try await onThread { try client.ok("add b.flac") }
        #expect(try await onThread { first.stop() } == 0, "\(first.log)")
        #expect(!first.log.contains("cannot save"), "\(first.log)")
        let again = try FermatadProcess(arguments: arguments, port: port, logPath: dir.file("first.log"))
        let files = try await onThread { try again.connect().ok("playlistinfo").all("file") }
        #expect(files == ["a.flac", "b.flac"])
        #expect(try await onThread { again.stop() } == 0)
    }
}
