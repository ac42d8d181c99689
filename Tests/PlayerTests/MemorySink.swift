import AudioCore
import AudioOutput
import Engine
import Player
import Foundation
import Synchronization
import TestSupport

/// Where a `MemorySink` stops for the test: it signals `arrived` at its set point and blocks there, as a device's
/// write blocks, until the test signals `release` (at most `Patience.ceilingSeconds`). Any thread.
final class SinkGate: Sendable {
    let arrived = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
}

/// What a `MemorySink` was given: every frame's bytes in order, and how many times the device was opened. Written by
/// the sink on the engine's output thread, read by the test at any time (any thread).
final class SinkRecording: Sendable {
    private let recorded: Mutex<[UInt8]>
    private let capacity: Int
    private let openCount = Atomic<Int>(0)

    /// Room for `capacityBytes`, reserved up front so recording never allocates.
    init(capacityBytes: Int) {
        capacity = capacityBytes
        var bytes: [UInt8] = []
        bytes.reserveCapacity(capacityBytes)
        recorded = Mutex(bytes)
    }

    /// Successful opens so far.
    var opens: Int { openCount.load(ordering: .relaxed) }

    /// Everything recorded so far.
    func bytes() -> [UInt8] { recorded.withLock { $0 } }

    func opened() { openCount.add(1, ordering: .relaxed) }

    /// Appends `count` bytes from `buffer`; false (nothing kept) when they would not fit.
    func append(_ buffer: UnsafeRawPointer, count: Int) -> Bool {
        let capacity = capacity
        return recorded.withLock { bytes in
            guard bytes.count + count <= capacity else { return false }
            bytes.append(contentsOf: UnsafeRawBufferPointer(start: buffer, count: count))
            return true
        }
    }
}

/// A test double behind the `AudioSink` contract for what this machine cannot have (a USB DAC pulled out): it records
/// every frame into a `SinkRecording`, with no buffering delay, and can be told to vanish after some frames and to
/// refuse opens for a while, or to underrun once (a write answered as ALSA's after `snd_pcm_recover`: nothing taken).
///
/// Owned by the engine's output thread, like any sink; the test reads `recording`.
final class MemorySink: AudioSink {
    let name = "memory"
    let recording: SinkRecording
    private(set) var periodFrames = 0
    private(set) var isOpen = false
    private var format: AudioFormat?
    /// Frames after which the device "disappears" (once).
    let loseAfterFrames: Int?
    /// Opens refused after the loss.
    let refusedOpens: Int
    private var refusals = 0
    private var lost = false
    private var framesSeen = 0
    /// Frames after which one write underruns, after waiting at `underrunGate` (the test reads what came before).
    let underrunAfterFrames: Int?
    let underrunGate: SinkGate?
    private var underran = false

    init(capacityBytes: Int, loseAfterFrames: Int? = nil, refusedOpens: Int = 0, underrunAfterFrames: Int? = nil,
         underrunGate: SinkGate? = nil) {
        recording = SinkRecording(capacityBytes: capacityBytes)
        self.loseAfterFrames = loseAfterFrames
        self.refusedOpens = refusedOpens
        self.underrunAfterFrames = underrunAfterFrames
        self.underrunGate = underrunGate
    }

    func open(_ requested: AudioFormat, periodFrames: Int, periods: Int) throws(SinkOpenError) -> AudioFormat {
        if lost && refusals < refusedOpens {
            refusals += 1
            throw SinkOpenError(device: name, reason: "No such device", code: -19)
        }
        recording.opened()
        format = requested
        self.periodFrames = periodFrames
        isOpen = true
        return requested
    }

    func close() { isOpen = false }

    func write(_ buffer: UnsafeRawPointer, frames: Int) -> SinkWriteResult {
        guard let format else { return .deviceLost(0) }
        if let limit = loseAfterFrames, !lost, framesSeen + frames > limit {
            lost = true
            return .deviceLost(-19)  // -ENODEV, as ALSA's write says when a USB DAC is pulled out
        }
        if let limit = underrunAfterFrames, !underran, framesSeen + frames > limit {
            if let gate = underrunGate {
                gate.arrived.signal()
                _ = gate.release.wait(timeout: .now() + Patience.ceilingSeconds)
            }
            underran = true
            return .recovered
        }
        guard recording.append(buffer, count: frames * format.bytesPerFrame) else { return .failed(-28) }
        framesSeen += frames
        return .written(frames)
    }

    func pause(_ on: Bool) -> Bool { true }
    func drop() {}
    func drain() {}
    var delayFrames: Int { 0 }
}

/// A player over an engine that writes to a `MemorySink` (no real-time priority), for tests of the queue and the
/// modes that need no audio heard. Shut the engine down at the end.
func playerOverMemory() -> (player: Player, engine: PlaybackEngine) {
    var config = EngineConfig()
    config.realtimePriority = nil
    let engine = PlaybackEngine(sink: MemorySink(capacityBytes: 1 << 16), config: config)
    return (Player(engine: engine), engine)
}
