import Daemon
import DatabaseFile
import FermataCore
import Foundation
import Practice
import Synchronization
import TestSupport

/// `fermata-practice-bench`: what the practice statistics cost. One simulated hour of playing (the 1 Hz observation,
/// a flush every 30 s) against a real state database: bytes this process handed to write(2) (`wchar`, WAL included),
/// and the time of one observation. A process of its own, so nothing else writes meanwhile.

/// The simulated wall clock. Thread-safe (a mutex).
final class SteppedClock: PracticeClock {
    private let time = Mutex(Date(timeIntervalSince1970: 1_741_777_200))
    var now: Date { time.withLock { $0 } }
    func advance(seconds: Double) { time.withLock { $0 += seconds } }
}

/// A player that is always playing one track. An actor; any task.
actor PlayingPlayer: PlayerControl {
    func perform(_ action: ControlAction) async throws {}
    func status() async -> PlayerStatus {
        var status = PlayerStatus()
        status.state = .playing
        status.entryID = 1
        status.path = "Artist/Album/01 Some Track.flac"
        status.sourceSampleRate = 44_100
        return status
    }
}

func writtenBytes() -> Int {
    let text = (try? String(contentsOfFile: "/proc/self/io", encoding: .utf8)) ?? ""
    let line = text.split(separator: "\n").first { $0.hasPrefix("wchar:") } ?? ""
    return Int(line.split(separator: " ").last ?? "") ?? 0
}

let state = try TemporaryDirectory(prefix: "fermata-practice-bench")
let database = try FermataDatabase(stateDirectory: state.path, schema: .fermata)
let clock = SteppedClock()
let recorder = PracticeRecorder(player: PlayingPlayer(), store: PracticeStore(database: database), clock: clock)
await recorder.observe()
let before = writtenBytes()
let started = ContinuousClock.now
for _ in 0..<3600 {
    clock.advance(seconds: 1)
    await recorder.observe()
}
let elapsed = ContinuousClock.now - started
let written = writtenBytes() - before
let total = try await recorder.report(.today).totalSeconds
print("practice statistics, one simulated hour of playing (\(Int(total)) s counted):")
print("  bytes written: \(written) (write(2) bytes, WAL included; 120 flushes)")
print("  one observation: \(elapsed / 3600) on average, flushes included")
