import AudioCore
import AudioOutput
import Engine
import FermataCore
import Foundation
import Player
import TestSupport
import Testing

/// A device that vanishes mid-track: the engine closes it, retries, and resumes at the same sample.
@Suite struct DeviceLossTests {
    /// A sweep of 50,000 frames (seed `seed`), written in `dir`, played through `sink` from its start; the player's
    /// event task and the sweep, to compare with what the sink recorded. Shut the engine down at the end.
    static func playSweep(seed: UInt64, in dir: TemporaryDirectory, into sink: sending MemorySink,
                          retryMilliseconds: Int = 1000) async throws
        -> (engine: PlaybackEngine, player: Player, events: Task<Void, Never>, signal: [Int32]) {
        let signal = TestSignal.sweep(frames: 50_000, channels: 2, bits: 16, seed: seed)
        let path = dir.file("t.flac")
        try FLACFixture.write(path: path, samples: signal, channels: 2, bitsPerSample: 16, sampleRate: 44_100)
        var config = EngineConfig()
        config.deviceRetryMilliseconds = retryMilliseconds
        config.realtimePriority = nil
        let engine = PlaybackEngine(sink: sink, config: config)
        let player = Player(engine: engine)
        let events = Task { await player.run() }
        let ids = try await player.add(paths: [path])
        try await player.perform(.playEntry(ids[0]))
        return (engine, player, events, signal)
    }

    @Test func resumesAtTheSamePositionWhenTheDeviceReturns() async throws {
        let sink = MemorySink(capacityBytes: 1 << 20, loseAfterFrames: 17_000, refusedOpens: 2)
        let recording = sink.recording
        let dir = try TemporaryDirectory()
        let (engine, player, events, signal) = try await Self.playSweep(seed: 31, in: dir, into: sink,
                                                                       retryMilliseconds: 50)
        try await withProgressWatchdog("the track through a lost device", progress: { engine.position() }) {
            await player.waitUntilStopped()
        }
        engine.shutdown()
        _ = await events.value
        #expect(recording.opens == 2, "one open at start, one after the refusals")
        #expect(firstDifference(int16Samples(recording.bytes()), signal) == nil, "nothing lost, nothing repeated")
    }

    /// An underrun recovered in place: nothing lost or repeated, and the heard clock counts it and starts a new line
    /// (the device played silence while the heard position stood still), which recording places its takes by. The
    /// sink stops at the underrun until the test has read the clock before it.
    @Test func anUnderrunStartsANewHeardClockLine() async throws {
        let gate = SinkGate()
        let sink = MemorySink(capacityBytes: 1 << 20, underrunAfterFrames: 17_000, underrunGate: gate)
        let recording = sink.recording
        let dir = try TemporaryDirectory()
        let (engine, player, events, signal) = try await Self.playSweep(seed: 33, in: dir, into: sink)
        let reached = try await onThread { gate.arrived.wait(timeout: .now() + Patience.ceilingSeconds) == .success }
        let before = engine.heardClock()  // the output thread waits in the write that underruns
        gate.release.signal()
        try await withProgressWatchdog("the track through an underrun", progress: { engine.position() }) {
            await player.waitUntilStopped()
        }
        let after = engine.heardClock()  // the last one published, periods after the underrun
        engine.shutdown()
        _ = await events.value
        try #require(reached, "the sink never reached its underrun")
        #expect(firstDifference(int16Samples(recording.bytes()), signal) == nil, "nothing lost, nothing repeated")
        #expect(before.bytesPerFrame > 0 && before.xruns == 0 && after.xruns == 1, "\(before) then \(after)")
        #expect(after.epoch > before.epoch, "a new line after the underrun: \(before.epoch), \(after.epoch)")
    }

    @Test func absentDeviceAtStartIsWaitedFor() async throws {
        let dir = try TemporaryDirectory()
        let signal = TestSignal.sweep(frames: 10_000, channels: 2, bits: 16, seed: 32)
        let path = dir.file("t.flac")
        try FLACFixture.write(path: path, samples: signal, channels: 2, bitsPerSample: 16, sampleRate: 44_100)
        var config = EngineConfig()
        config.deviceRetryMilliseconds = 20
        config.realtimePriority = nil
        // A device name alsa-lib cannot open: the engine keeps retrying and reports it.
        let engine = PlaybackEngine(sink: ALSASink(device: "fermata_no_such_pcm"), config: config)
        let player = Player(engine: engine)
        let events = Task { await player.run() }
        let ids = try await player.add(paths: [path])
        try await player.perform(.playEntry(ids[0]))
        // The engine's first open fails at once, and the state stays while the device is missing: the wait is only a
        // hang detector (the old 200 polls of 10 ms were a 2 s bound, which a loaded machine can overrun).
        var waiting = false
        let deadline = ContinuousClock.now + Patience.stall
        while !waiting, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
            waiting = engine.position().waitingForDevice
        }
        #expect(waiting)
        #expect(await player.status().lastError == "waiting for the audio device")
        engine.shutdown()
        _ = await events.value
    }

    /// The log said "audio device lost or absent" and never why: the sink's error was dropped (`try?`). The event
    /// now carries what failed and the errno's words, from the real ALSA sink (a PCM alsa-lib does not know) and
    /// from a write that finds the device gone.
    @Test func theReasonADeviceIsMissingReachesTheEvent() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("t.flac")
        let signal = TestSignal.sweep(frames: 44_100, channels: 2, bits: 16, seed: 33)
        try FLACFixture.write(path: path, samples: signal, channels: 2, bitsPerSample: 16, sampleRate: 44_100)
        var config = EngineConfig()
        config.deviceRetryMilliseconds = 20
        config.realtimePriority = nil
        /// The first `deviceLost` event's reason (nil: the events ended without one; `Stalled` when none came and the
        /// engine showed nothing new for `Patience.stallSeconds`).
        func firstLoss(_ sink: sending any AudioSink) async throws -> String? {
            let engine = PlaybackEngine(sink: sink, config: config)
            defer { engine.shutdown() }
            engine.start(PlayableItem(entryID: 1, path: path), atFrame: 0, countIn: nil, generation: 1)
            return try await withProgressWatchdog("the first device-lost event",
                                                  progress: { engine.position() }) { () async -> String? in
                for await event in engine.events { if case let .deviceLost(reason) = event { return reason } }
                return nil
            }
        }
        let opening = try await firstLoss(ALSASink(device: "fermata_no_such_pcm"))
        #expect(opening?.hasPrefix("opening the device: ") == true && opening?.contains("(error ") == true,
                "\(opening ?? "no event")")
        let writing = try await firstLoss(MemorySink(capacityBytes: 1 << 20, loseAfterFrames: 4_000))
        #expect(writing == "writing to the device: No such device (error 19)")
    }
}
