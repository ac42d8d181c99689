@testable import Daemon
import DatabaseFile
import Engine
import FermataConfig
import FermataCore
import Foundation
import Library
import Logging
import MPDProtocol
import Player
import StateDatabase
import Synchronization
import TestSupport

/// The daemon's timers over a real backend, player and state database, with no daemon around them: a music folder
/// `wake/` of one 4 s track, scanned; the paced null output. The clocks are the test's (`TestClock`).
///
/// Owned by one test; `stop()` ends the engine and the player's event loop.
struct TimersRig {
    let dir: TemporaryDirectory
    let database: FermataDatabase
    let engine: PlaybackEngine
    let player: Player
    let backend: FermataBackend
    let clock = TestClock()
    private let events: Task<Void, Never>
    static let logger = Logger(label: "timers-test")

    init() async throws {
        dir = try TemporaryDirectory(prefix: "fermata-timers")
        let music = dir.file("music")
        try FileManager.default.createDirectory(atPath: music + "/wake", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir.file("state/playlists"), withIntermediateDirectories: true)
        // Long enough that no test sees it end: on a loaded machine, 4 s had played out before a check read "playing".
        try await NullSinkPlayer.writeSweep(music + "/wake/1.flac", seconds: 40, seed: 5)
        database = try FermataDatabase(stateDirectory: dir.file("state"), schema: .fermata)
        var settings = DaemonConfig()
        settings.output = "null"
        let made = OutputSet.make(config: settings, saved: [:], logger: Self.logger)
        var config = EngineConfig()
        config.realtimePriority = nil
        engine = PlaybackEngine(sink: made.sink, config: config, taps: made.taps)
        let player = Player(engine: engine, musicDirectory: music)
        self.player = player
        events = Task { await player.run() }
        let library = Library(database: database, musicDirectory: music)
        _ = try await library.scan()
        backend = FermataBackend(player: player, library: library, playlists: PlaylistStore(directory: dir.file("state/playlists")),
                                 outputs: made.outputs, store: StateStore(database: database, logger: Self.logger),
                                 logger: Self.logger)
    }

    func stop() {
        engine.shutdown()
        events.cancel()
    }

    /// A sleep timer on the rig's player with the rig's monotonic clock.
    func sleepService(fadeSeconds: Int = 30) -> SleepService {
        SleepService(fadeSeconds: fadeSeconds, endAction: .pause, player: player, logger: Self.logger,
                     clock: { [clock] in clock.monotonic }, announce: {})
    }

    /// An alarm service over the rig's database, its clocks the rig's, its zone `zone`.
    func alarmService(sleep: SleepService, zone: any LocalTimeZone) -> AlarmService {
        AlarmService(storage: AlarmStorage(database: database),
                     firing: AlarmFiring(backend: backend, player: player, sleep: sleep, logger: Self.logger),
                     logger: Self.logger, announce: {}, zone: zone, read: { [clock] in clock.reading })
    }

    /// The URIs of the queue.
    func queue() async throws -> [String] { try await backend.queueSongs(.all).map(\.uri) }
}

/// Both clocks as the test sets them: the wall clock may jump, the monotonic one only advances.
/// Threads: any (a `Mutex`).
final class TestClock: Sendable {
    private let state = Mutex((wall: Int64(0), monotonic: UInt64(1_000_000_000_000)))

    var reading: AlarmClock.Reading {
        state.withLock { AlarmClock.Reading(wallMilliseconds: $0.wall * 1000, monotonicNanoseconds: $0.monotonic) }
    }
    var monotonic: UInt64 { state.withLock { $0.monotonic } }

    /// Sets the wall clock (Unix seconds) without moving the monotonic one: a clock set by NTP or by hand.
    func setWall(_ seconds: Int64) { state.withLock { $0.wall = seconds } }

    /// Time passes: both clocks move by `seconds`.
    func advance(_ seconds: Int64) {
        state.withLock {
            $0.wall += seconds
            $0.monotonic += UInt64(seconds) * 1_000_000_000
        }
    }
}

/// A zone at a fixed offset from UTC (no clock changes): the alarms' times in the tests' own words.
struct FixedZone: LocalTimeZone {
    var offset = 0
    func secondsFromGMT(atUnixSeconds unixSeconds: Int64) -> Int { offset }
}
