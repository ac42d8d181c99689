import AudioCore
import AudioOutput
import Glibc

/// Wraps a sink and timestamps, on the output thread, the first written frame that does not continue the previous
/// one (the source encodes each frame's index in its samples), and each pause call. Benchmark only.
// @unchecked: a sink is handed to the engine's output thread and used there only; the bench reads the timestamps
// after the engine has shut down (the join orders them).
final class InstrumentedSink: AudioSink, @unchecked Sendable {
    let inner: any AudioSink
    var name: String { inner.name }
    var periodFrames: Int { inner.periodFrames }
    var isOpen: Bool { inner.isOpen }
    private var lastIndex: Int64 = -1
    /// Monotonic nanoseconds of the latest discontinuity and the frame index it jumped to (written by the output
    /// thread, read by the benchmark after polling; a benchmark-only shortcut).
    nonisolated(unsafe) var jumpTime: UInt64 = 0
    nonisolated(unsafe) var jumpIndex: Int64 = -1
    nonisolated(unsafe) var pauseTime: UInt64 = 0

    init(_ inner: any AudioSink) { self.inner = inner }

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
            if index != lastIndex + 1 {
                jumpTime = MonotonicClock.nanoseconds()
                jumpIndex = index
            }
            lastIndex = index
        }
        return result
    }

    func pause(_ on: Bool) -> Bool {
        if on { pauseTime = MonotonicClock.nanoseconds() }
        return inner.pause(on)
    }

    func drop() { inner.drop() }
    func drain() { inner.drain() }
    var delayFrames: Int { inner.delayFrames }
}
