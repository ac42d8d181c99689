@testable import Daemon
import Engine
import FermataCore
import Foundation
import Testing
import TestSupport

/// The sleep timer's driver on a real player over the paced null output: the fade it asks of the output, the pause
/// when the output says silence, the level back for the next play; a pause during the fade ends it. (The fade itself,
/// frame by frame on captured audio, is `TimersE2ETests`.)
@Suite(.serialized) struct SleepServiceTests {
    /// Ticks until `done` holds, as the timers' loop does (bounded by `Patience`: a hang detector).
    static func tick(_ sleep: SleepService, until done: () async -> Bool) async throws -> Bool {
        try await Patience.wait {
            _ = await sleep.tick()
            return await done()
        }
    }

    @Test func fadesThenPausesAndTheNextPlayIsAtFullLevel() async throws {
        let rig = try await TimersRig()
        defer { rig.stop() }
        let sleep = SleepService(fadeSeconds: 1, endAction: .pause, player: rig.player, logger: TimersRig.logger,
                                 announce: {})
        try await rig.backend.editQueue(.add(.uri("wake/1.flac", recursive: false), at: .end))
        try await rig.backend.perform(.play)
        try await rig.backend.perform(.setVolume(60))
        #expect(try await Patience.wait { await rig.player.status().state == .playing })
        #expect(await sleep.set(seconds: 1) == 1)
        let fade = rig.engine.newestFade
        #expect(fade > 0, "the fade begins at once: the time is shorter than the fade")
        #expect(try await Self.tick(sleep) { await rig.player.status().state == .paused })
        #expect(await sleep.remaining() == nil)
        #expect(await rig.player.status().volume == 60, "the volume clients see never moved")
        // Let go as the output paused (`released`) — or, on a machine loaded enough that nothing of the fade was heard
        // before the timer's late grace paused playback, called off (`superseded`): either way play is heard at full
        // level, never held silent.
        #expect(try await Patience.wait { [.released, .superseded].contains(rig.engine.fadeState(of: fade)) },
                "the output let the silence go as it paused: play is heard at full level (\(rig.engine.fadeState(of: fade)))")
    }

    @Test func aPauseDuringTheFadeEndsTheTimer() async throws {
        let rig = try await TimersRig()
        defer { rig.stop() }
        let sleep = SleepService(fadeSeconds: 30, endAction: .pause, player: rig.player, logger: TimersRig.logger,
                                 announce: {})
        try await rig.backend.editQueue(.add(.uri("wake/1.flac", recursive: false), at: .end))
        try await rig.backend.perform(.play)
        #expect(try await Patience.wait { await rig.player.status().state == .playing })
        _ = await sleep.set(seconds: 20)
        let fade = rig.engine.newestFade
        #expect([.pending, .falling].contains(rig.engine.fadeState(of: fade)))
        try await rig.backend.perform(.pause)
        #expect(try await Self.tick(sleep) { await sleep.remaining() == nil }, "off")
        try await rig.backend.perform(.play)
        _ = await sleep.tick()
        #expect(await rig.player.status().state == .playing, "not paused again by a timer that is off")
        #expect([.released, .superseded].contains(rig.engine.fadeState(of: fade)),
                "let go by the pause, or called off before it began: \(rig.engine.fadeState(of: fade))")
    }

    @Test func offDuringTheFadeBringsTheLevelBack() async throws {
        let rig = try await TimersRig()
        defer { rig.stop() }
        let sleep = SleepService(fadeSeconds: 30, endAction: .pause, player: rig.player, logger: TimersRig.logger,
                                 announce: {})
        try await rig.backend.editQueue(.add(.uri("wake/1.flac", recursive: false), at: .end))
        try await rig.backend.perform(.play)
        _ = await sleep.set(seconds: 10)
        let down = rig.engine.newestFade
        await sleep.cancel()
        let up = rig.engine.newestFade
        #expect(up != down, "a fade back up was asked for")
        #expect(try await Patience.wait { rig.engine.fadeState(of: up) == .done }, "back at unity")
        #expect(await rig.player.status().state == .playing)
    }
}
