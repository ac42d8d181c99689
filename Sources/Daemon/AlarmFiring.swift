import Controls
import Engine
import FermataCore
import Logging
import MPDProtocol
import Player

/// What an alarm does when it fires: the sleep timer is off (someone is to wake up); the output goes silent and fades
/// in over the alarm's fade-in (the engine's fade, apart from the volume: the volume shown is the alarm's at once);
/// the volume is set (the player's `volume_min` and `volume_max` still hold); the queue is replaced with what the
/// source names and plays — or, for an `action:` source, the action is done (`action:play` wakes to whatever is in
/// the queue). A source with nothing to play changes nothing, and says so in the log.
///
/// A value; `AlarmService` calls it from its actor.
public struct AlarmFiring: Sendable {
    let backend: FermataBackend
    let player: Player
    let sleep: SleepService
    let logger: Logger

    public init(backend: FermataBackend, player: Player, sleep: SleepService, logger: Logger) {
        self.backend = backend
        self.player = player
        self.sleep = sleep
        self.logger = logger
    }

    func play(_ alarm: Alarm) async {
        await sleep.cancel()
        let source: QueueSource
        switch alarm.source {
        case let .target(.action(name)):
            let mode = await player.status().repeatMode
            guard let action = KeyAction(parsing: name)?.controlAction(currentRepeat: mode) else {
                logger.warning("alarms: alarm \(alarm.id): \"\(name)\" is not a player action; nothing done")
                return
            }
            await begin(alarm)
            do { try await backend.perform(action) } catch { report(alarm, error) }
            return
        case let .target(target):
            guard let queued = QueueSource(target: target) else { return }
            source = queued
        case let .stream(url):
            source = .uri(url, recursive: false)
        }
        do {
            // Resolved first: a playlist or folder that is gone leaves the queue and the music as they were.
            guard try await !backend.resolve(source).isEmpty else {
                logger.warning("alarms: alarm \(alarm.id): \(alarm.source) has no songs; nothing changed")
                return
            }
            await begin(alarm)
            try await backend.editQueue(.clear)
            try await backend.editQueue(.add(source, at: .end))
            try await backend.perform(.play)
        } catch {
            report(alarm, error)
        }
    }

    /// Silence, then the fade-in, and the alarm's volume.
    private func begin(_ alarm: Alarm) async {
        if alarm.fadeSeconds > 0 { player.engine.fade(.fromSilence(milliseconds: alarm.fadeSeconds * 1000)) }
        guard let volume = alarm.volume else { return }
        do { try await backend.perform(.setVolume(volume)) } catch { report(alarm, error) }
    }

    private func report(_ alarm: Alarm, _ error: any Error) {
        logger.warning("alarms: alarm \(alarm.id): \(alarm.source): \(error)")
    }
}
