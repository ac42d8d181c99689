import Engine
import FermataCore
import Logging
import Player
import ServiceLifecycle
import StateDatabase

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
        let pinger = notifier.watchdogInterval.map {
            WatchdogPinger(engine: player.engine, notifier: notifier, interval: $0, logger: logger)
        }
        pinger?.start()
        let statusLine = Task { await statusLoop() }
        defer {
            statusLine.cancel()
            pinger?.stop()
        }
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

    /// `STATUS=` says what is playing (systemctl status), refreshed every watchdog interval; the watchdog itself is
    /// `WatchdogPinger`, on a thread of its own.
    private func statusLoop() async {
        guard let interval = notifier.watchdogInterval else { return }
        var last = ""
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            let status = await player.status()
            let text = status.state == .playing ? "playing \(status.path ?? "")" : status.state.rawValue
            if text != last { notifier.status(text) }
            last = text
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
