import FermataCore
import Logging
import Player
import ServiceLifecycle

/// Runs the player for the daemon: consumes engine events, checkpoints the heard position every interval while audio
/// plays (and never wakes while it does not), and on shutdown saves the state and closes the device.
/// Threads: `run` is called once by the service group.
public struct PlayerService: Service {
    let player: Player
    let checkpointInterval: Duration
    let notifier: SystemdNotifier
    let logger: Logger
    /// Asked at shutdown whether the final save reached the disk (nil: not known, e.g. in tests).
    let store: StateStore?

    public init(player: Player, checkpointInterval: Duration, notifier: SystemdNotifier = SystemdNotifier(),
                store: StateStore? = nil, logger: Logger) {
        self.player = player
        self.store = store
        self.checkpointInterval = checkpointInterval
        self.notifier = notifier
        self.logger = logger
    }

    public func run() async throws {
        let checkpoints = Task { await checkpointLoop() }
        let watchdog = Task { await watchdogLoop() }
        defer { watchdog.cancel() }
        await withDiscardingTaskGroup { group in
            group.addTask { await player.run() }
            try? await gracefulShutdown()
            checkpoints.cancel()
            await player.saveForShutdown()
            player.engine.shutdown()  // ends the engine's events, so `player.run()` returns by itself
        }
        if let store, await store.isFailing {
            let lost = "the final state could not be written (disk full or read-only); the last saved state stands"
            logger.warning("player stopped; \(lost)")
        } else {
            logger.info("player stopped; state saved")
        }
    }

    /// `WATCHDOG=1` only while playback is alive: frames keep reaching the device when playing (or the player is
    /// paused, stopped or waiting for its device). A stuck output thread stops the pings and systemd restarts us.
    /// `STATUS=` says what is playing.
    private func watchdogLoop() async {
        guard let interval = notifier.watchdogInterval else { return }
        var lastFrames = player.engine.framesWritten
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            let frames = player.engine.framesWritten
            let status = await player.status()
            let alive = status.state != .playing || frames != lastFrames || status.lastError != nil
            lastFrames = frames
            if alive { notifier.watchdog() } else { logger.error("playback is stuck: no frames reached the device") }
            notifier.status(status.state == .playing ? "playing \(status.path ?? "")" : status.state.rawValue)
        }
    }

    private func checkpointLoop() async {
        while !Task.isCancelled {
            await player.waitUntilPlaying()
            try? await Task.sleep(for: checkpointInterval)
            await player.checkpoint()
        }
    }
}
