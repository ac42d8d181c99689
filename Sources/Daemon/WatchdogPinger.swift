import AudioCore
import Engine
import Logging
import Player

/// Sends systemd's `WATCHDOG=1` from a thread of its own, so the ping proves exactly one thing: the audio path is
/// alive (frames keep reaching the device while the engine plays, or it is paused, stopped or waiting for its
/// device). Nothing a client does can delay it: it reads only the engine's atomics, never waits for the player actor
/// or Swift's cooperative pool (two heavy searches once stretched the ping to 15 s with WatchdogSec=10).
///
/// Threads: `start` and `stop` are called by the owner (`PlayerService`); the loop runs on `fermata-watchdog`.
final class WatchdogPinger: Sendable {
    private let engine: PlaybackEngine
    private let notifier: SystemdNotifier
    private let interval: Duration
    private let logger: Logger
    private let thread = WorkerThread()
    private let stopBell = Doorbell()

    init(engine: PlaybackEngine, notifier: SystemdNotifier, interval: Duration, logger: Logger) {
        self.engine = engine
        self.notifier = notifier
        self.interval = interval
        self.logger = logger
    }

    func start() {
        thread.start(name: "fermata-watchdog") { [self] in loop() }
    }

    /// Ends the loop and waits for the thread.
    func stop() {
        stopBell.ring()
        thread.join()
    }

    private func loop() {
        // Total for any Duration (the interval is range-checked where WATCHDOG_USEC is read, but this must not trap).
        let (seconds, attoseconds) = interval.components
        let nanoseconds = seconds < 0 ? 0 : seconds >= Int64(Int.max / 1_000_000_000) ? Int.max
            : Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        var lastFrames = engine.framesWritten
        while !stopBell.wait(nanoseconds: nanoseconds) {
            let frames = engine.framesWritten
            let position = engine.position()
            let alive = position.state != .playing || frames != lastFrames || position.waitingForDevice
            lastFrames = frames
            if alive { notifier.watchdog() } else { logger.error("playback is stuck: no frames reached the device") }
        }
    }
}
