import AudioCore
import AudioOutput
import Engine
import FermataCore
import Player
import Foundation
import TestSupport

/// CPU seconds per audio second: FLAC 44.1 kHz/16-bit stereo through the whole engine into ALSA's `null` PCM,
/// next to `flac -d -c FILE >/dev/null` on the same file; and the peak RSS while playing.
enum CPUBenchmark {
    static func run(seconds: Int, directory: TemporaryDirectory) async throws {
        let frames = 44_100 * seconds
        let path = directory.file("music.flac")
        let signal = TestSignal.sweep(frames: frames, channels: 2, bits: 16, seed: 5)
        try FLACFixture.write(path: path, samples: signal, channels: 2, bitsPerSample: 16, sampleRate: 44_100)
        let audioSeconds = Double(frames) / 44_100

        let normal = try await measure(path, tempoPercent: 100)
        print(String(format: "cpu fermata (engine → ALSA null): %.5f CPU s per audio s (%.0fx real time, %d frames, %.2f s wall)",
                     normal.cpu / audioSeconds, audioSeconds / max(normal.cpu, 1e-9), normal.frames, normal.wall))
        let slow = try await measure(path, tempoPercent: 75)
        let heard = Double(slow.frames) / 44_100
        print(String(format: "cpu fermata at 75 %% speed (SoundTouch): %.5f CPU s per heard audio s (%.1fx normal; %d frames, %.2f s wall)",
                     slow.cpu / heard, (slow.cpu / heard) / max(normal.cpu / audioSeconds, 1e-9), slow.frames, slow.wall))
        let flac = try childCPUSeconds("/usr/bin/flac", ["-d", "-s", "-c", path])
        print(String(format: "cpu flac -d -c FILE >/dev/null:    %.5f CPU s per audio s; ratio fermata/flac %.2f",
                     flac / audioSeconds, normal.cpu / max(flac, 1e-9)))
        let cli = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("fermata")
        let rss = try childMemory(cli.path, ["play", "--quiet", "--output", "null", path], after: 4)
        print("rss of `fermata play --output null` after 4 s of playing this file: \(rss)")
    }

    /// Plays `path` once through the engine into ALSA's `null` PCM (unpaced) at `tempoPercent`.
    static func measure(_ path: String, tempoPercent: Int) async throws -> (cpu: Double, frames: Int, wall: Double) {
        var config = EngineConfig()
        config.realtimePriority = nil
        let nullPCM = "pcm.fermata_null { type null }"
        let engine = PlaybackEngine(sink: ALSASink(device: "fermata_null", configText: nullPCM), config: config)
        let player = Player(engine: engine)
        let events = Task { await player.run() }
        let ids = try await player.add(paths: [path])
        if tempoPercent != 100 { try await player.perform(.setTempo(percent: tempoPercent)) }
        let before = processCPUSeconds()
        let wall = MonotonicClock.nanoseconds()
        try await player.perform(.playEntry(ids[0]))
        await player.waitUntilStopped()
        let cpu = processCPUSeconds() - before
        let elapsed = Double(MonotonicClock.nanoseconds() - wall) / 1e9
        let written = engine.framesWritten
        engine.shutdown()
        _ = await events.value
        return (cpu, written, elapsed)
    }

    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    static func childCPUSeconds(_ executable: String, _ arguments: [String]) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        var before = rusage()
        getrusage(Int32(RUSAGE_CHILDREN.rawValue), &before)
        try process.run()
        process.waitUntilExit()
        var after = rusage()
        getrusage(Int32(RUSAGE_CHILDREN.rawValue), &after)
        return seconds(after.ru_utime) + seconds(after.ru_stime) - seconds(before.ru_utime) - seconds(before.ru_stime)
    }

    /// The peak resident set (VmHWM) and anonymous memory of a fresh child process after `seconds` of playing;
    /// read from /proc because ru_maxrss would count this benchmark's own memory at spawn time.
    static func childMemory(_ executable: String, _ arguments: [String], after seconds: Double) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        try process.run()
        Thread.sleep(forTimeInterval: seconds)
        let text = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        process.interrupt()
        process.waitUntilExit()
        func field(_ key: String) -> String {
            let line = text.split(separator: "\n").first { $0.hasPrefix(key + ":") } ?? ""
            return line.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces)
        }
        return "peak \(field("VmHWM")), anonymous \(field("RssAnon")), shared libraries \(field("RssFile"))"
    }

    static func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }

}
