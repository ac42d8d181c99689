import AudioCore
import AudioOutput
import Synchronization

/// A test double behind the `AudioSink` contract for what this machine cannot have (a USB DAC pulled out): it records
/// every frame in memory, with no buffering delay, and can be told to vanish after some frames and to refuse opens
/// for a while.
final class MemorySink: AudioSink, @unchecked Sendable {
    let name = "memory"
    private(set) var periodFrames = 0
    private(set) var isOpen = false
    private var format: AudioFormat?
    private let storage: UnsafeMutableRawPointer
    private let capacity: Int
    private let recorded = Atomic<Int>(0)
    /// Frames after which the device "disappears" (once).
    let loseAfterFrames: Int?
    /// Opens refused after the loss.
    let refusedOpens: Int
    private var refusals = 0
    private var lost = false
    private var framesSeen = 0
    let opens = Atomic<Int>(0)

    init(capacityBytes: Int, loseAfterFrames: Int? = nil, refusedOpens: Int = 0) {
        capacity = capacityBytes
        storage = .allocate(byteCount: capacityBytes, alignment: 16)
        self.loseAfterFrames = loseAfterFrames
        self.refusedOpens = refusedOpens
    }

    deinit { storage.deallocate() }

    func open(_ requested: AudioFormat, periodFrames: Int, periods: Int) throws(SinkOpenError) -> AudioFormat {
        if lost && refusals < refusedOpens {
            refusals += 1
            throw SinkOpenError(device: name, reason: "No such device")
        }
        opens.add(1, ordering: .relaxed)
        format = requested
        self.periodFrames = periodFrames
        isOpen = true
        return requested
    }

    func close() { isOpen = false }

    func write(_ buffer: UnsafeRawPointer, frames: Int) -> SinkWriteResult {
        guard let format else { return .deviceLost }
        if let limit = loseAfterFrames, !lost, framesSeen + frames > limit {
            lost = true
            return .deviceLost
        }
        let bytes = frames * format.bytesPerFrame
        let at = recorded.load(ordering: .relaxed)
        guard at + bytes <= capacity else { return .failed(-28) }
        (storage + at).copyMemory(from: buffer, byteCount: bytes)
        recorded.store(at + bytes, ordering: .releasing)
        framesSeen += frames
        return .written(frames)
    }

    func pause(_ on: Bool) -> Bool { true }
    func drop() {}
    func drain() {}
    var delayFrames: Int { 0 }

    /// Everything recorded so far.
    func bytes() -> [UInt8] {
        let count = recorded.load(ordering: .acquiring)
        return [UInt8](UnsafeRawBufferPointer(start: storage, count: count))
    }
}
