import AudioCore
import Synchronization

/// The take writer: the thread that drains the capture ring (`CaptureLoop.ring`) and encodes the frames of each take
/// into its partial file (`TakeEncoder`), then commits it (`TakeFolder.commit`: synced, renamed, folder synced). A take
/// is asked for in capture frames — from the frame where its pass is heard to begin, to the frame where it ends — so
/// it lines up with its pass to the sample whatever the disk does; frames before a take are skipped. A failed write
/// (a full disk, the device gone mid-take) abandons the take: its partial file is removed, nothing is committed, and
/// the failure is reported (`finished`), while playback and capture go on.
///
/// Threads: `run` on the writer's own thread (it blocks on the disk: never the capture or the audio thread, never the
/// cooperative pool); `begin`, `end`, `cancel` from any thread (a mutex: this thread is not real-time); `finished` is
/// consumed by one task.
public final class TakeWriter: Sendable {
    /// What became of a take.
    public enum Outcome: Sendable, Equatable {
        /// Committed: its id, frames and format.
        case committed(id: Int64, frames: Int64, format: AudioFormat)
        /// Abandoned (nothing left of it), and why.
        case failed(id: Int64, reason: String)
    }

    /// A take asked for: frames `start..<end` of the capture (`end` nil: until `end` is called).
    struct Request: Equatable {
        var id: Int64
        var start: Int
        var end: Int?
    }

    private let loop: CaptureLoop
    private let folder: TakeFolder
    private let format: AudioFormat
    private let requests = Mutex<[Request]>([])
    private let stopping = Atomic<Bool>(false)
    public let finished: AsyncStream<Outcome>
    private let report: AsyncStream<Outcome>.Continuation

    public init(loop: CaptureLoop, folder: TakeFolder, format: AudioFormat) {
        self.loop = loop
        self.folder = folder
        self.format = format
        (finished, report) = AsyncStream<Outcome>.makeStream()
    }

    /// Records take `id` from capture frame `start` (until `end`).
    public func begin(id: Int64, atFrame start: Int) {
        requests.withLock { $0.append(Request(id: id, start: max(0, start), end: nil)) }
        loop.written.ring()
    }

    /// Ends take `id` at capture frame `end` (exclusive).
    public func end(id: Int64, atFrame end: Int) {
        requests.withLock { list in
            if let index = list.firstIndex(where: { $0.id == id && $0.end == nil }) { list[index].end = max(list[index].start, end) }
        }
        loop.written.ring()
    }

    /// Stops after the takes already ended are written; a take still open is abandoned.
    public func stop() {
        stopping.store(true, ordering: .releasing)
        loop.written.ring()
    }

    /// Drains the ring until `stop` (or the capture is lost and drained).
    public func run() {
        var cursor = loop.ring.releasedPosition
        var frame = 0  // the capture frame at `cursor`
        var open: (request: Request, encoder: TakeEncoder)?
        let frameBytes = format.bytesPerFrame
        let scratch = FixedBuffer<UInt8>(byteCount: 4096 * frameBytes)
        while true {
            let readable = loop.ring.readableBytes(from: cursor) / frameBytes
            let lost = loop.lostCode.load(ordering: .acquiring)
            if readable == 0 {
                if stopping.load(ordering: .acquiring) || lost != 0 {
                    if let take = open {
                        folder.discard(take.request.id)
                        report.yield(.failed(id: take.request.id, reason: lost != 0
                            ? "the capture device went away (error \(lost))" : "recording stopped"))
                    }
                    for request in requests.withLock({ list in defer { list.removeAll() }; return list })
                        where open?.request.id != request.id {
                        report.yield(.failed(id: request.id, reason: "recording stopped before the take"))
                    }
                    report.finish()
                    return
                }
                _ = loop.written.wait(nanoseconds: 100_000_000)
                continue
            }
            let n = min(readable, 4096)
            loop.ring.copy(from: cursor, into: scratch.raw, count: n * frameBytes)
            var offset = 0
            while offset < n {
                if open == nil, let next = requests.withLock({ $0.first }) {
                    if next.start < frame + offset {
                        // Asked for after its first frames went by: it could not line up with its pass.
                        _ = requests.withLock { $0.removeFirst() }
                        report.yield(.failed(id: next.id, reason: "the take's start had already gone by"))
                        continue
                    }
                    if next.start <= frame + offset {
                        do throws(TakeFolder.Failure) {
                            open = (next, try TakeEncoder(path: folder.partialPath(next.id), format: format))
                        } catch {
                            _ = requests.withLock { $0.removeFirst() }
                            report.yield(.failed(id: next.id, reason: error.description))
                            continue
                        }
                    }
                }
                guard let take = open else {
                    // No take here: skip to the next take's start, or past this block.
                    let next = requests.withLock { $0.first?.start } ?? Int.max
                    offset = min(n, max(offset + 1, next - frame))
                    continue
                }
                let end = requests.withLock { list in list.first(where: { $0.id == take.request.id })?.end } ?? Int.max
                let count = min(n - offset, end - (frame + offset))
                if count > 0, !take.encoder.append(scratch.raw + offset * frameBytes, frames: count) {
                    folder.discard(take.request.id)
                    requests.withLock { $0.removeAll { $0.id == take.request.id } }
                    report.yield(.failed(id: take.request.id, reason: TakeFolder.Failure(
                        "writing take \(take.request.id)", errno: take.encoder.writeError).description))
                    open = nil
                    offset = n
                    continue
                }
                offset += max(0, count)
                if frame + offset >= end {
                    requests.withLock { $0.removeAll { $0.id == take.request.id } }
                    finish(take.request.id, take.encoder)
                    open = nil
                }
            }
            cursor += n * frameBytes
            frame += n
            loop.ring.release(upTo: cursor)
        }
    }

    private func finish(_ id: Int64, _ encoder: TakeEncoder) {
        guard encoder.finish() else {
            folder.discard(id)
            report.yield(.failed(id: id, reason: TakeFolder.Failure("writing take \(id)", errno: encoder.writeError).description))
            return
        }
        do throws(TakeFolder.Failure) {
            try folder.commit(id)
            report.yield(.committed(id: id, frames: encoder.frames, format: format))
        } catch {
            folder.discard(id)
            report.yield(.failed(id: id, reason: error.description))
        }
    }
}
