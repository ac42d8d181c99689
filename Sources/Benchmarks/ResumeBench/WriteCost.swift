import Foundation
import Glibc
import TestSupport

/// Bytes fermatad makes the kernel write (`/proc/PID/io` write_bytes) over `seconds` of playback, scaled to an hour.
func writtenPerHour(_ process: Process, seconds: Int) -> (bytes: Int, perHour: Double) {
    let before = procField(process.processIdentifier, "io", "write_bytes")
    sleep(UInt32(seconds))
    let after = procField(process.processIdentifier, "io", "write_bytes")
    return (after - before, Double(after - before) * 3600 / Double(seconds))
}

/// What steady playback costs: a fresh fermatad playing one track longer than the measurement, so only the position
/// checkpoints and the practice statistics write, and no track change (each saved durably, with its play count).
func measureCheckpointWrites(seconds: Int, work: TemporaryDirectory, binaries: String) throws {
    let music = work.file("long-music")
    let state = work.file("long-state")
    for dir in [music, state] { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
    let samples = TestSignal.sweep(frames: (seconds + 20) * 44_100, channels: 2, bits: 16)
    try WAVFixture.write(path: music + "/long.wav", samples: samples, channels: 2, sampleRate: 44_100, kind: .pcm16)
    let daemon = DaemonUnderTest(kind: .fermata, binaries: binaries, music: music, state: state, port: TestSocket.freePort())
    let process = try daemon.start()
    defer { DaemonUnderTest.stop(process) }
    let client = try daemon.connect()
    try client.ok("update")
    while try client.ok("stats")["songs"] != "1" { usleep(20_000) }
    try client.ok("add long.wav")
    try client.ok("play")
    sleep(2)
    let written = writtenPerHour(process, seconds: seconds)
    // A new connection: the first one has been idle longer than the server lets a client sit.
    let elapsed = try daemon.connect().ok("status")["elapsed"] ?? "?"
    print(String(format: "fermata: bytes written while playing one long track (checkpoints every 2 s, practice"
                 + " statistics every 30 s): %d B in %d s"
                 + " → %.2f MB per hour (elapsed %@ s)", written.bytes, seconds, written.perHour / 1e6, elapsed))
}
