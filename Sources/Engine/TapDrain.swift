import AudioCore
import AudioOutput
import Glibc
import Synchronization

/// The body of a tap's thread: takes device frames out of the tap's ring, converts them to the output's format and
/// writes them to the FIFO or command without blocking. While the writer cannot take more, data stays in the ring
/// (the producer drops once it is full); while nobody reads at all, data is discarded at once and counted, so a reader
/// that appears later hears the present, not a stale second.
///
/// Threads: the tap thread only (it may log: it is not the audio thread).
final class TapDrain {
    private static let chunkFrames = 2048
    private let name: String
    private let format: AudioFormat
    private let writer: any TapWriter
    private let log: TapLog
    private let converter = FormatConverter(maxFrames: chunkFrames)
    private let scratch: UnsafeMutableRawPointer
    private let pending: UnsafeMutableRawPointer
    private let pendingCapacity: Int
    private var pendingStart = 0
    private var pendingEnd = 0
    private var cursor = 0
    private var source: AudioFormat?
    private var wasEnabled = true
    /// The reader left: skip what the ring holds so the next one starts at the present.
    private var skipToLive = false
    private var reportedDrops = 0
    private var nextReport = 0

    init(name: String, format: AudioFormat, writer: any TapWriter, log: @escaping TapLog) {
        self.name = name
        self.format = format
        self.writer = writer
        self.log = log
        scratch = .allocate(byteCount: Self.chunkFrames * 32, alignment: 64)
        pendingCapacity = Self.chunkFrames * 2 * 32 + 4096
        pending = .allocate(byteCount: pendingCapacity, alignment: 64)
    }

    deinit {
        scratch.deallocate()
        pending.deallocate()
    }

    func run(_ c: TapShared) {
        while !c.stopping.load(ordering: .acquiring) {
            let now = Int(truncatingIfNeeded: MonotonicClock.nanoseconds())
            let ready = writer.service(nowNanoseconds: now)
            c.connected.store(ready && writer.isReading, ordering: .relaxed)
            reportDrops(c, now: now)
            let enabled = c.enabled.load(ordering: .relaxed)
            if enabled != wasEnabled {
                wasEnabled = enabled
                pendingStart = 0
                pendingEnd = 0
                converter.reset()
            }
            if pendingEnd > pendingStart {
                if ready && enabled { flushPending(c) } else { pendingStart = 0; pendingEnd = 0 }
                if pendingEnd > pendingStart {
                    waitWritable()
                    continue
                }
            }
            if !takeChunk(c, deliver: ready && enabled, count: enabled) {
                c.bell.wait(nanoseconds: 50_000_000)
            }
        }
        writer.close()
        c.connected.store(false, ordering: .relaxed)
    }

    /// Moves one chunk from the ring into `pending` (converted), or discards it. False when the ring was empty.
    private func takeChunk(_ c: TapShared, deliver: Bool, count: Bool) -> Bool {
        if skipToLive {
            skipToLive = false
            let end = c.ring.writePosition
            while let mark = c.marks.peek(), mark.position <= end {
                _ = c.marks.pop()
                if let source { c.dropped.add((mark.position - cursor) / source.bytesPerFrame, ordering: .relaxed) }
                cursor = mark.position
                source = mark.format
                converter.configure(source: mark.format, device: format, gain: 1)
            }
            if let source { c.dropped.add((end - cursor) / source.bytesPerFrame, ordering: .relaxed) }
            cursor = end
            c.ring.release(upTo: cursor)
        }
        while let mark = c.marks.peek(), mark.position <= cursor {
            _ = c.marks.pop()
            source = mark.format
            converter.configure(source: mark.format, device: format, gain: 1)
        }
        guard let source else {
            // Nothing was marked yet: whatever is there predates a mark only if the ring was cut; skip to the next mark.
            if let mark = c.marks.peek() { cursor = mark.position; c.ring.release(upTo: cursor); return true }
            return false
        }
        var available = c.ring.readableBytes(from: cursor)
        if let mark = c.marks.peek() { available = min(available, mark.position - cursor) }
        let frames = min(available / source.bytesPerFrame, Self.chunkFrames)
        guard frames > 0 else { return false }
        let bytes = frames * source.bytesPerFrame
        if deliver {
            c.ring.copy(from: cursor, into: scratch, count: bytes)
            converter.convert(scratch, frames: frames) { block in
                let room = pendingCapacity - pendingEnd
                let n = min(room, block.count)
                (pending + pendingEnd).copyMemory(from: block.baseAddress!, byteCount: n)
                pendingEnd += n
            }
            flushPending(c)
        } else if count {
            c.dropped.add(frames, ordering: .relaxed)
        }
        cursor += bytes
        c.ring.release(upTo: cursor)
        return true
    }

    private func flushPending(_ c: TapShared) {
        while pendingEnd > pendingStart {
            guard let n = writer.write(UnsafeRawBufferPointer(start: pending + pendingStart,
                                                              count: pendingEnd - pendingStart)) else {
                // The reader left mid-chunk: the next one starts at a frame boundary with fresh data.
                pendingStart = 0
                pendingEnd = 0
                skipToLive = true
                return
            }
            if n == 0 { return }
            let before = pendingStart / format.bytesPerFrame
            pendingStart += n
            c.written.add(pendingStart / format.bytesPerFrame - before, ordering: .relaxed)
        }
        pendingStart = 0
        pendingEnd = 0
    }

    private func waitWritable() {
        var poller = pollfd(fd: writer.descriptor, events: Int16(POLLOUT), revents: 0)
        if poller.fd < 0 { usleep(20_000); return }
        _ = poll(&poller, 1, 20)
    }

    /// One line every 10 s at most while this output loses audio.
    private func reportDrops(_ c: TapShared, now: Int) {
        guard now >= nextReport else { return }
        nextReport = now + 10_000_000_000
        let total = c.dropped.load(ordering: .relaxed)
        guard total > reportedDrops else { return }
        let why = c.connected.load(ordering: .relaxed) ? "the reader is too slow" : "nobody is reading"
        log("output \(name): \(total - reportedDrops) frames dropped in the last 10 s (\(why)); \(total) in all")
        reportedDrops = total
    }
}
