import AudioCore
import AudioOutput
import Engine
import FermataCore
import Player
import Foundation
import TestSupport

/// Command → first changed frame at the device, for seeks and pauses, on a paced output with 5 ms periods.
enum TransportBenchmark {
    static func run(output: OutputSpec, commands: Int, directory: TemporaryDirectory) async throws {
        let frames = 44_100 * 60
        var signal = [Int32](repeating: 0, count: frames * 2)
        for frame in 0..<frames {
            signal[frame * 2] = Int32(Int16(truncatingIfNeeded: frame))
            signal[frame * 2 + 1] = Int32(Int16(truncatingIfNeeded: frame >> 16))
        }
        let path = directory.file("index.flac")
        try FLACFixture.write(path: path, samples: signal, channels: 2, bitsPerSample: 16, sampleRate: 44_100)
        let stamps = SinkTimestamps()
        let sink = InstrumentedSink(output.makeSink(), stamps: stamps)
        let name = sink.name
        let config = EngineConfig()
        let engine = PlaybackEngine(sink: sink, config: config)
        let player = Player(engine: engine)
        let events = Task { await player.run() }
        let ids = try await player.add(paths: [path])
        try await player.perform(.playEntry(ids[0]))
        try await Task.sleep(for: .milliseconds(300))
        print("output: \(name); period \(config.periodMilliseconds) ms × \(config.periods); " +
              "output thread \(engine.schedulingNote)")

        var seekLatencies: [Double] = []
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<commands {
            let target = Int64.random(in: 44_100...(Int64(frames) - 441_000), using: &generator)
            let started = MonotonicClock.nanoseconds()
            try await player.perform(.seek(seconds: Double(target) / 44_100))
            let deadline = started + 1_000_000_000
            while stamps.jumpTime < started || abs(stamps.jumpIndex - target) > 1 {
                if MonotonicClock.nanoseconds() > deadline { break }
                try await Task.sleep(for: .microseconds(200))
            }
            if abs(stamps.jumpIndex - target) <= 1 { seekLatencies.append(Double(stamps.jumpTime - started) / 1e6) }
            try await Task.sleep(for: .milliseconds(Int.random(in: 20...60)))
        }
        var pauseLatencies: [Double] = []
        for _ in 0..<commands {
            let started = MonotonicClock.nanoseconds()
            try await player.perform(.pause)
            while stamps.pauseTime < started && MonotonicClock.nanoseconds() < started + 1_000_000_000 {
                try await Task.sleep(for: .microseconds(200))
            }
            if stamps.pauseTime >= started { pauseLatencies.append(Double(stamps.pauseTime - started) / 1e6) }
            try await player.perform(.resume)
            try await Task.sleep(for: .milliseconds(Int.random(in: 20...40)))
        }
        try await player.perform(.stop)
        engine.shutdown()
        _ = await events.value
        report("seek  → first new frame written to the device", seekLatencies, of: commands)
        report("pause → device paused (snd_pcm_pause / drop)", pauseLatencies, of: commands)
    }

    static func report(_ what: String, _ values: [Double], of total: Int) {
        let sorted = values.sorted()
        func pct(_ p: Double) -> Double { sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
        print(String(format: "transport %@: p50 %.2f ms, p99 %.2f ms, max %.2f ms (%d/%d commands)",
                     what, pct(0.5), pct(0.99), sorted.last ?? .nan, values.count, total))
    }
}
