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
    /// Takes abandoned by the recording service while being written, and why.
    private let abandoned = Mutex<[Int64: String]>([:])
    private let stopping = Atomic<Bool>(false)
    /// Frames the writer stays behind the capture, so a take asked for a little late (its pass is known once heard:
    /// a period and a poll after) still finds its first frames, even a few before the take being written ends.
    private let holdFrames: Int
    /// Where the writer is in the capture's timeline (frames read or dropped), for the service.
    public let position = Atomic<Int>(0)
    /// The reasons a take ends unkept because recording was turned off (asked for, not a problem).
    public static let stopped = "recording stopped"
    public static let stoppedBefore = "recording stopped before the take"
    public let finished: AsyncStream<Outcome>
    private let report: AsyncStream<Outcome>.Continuation

    public init(loop: CaptureLoop, folder: TakeFolder, format: AudioFormat, holdFrames: Int? = nil) {
        self.loop = loop
        self.folder = folder
        self.format = format
        self.holdFrames = max(0, holdFrames ?? format.sampleRate / 2)
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

    /// Ends take `id` earlier, at `end` (never before its start).
    public func shorten(id: Int64, toFrame end: Int) {
        requests.withLock { list in
            if let index = list.firstIndex(where: { $0.id == id }) {
                list[index].end = max(list[index].start, min(list[index].end ?? Int.max, end))
            }
        }
        loop.written.ring()
    }

    /// Abandons take `id` (asked for or being written): nothing of it is kept; `finished` reports it failed with
    /// `reason`.
    public func abandon(id: Int64, reason: String) {
        let pending = requests.withLock { list in
            guard let index = list.firstIndex(where: { $0.id == id }) else { return false }
            list.remove(at: index)
            return true
        }
        if pending { abandoned.withLock { $0[id] = reason } }
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
        var resyncing = false  // past a gap: the frames read are not where the timeline says until the ring drains
        let frameBytes = format.bytesPerFrame
        let scratch = FixedBuffer<UInt8>(byteCount: 4096 * frameBytes)
        func fail(_ id: Int64, _ reason: String) {
            folder.discard(id)
            requests.withLock { $0.removeAll { $0.id == id } }
            report.yield(.failed(id: id, reason: reason))
        }
        while true {
            // A gap: the disk fell behind, the ring filled and the capture dropped frames after ring byte `gap`.
            // Up to it the frames are where the timeline says (takes ending before it are whole); a take open across
            // it is lost; after it, the timeline is found again once the ring is drained (every frame counted was
            // then read or dropped).
            let gap = loop.gapPosition.load(ordering: .acquiring)
            if gap >= 0, cursor >= gap, !resyncing {
                resyncing = true
                if let take = open {
                    fail(take.request.id, "the disk fell behind: the capture dropped frames")
                    open = nil
                }
            }
            if resyncing {
                loop.gapPosition.store(-1, ordering: .releasing)
                let captured = loop.capturedFrames.load(ordering: .acquiring)
                let readable = loop.ring.readableBytes(from: cursor)
                if readable == 0 {
                    frame = captured
                    position.store(frame, ordering: .relaxed)
                    resyncing = false
                } else {
                    cursor += readable
                    loop.ring.release(upTo: cursor)
                }
                continue
            }
            var readable = loop.ring.readableBytes(from: cursor) / frameBytes
            if gap >= 0 { readable = min(readable, (gap - cursor) / frameBytes) }
            let lost = loop.lostCode.load(ordering: .acquiring)
            if let openID = open?.request.id, let reason = abandoned.withLock({ $0.removeValue(forKey: openID) }) {
                fail(openID, reason)
                open = nil
            }
            let others: [Int64: String] = abandoned.withLock { list in
                let taken = list
                list.removeAll()
                return taken
            }
            for (id, reason) in others { report.yield(.failed(id: id, reason: reason)) }
            // The writer stays `holdFrames` behind the capture: the next pass's take is asked for once that pass is
            // heard (a tick later), and may begin a few frames before the computed end of the take being written
            // (the clocks' lines); frames written already could not be its. Frames before a gap are not held
            // (nothing contiguous follows them), nor when stopping or the device is gone (the ring is drained).
            var usable = readable
            if gap < 0, lost == 0, !stopping.load(ordering: .acquiring) { usable = max(0, readable - holdFrames) }
            if usable == 0 {
                if stopping.load(ordering: .acquiring) || (lost != 0 && readable == 0) {
                    if let take = open {
                        fail(take.request.id, lost != 0
                            ? "the capture device went away (error \(lost))" : Self.stopped)
                    }
                    for request in requests.withLock({ list in defer { list.removeAll() }; return list }) {
                        report.yield(.failed(id: request.id, reason: Self.stoppedBefore))
                    }
                    report.finish()
                    return
                }
                _ = loop.written.wait(nanoseconds: 100_000_000)
                continue
            }
            let n = min(usable, 4096)
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
                guard let end = requests.withLock({ list in
                    list.first(where: { $0.id == take.request.id }).map { $0.end ?? Int.max }
                }) else { break }  // abandoned meanwhile: handled at the top of the next round
                let count = min(n - offset, end - (frame + offset))
                if count > 0, !take.encoder.append(scratch.raw + offset * frameBytes, frames: count) {
                    fail(take.request.id, TakeFolder.Failure("writing take \(take.request.id)",
                                                             errno: take.encoder.writeError).description)
                    open = nil
                    offset = n
                    continue
                }
                offset += max(0, count)
                if frame + offset >= end {
                    requests.withLock { $0.removeAll { $0.id == take.request.id } }
                    finish(take.request.id, take.encoder)
                    open = nil
                    // The rest of the block is held like any frames with no take: the next pass's take, asked for
                    // once that pass is heard, begins about here (skipping the block lost it: "already gone by").
                    break
                }
            }
            cursor += offset * frameBytes
            frame += offset
            position.store(frame, ordering: .relaxed)
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
