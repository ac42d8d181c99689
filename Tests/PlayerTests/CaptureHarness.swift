import AudioCore
import AudioOutput
import Engine
import FermataCore
import Foundation
import Player
import TestSupport

/// Plays files through the real engine into alsa-lib's `file` PCM (slave `null`) and returns the captured bytes.
struct CaptureHarness {
    let directory: TemporaryDirectory
    var config = EngineConfig()

    init() throws {
        directory = try TemporaryDirectory(prefix: "fermata-capture")
        config.realtimePriority = nil
    }

    /// Queues `files`, lets `prepare` act on the player (loops, modes), plays from the first entry (unless `prepare`
    /// starts playback itself: `startsItself`) until the stream ends, and returns the raw capture (in the device
    /// format) plus the player for further questions.
    func play(
        _ files: [String], capture name: String = "capture.raw", startsItself: Bool = false,
        prepare: (Player, [EntryID]) async throws -> Void = { _, _ in }
    ) async throws -> (bytes: [UInt8], player: Player) {
        let path = directory.file(name)
        let engine = PlaybackEngine(sink: OutputSpec.capture(path: path).makeSink(), config: config)
        let player = Player(engine: engine)
        let events = Task { await player.run() }
        let ids = try await player.add(paths: files)
        try await prepare(player, ids)
        if !startsItself { try await player.perform(.playEntry(ids[0])) }
        do {
            // Bounded by progress, not by a clock: the capture is unpaced, so how long it takes is the machine's load.
            try await withProgressWatchdog("the capture of \(files.count) file(s) into \(name)", progress: {
                try await Self.progress(capture: path, engine: engine, player: player)
            }) { await player.waitUntilStopped() }
        } catch {
            engine.shutdown()  // no engine threads left running behind a failed test
            throw error
        }
        engine.shutdown()
        _ = await events.value
        let data = FileManager.default.contents(atPath: path) ?? Data()
        return ([UInt8](data), player)
    }

    /// Writes `samples` (stereo, 16-bit, 44.1 kHz) as a FLAC file in the harness's folder and plays it as `play` does.
    func play(
        samples: [Int32], startsItself: Bool = false, prepare: (Player, [EntryID]) async throws -> Void = { _, _ in }
    ) async throws -> (bytes: [UInt8], player: Player) {
        try await play([try writeFLAC(samples)], startsItself: startsItself, prepare: prepare)
    }

    /// Writes `samples` (stereo, 16-bit, 44.1 kHz) as a FLAC file named `name` in the harness's folder; its path.
    func writeFLAC(_ samples: [Int32], name: String = "piece.flac") throws -> String {
        let path = directory.file(name)
        try FLACFixture.write(path: path, samples: samples, channels: 2, bitsPerSample: 16, sampleRate: 44_100)
        return path
    }
}

extension CaptureHarness {
    /// What `play` watches while it waits for the end: the bytes captured, what the engine hears, and how many entries
    /// have failed (a run of bad files moves only that). Any change is progress.
    struct Reading: Equatable, Sendable {
        var bytes: Int
        var heard: EnginePosition
        var failures: Int
    }

    /// More than any test captures (the longest are seconds of audio: a few MB). The capture is unpaced, so a stream
    /// that never ends would fill the disk long before `Patience.ceilingSeconds`; past this, `play` fails instead.
    static let maxCaptureBytes = 1 << 30

    /// One reading for `play`'s watchdog; throws once the capture has grown past `maxCaptureBytes`.
    static func progress(capture path: String, engine: PlaybackEngine, player: Player) async throws -> Reading {
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard bytes <= maxCaptureBytes else {
            throw Stalled(description: "the capture \(path) grew past \(maxCaptureBytes) bytes: a stream without end")
        }
        return Reading(bytes: bytes, heard: engine.position(), failures: await player.failures.count)
    }
}

/// Little-endian 16-bit samples from raw bytes.
func int16Samples(_ bytes: [UInt8]) -> [Int32] {
    stride(from: 0, to: bytes.count - 1, by: 2).map { Int32(Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)) }
}

/// Little-endian 32-bit samples from raw bytes.
func int32Samples(_ bytes: [UInt8]) -> [Int32] {
    stride(from: 0, to: bytes.count - 3, by: 4).map { (i: Int) -> Int32 in
        // Spelled out: Swift 6.2.3 gives up type-checking the one-expression form on a loaded machine.
        let low: UInt32 = UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8
        let high: UInt32 = UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
        return Int32(bitPattern: low | high)
    }
}

/// The first index where two sample arrays differ, or nil (for readable failure messages).
func firstDifference(_ a: [Int32], _ b: [Int32]) -> Int? {
    if let index = zip(a, b).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset { return index }
    return a.count == b.count ? nil : min(a.count, b.count)
}

/// Writes `signal` (right-justified, interleaved) as FLAC files cut at the given frame offsets.
func writeFLACPieces(
    _ signal: [Int32], cuts: [Int], channels: Int, bits: Int, rate: Int, in dir: TemporaryDirectory, prefix: String
) throws -> [String] {
    let frames = signal.count / channels
    let bounds = [0] + cuts + [frames]
    return try (0..<(bounds.count - 1)).map { index in
        let path = dir.file("\(prefix)-\(index).flac")
        let piece = Array(signal[(bounds[index] * channels)..<(bounds[index + 1] * channels)])
        try FLACFixture.write(path: path, samples: piece, channels: channels, bitsPerSample: bits, sampleRate: rate)
        return path
    }
}
