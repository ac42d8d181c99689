import AudioCore
import Synchronization

/// The PCM between a stream's thread (producer) and the decoder thread (consumer): a `PCMRing` that keeps
/// `historyMilliseconds` behind the consumer's position, so the consumer can seek back there (a splice decodes again
/// from the frame the listener hears), and holds about `bufferMilliseconds` ahead of it.
///
/// Positions are in bytes since the stream began. Threads: `write` and `freeBytes` by the session's thread only;
/// `read`, `seek` and `release` by the decoder thread only (through `LiveDecoder`); the rest by either.
final class StreamRing: Sendable {
    let format: AudioFormat
    private let ring: PCMRing
    let historyBytes: Int
    /// Frames held before playback starts (the configured buffer, within what the ring holds).
    let prebufferFrames: Int
    /// The consumer's position (bytes), published for the producer's pacing and buffering decisions.
    private let consumed = Atomic<Int>(0)

    init(format: AudioFormat, settings: StreamSettings) {
        self.format = format
        let bytesPerFrame = format.bytesPerFrame
        let ahead = max(1, format.frames(forMilliseconds: max(100, settings.bufferMilliseconds))) * bytesPerFrame
        historyBytes = format.frames(forMilliseconds: max(0, settings.historyMilliseconds)) * bytesPerFrame
        // Room for the history, the buffer and one decode chunk.
        ring = PCMRing(minimumCapacity: ahead + historyBytes + 4096 * bytesPerFrame)
        prebufferFrames = ahead / bytesPerFrame
    }

    // MARK: producer

    var freeBytes: Int { ring.freeBytes() }

    func write(_ bytes: UnsafeRawBufferPointer) { ring.write(bytes) }

    /// The frames the ring can hold ahead of the consumer.
    var aheadFrames: Int { (ring.capacity - historyBytes) / format.bytesPerFrame }

    /// Frames written and not yet read by the consumer.
    func aheadFrames(consumed position: Int) -> Int { max(0, ring.writePosition - position) / format.bytesPerFrame }

    var consumedPosition: Int { consumed.load(ordering: .relaxed) }

    // MARK: consumer

    /// Copies up to `count` bytes (whole frames) from `position`; the bytes copied.
    func read(from position: Int, into destination: UnsafeMutableRawPointer, count: Int) -> Int {
        let available = ring.readableBytes(from: position)
        let bytes = min(count, available) / format.bytesPerFrame * format.bytesPerFrame
        guard bytes > 0 else { return 0 }
        ring.copy(from: position, into: destination, count: bytes)
        return bytes
    }

    /// The consumer is at `position`: what lies more than the history behind it may be overwritten.
    func consumer(at position: Int) {
        consumed.store(position, ordering: .relaxed)
        ring.release(upTo: max(0, position - historyBytes))
    }

    /// The positions the consumer may seek to now.
    var seekable: ClosedRange<Int> {
        let end = ring.writePosition
        return min(ring.releasedPosition, end)...end
    }
}

/// Whether a stream keeps up with real time: over windows of `window`, a stream that delivered less than 80 % of real
/// time while its buffer was below a quarter three windows running is given up as too slow (then reconnected, within
/// the limit): a trickle would otherwise stutter for ever. A paused listener (a full buffer) never counts.
///
/// A value: frames and the clock in, a verdict out; owned by one session's thread.
struct StreamPace {
    static let window: Duration = .seconds(10)
    static let slowWindows = 3

    let rate: Int
    let bufferFrames: Int
    private var windowStart: ContinuousClock.Instant
    private var windowFrames = 0
    private var slow = 0
    private var lastUnderrunReport: ContinuousClock.Instant?

    init(rate: Int, bufferFrames: Int, now: ContinuousClock.Instant = .now) {
        self.rate = max(1, rate)
        self.bufferFrames = bufferFrames
        windowStart = now
    }

    mutating func check(producedFrames: Int, bufferedFrames: Int, now: ContinuousClock.Instant = .now) throws(StreamError) {
        windowFrames += producedFrames
        let elapsed = now - windowStart
        guard elapsed >= Self.window else { return }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        let ratio = Double(windowFrames) / (seconds * Double(rate))
        if ratio < 0.8, bufferedFrames < bufferFrames / 4 { slow += 1 } else { slow = 0 }
        windowStart = now
        windowFrames = 0
        if slow >= Self.slowWindows {
            slow = 0
            throw .network("the stream arrives at \(Int(ratio * 100)) % of real time")
        }
    }

    /// At most one underrun line every 30 s.
    mutating func mayReportUnderrun(now: ContinuousClock.Instant = .now) -> Bool {
        if let last = lastUnderrunReport, now - last < .seconds(30) { return false }
        lastUnderrunReport = now
        return true
    }
}
