import AudioCore
import AudioOutput
import Glibc
import Synchronization

/// When the output thread last wrote a discontinuity (and the frame index it jumped to) and last paused: written by
/// an `InstrumentedSink` on the output thread, polled by the benchmark (atomics: the index is stored before the time,
/// so a time read with acquire ordering comes with its index). Any thread.
final class SinkTimestamps: Sendable {
    private let jumpTimeValue = Atomic<UInt64>(0)
    private let jumpIndexValue = Atomic<Int64>(-1)
    private let pauseTimeValue = Atomic<UInt64>(0)

    /// Monotonic nanoseconds of the latest discontinuity.
    var jumpTime: UInt64 { jumpTimeValue.load(ordering: .acquiring) }
    /// The frame index the latest discontinuity jumped to.
    var jumpIndex: Int64 { jumpIndexValue.load(ordering: .relaxed) }
    /// Monotonic nanoseconds of the latest pause request.
    var pauseTime: UInt64 { pauseTimeValue.load(ordering: .acquiring) }

    func jumped(to index: Int64) {
        jumpIndexValue.store(index, ordering: .relaxed)
        jumpTimeValue.store(MonotonicClock.nanoseconds(), ordering: .releasing)
    }

    func paused() { pauseTimeValue.store(MonotonicClock.nanoseconds(), ordering: .releasing) }
}

/// Wraps a sink and timestamps, on the output thread, the first written frame that does not continue the previous
/// one (the source encodes each frame's index in its samples), and each pause call, into `stamps`. Benchmark only.
///
/// Owned by the engine's output thread, like any sink.
final class InstrumentedSink: AudioSink {
    let inner: any AudioSink
    let stamps: SinkTimestamps
    var name: String { inner.name }
    var periodFrames: Int { inner.periodFrames }
    var isOpen: Bool { inner.isOpen }
    /// The index of the last frame written.
    private var lastIndex: Int64 = -1

    init(_ inner: any AudioSink, stamps: SinkTimestamps) {
        self.inner = inner
        self.stamps = stamps
    }
    func open(_ requested: AudioFormat, periodFrames: Int, periods: Int) throws(SinkOpenError) -> AudioFormat {
        try inner.open(requested, periodFrames: periodFrames, periods: periods)
    }

    func close() { inner.close() }

    func write(_ buffer: UnsafeRawPointer, frames: Int) -> SinkWriteResult {
        let result = inner.write(buffer, frames: frames)
        guard case let .written(n) = result else { return result }
        let samples = buffer.assumingMemoryBound(to: UInt16.self)
        for frame in 0..<n {
            let index = Int64(samples[frame * 2]) | Int64(samples[frame * 2 + 1]) << 16
            if index != lastIndex + 1 { stamps.jumped(to: index) }
            lastIndex = index
        }
        return result
    }

    func pause(_ on: Bool) -> Bool {
        if on { stamps.paused() }
        return inner.pause(on)
    }

    func drop() { inner.drop() }
    func drain() { inner.drain() }
    var delayFrames: Int { inner.delayFrames }
}
