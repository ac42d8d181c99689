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
    let logger: Logger

    public init(player: Player, checkpointInterval: Duration, logger: Logger) {
        self.player = player
        self.checkpointInterval = checkpointInterval
        self.logger = logger
    }

    public func run() async throws {
        let checkpoints = Task { await checkpointLoop() }
        await withDiscardingTaskGroup { group in
            group.addTask { await player.run() }
            try? await gracefulShutdown()
            checkpoints.cancel()
            await player.saveForShutdown()
            player.engine.shutdown()  // ends the engine's events, so `player.run()` returns by itself
        }
        logger.info("player stopped; state saved")
    }

    private func checkpointLoop() async {
        while !Task.isCancelled {
            await player.waitUntilPlaying()
            try? await Task.sleep(for: checkpointInterval)
            await player.checkpoint()
        }
    }
}
