import AudioCore
import AudioOutput
import Controls
import Engine
import FermataCore
import Foundation
import Logging
import Player
import Testing
import TestSupport

/// The volume ceiling (`audio.volume_max`, a card's cap) is kept by the player itself, so every path that changes
/// the volume keeps it: here the buttons and the encoder, through the whole controls service (edge records on a
/// pipe, the GPIO thread, the gesture engine) into a real `Player`; the protocol and the CLI are in
/// `CardsE2ETests`.
@Suite(.serialized) struct VolumeCeilingTests {
    static let boards = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("boards").path

    @Test func aLowerCeilingBringsTheVolumeDownAndEverySetterStaysUnderIt() async throws {
        let rig = NullSinkPlayer()
        defer { rig.stop() }
        let player = rig.player
        try await player.perform(.setVolume(90))
        await player.setVolumeCeiling(40)
        #expect(await player.status().volume == 40, "lowered at once")
        try await player.perform(.setVolume(100))
        #expect(await player.status().volume == 40)
        try await player.perform(.changeVolume(by: 30))
        #expect(await player.status().volume == 40)
        try await player.perform(.changeVolume(by: -15))
        #expect(await player.status().volume == 25)
        await player.setVolumeCeiling(100)
        #expect(await player.status().volume == 25, "a higher ceiling raises nothing by itself")
        try await player.perform(.setVolume(100))
        #expect(await player.status().volume == 100)
    }

    @Test func buttonsAndTheEncoderStayUnderTheCeiling() async throws {
        let overrides = try ProfileFile.parse("""
            [controls]
            realtime_priority = 0

            [button-next]
            press = "volume+10"
            """, file: "overrides.toml")
        let config = try BoardProfile.load(file: Self.boards + "/generic-40pin.toml", overrides: overrides).controls
        let keymap = Keymap(config)
        let line = { (name: String) in keymap.lines.firstIndex { $0.ref == .name(name) }! }
        let rig = NullSinkPlayer()
        defer { rig.stop() }
        let player = rig.player
        try await player.perform(.setVolume(20))
        await player.setVolumeCeiling(45)
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        let service = GPIOInputService(config: config, player: player, logger: Logger(label: "test"),
                                       input: .records(fd: fds[0], userDebounce: true))
        let task = Task { try await service.run() }
        defer { task.cancel() }
        let ms: UInt64 = 1_000_000
        var edges: [RawEdge] = []
        var t = MonotonicClock.nanoseconds() + 50 * ms
        // Four presses of the volume+10 button: 20 → 30 → 40 → 45 → 45.
        for _ in 0..<4 {
            edges += [RawEdge(line: line("GPIO5"), level: true, time: t), RawEdge(line: line("GPIO5"), level: false, time: t + 60 * ms)]
            t += 150 * ms
        }
        // Then ten slow clockwise detents of the encoder (volume+2 each).
        for _ in 0..<10 {
            edges += [RawEdge(line: line("GPIO23"), level: true, time: t), RawEdge(line: line("GPIO24"), level: true, time: t + 10 * ms),
                      RawEdge(line: line("GPIO23"), level: false, time: t + 20 * ms),
                      RawEdge(line: line("GPIO24"), level: false, time: t + 30 * ms)]
            t += 200 * ms
        }
        let writer = fds[1]
        let records = edges
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                for edge in records {
                    let now = MonotonicClock.nanoseconds()
                    if edge.time > now { usleep(UInt32((edge.time - now) / 1000)) }
                    let bytes = PipeEdgeSource.record(edge)
                    _ = bytes.withUnsafeBytes { Foundation.write(writer, $0.baseAddress, $0.count) }
                }
                done.resume()
            }.start()
        }
        // The button's presses must have raised it (so the ceiling, not a dead path, holds it at 45).
        var volumes: [Int] = []
        let deadline = ContinuousClock.now + Patience.stall  // a hang detector: 45 stays once reached
        while ContinuousClock.now < deadline {
            volumes.append(await player.status().volume)
            if volumes.last == 45 { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(volumes.last == 45, "\(volumes)")
        #expect(await player.status().volume == 45)
        close(writer)
    }
}
