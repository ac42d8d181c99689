import AudioCore
import Synchronization

/// One network stream being played: its own thread fetches (`HTTPConnection`), takes ICY metadata out, resolves a
/// playlist, decodes, and writes PCM into a ring the decoder thread reads through `LiveDecoder`. Reconnects a playing
/// stream that lost its connection (`StreamSettings.maxReconnects`, with back-off) and gives up on one that arrives
/// slower than real time; reports names, titles and notices through `report`.
///
/// Threads: made, polled (`readiness`) and cancelled by the decoder thread; `run` on the session's own thread; the
/// ring between them is single-producer (the session) single-consumer (the `LiveDecoder`). Sendable: atomics, a
/// Mutex around the rarely read state, constants.
public final class StreamSession: Sendable {
    /// What the decoder thread sees of a session.
    public enum Readiness: Sendable, Equatable {
        /// Connecting, or filling its buffer.
        case pending
        /// Audio is buffered: the decoder can start.
        case ready
        /// It failed before any audio (or after it, once what was buffered has been read).
        case failed(String)
    }

    /// How far the stream got, for the decoder thread.
    enum Phase: Sendable, Equatable {
        case connecting
        case playing
        /// The stream ended cleanly (its server closed a finite stream).
        case ended
        case failed(String)
    }

    private struct Shared: Sendable {
        var phase = Phase.connecting
        var ring: StreamRing?
        /// Set once `bufferMilliseconds` is in (or the stream ended first).
        var buffered = false
    }

    public let url: String
    let settings: StreamSettings
    private let report: @Sendable (StreamReport) -> Void
    private let shared = Mutex(Shared())
    private let cancelled = Atomic<Bool>(false)
    /// Rung by the reader when it frees room; the session waits on it when the ring is full.
    let room = Doorbell()
    /// Times the reader found the ring empty while the stream was playing (counted by the reader).
    let underruns = Atomic<Int>(0)

    public init(url: String, settings: StreamSettings, report: @escaping @Sendable (StreamReport) -> Void) {
        self.url = url
        self.settings = settings
        self.report = report
    }

    /// Starts the session's thread.
    public func start() {
        WorkerThread.detached(name: "stream") { [self] in run() }
    }

    /// Ends the session: its thread stops within a poll (≤ 100 ms) and closes the connection.
    public func cancel() {
        cancelled.store(true, ordering: .relaxed)
        room.ring()
    }

    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    public var readiness: Readiness {
        shared.withLock { shared in
            switch shared.phase {
            case let .failed(why) where shared.ring == nil: .failed(why)
            case .ended where shared.ring == nil: .failed("the stream ended before any audio")
            default: shared.buffered && shared.ring != nil ? .ready : .pending
            }
        }
    }

    /// The ring, once audio is in it.
    var ring: StreamRing? { shared.withLock { $0.ring } }

    var phase: Phase { shared.withLock { $0.phase } }

    // MARK: the session's thread

    private func run() {
        var attempt = 0
        var played = StreamProgress()
        while true {
            do throws(StreamError) {
                try play(url, from: [], progress: &played)
                finish(.ended)
                return
            } catch .cancelled {
                finish(.ended)
                return
            } catch {
                if played.connectionSeconds >= 30 { attempt = 0 }
                guard played.any, error.isRetryable, attempt < settings.maxReconnects, !isCancelled else {
                    let tries = attempt > 0 ? " (after \(attempt) reconnect\(attempt == 1 ? "" : "s"))" : ""
                    finish(.failed("stream \(url): \(error)\(tries)"))
                    return
                }
                attempt += 1
                let wait = min(16, 1 << (attempt - 1))
                report(.notice("stream \(url): \(error); reconnecting in \(wait) s (\(attempt) of \(settings.maxReconnects))"))
                if !sleep(seconds: wait) {
                    finish(.ended)
                    return
                }
            }
        }
    }

    /// Plays `url` until its end; a playlist plays its first entry that works. `lists`: the playlists that led here.
    private func play(_ url: String, from lists: [String], progress: inout StreamProgress) throws(StreamError) {
        guard StreamURL.isStream(url) else { throw .refused("\(url) is not an http or https URL") }
        guard !lists.contains(url) else { throw .content("a playlist that lists itself") }
        let connection = try HTTPConnection(url: url, limits: settings.limits, cancelled: { [self] in isCancelled })
        let head = try connection.awaitHead()
        if let encoding = head.contentEncoding {
            throw .content("the server sends the stream compressed (\(encoding)), which is not audio")
        }
        if let name = head.icyName { report(.name(name)) }
        var source: any StreamByteSource = connection
        if let interval = head.icyMetaInterval {
            source = ICYReader(source: source, interval: interval) { [report] title in report(.title(title)) }
        }
        let peeked = try PeekedSource(source, length: StreamFormat.sniffLength)
        guard let format = StreamFormat.sniff(peeked.peeked, contentType: head.contentType) else {
            let type = head.contentType.map { "\($0) " } ?? ""
            throw .content("the server sent \(type)data that is neither audio Fermata plays (MP3, AAC, Ogg Vorbis, "
                           + "Opus, FLAC) nor a playlist")
        }
        if format == .playlist {
            try playPlaylist(peeked, url: url, head: head, from: lists, progress: &progress)
            return
        }
        let decoder = try StreamDecoders.open(format, source: peeked) { [report] title in report(.title(title)) }
        try pump(decoder, progress: &progress)
        // A body with no length is a live stream: its end is the server going away, not the song's end.
        if head.contentLength == nil { throw .network("the server ended the stream") }
    }

    private func playPlaylist(_ source: PeekedSource, url: String, head: ResponseHead, from lists: [String],
                              progress: inout StreamProgress) throws(StreamError) {
        guard lists.count < RemotePlaylist.maxDepth else {
            throw .content("playlists nested over \(RemotePlaylist.maxDepth) deep")
        }
        // The peeked head comes again first: the whole list is read here, within its bound.
        var bytes: [UInt8] = []
        let chunk = ScratchBytes(count: 4096)
        while true {
            let count = try source.read(into: chunk.bytes)
            if count == 0 { break }
            bytes.append(contentsOf: chunk.prefix(count))
            if bytes.count > RemotePlaylist.maxBytes {
                throw .content("a playlist over \(RemotePlaylist.maxBytes / 1024) KiB")
            }
        }
        guard bytes.count <= RemotePlaylist.maxBytes else {
            throw .content("a playlist over \(RemotePlaylist.maxBytes / 1024) KiB")
        }
        guard let kind = RemotePlaylist.Kind(contentType: head.contentType, head: bytes) else {
            throw .content("an unreadable playlist")
        }
        let entries = try RemotePlaylist.entries(NetworkText.decode(bytes), kind: kind)
        var last = StreamError.content("a playlist that names no stream")
        for entry in entries {
            do throws(StreamError) {
                try play(entry, from: lists + [url], progress: &progress)
                return
            } catch .cancelled {
                throw .cancelled
            } catch {
                // Once one entry played, its failure is the stream's (a reconnect goes back to the list).
                if progress.any { throw error }
                report(.notice("stream \(entry) (from \(url)): \(error); trying the playlist's next entry"))
                last = error
            }
        }
        throw last
    }

    /// Decodes into the ring until the stream ends; waits while the ring is full.
    private func pump(_ decoder: any StreamDecoder, progress: inout StreamProgress) throws(StreamError) {
        let ring = try ring(for: decoder.format)
        let format = decoder.format
        let chunkFrames = 4096
        let scratch = ScratchBytes(count: chunkFrames * format.bytesPerFrame)
        var pace = StreamPace(rate: format.sampleRate, bufferFrames: ring.aheadFrames)
        var reportedUnderruns = underruns.load(ordering: .relaxed)
        progress.startConnection()
        while true {
            while ring.freeBytes < scratch.count {
                markBuffered()
                guard !isCancelled else { throw .cancelled }
                room.wait(nanoseconds: 50_000_000)
            }
            guard !isCancelled else { throw .cancelled }
            let frames = try decoder.decode(into: scratch.bytes)
            if frames == 0 {
                markBuffered()
                return
            }
            ring.write(scratch.prefix(frames * format.bytesPerFrame))
            progress.played(frames: frames, rate: format.sampleRate)
            if ring.aheadFrames(consumed: ring.consumedPosition) >= ring.prebufferFrames { markBuffered() }
            try pace.check(producedFrames: frames, bufferedFrames: ring.aheadFrames(consumed: ring.consumedPosition))
            let now = underruns.load(ordering: .relaxed)
            if now != reportedUnderruns, pace.mayReportUnderrun() {
                report(.notice("stream \(url): the buffer ran dry (\(now) time\(now == 1 ? "" : "s")): the network "
                               + "delivers slower than the stream plays"))
                reportedUnderruns = now
            }
        }
    }

    /// The session's ring for `format`: made on the first connection; a reconnect must bring the same format.
    private func ring(for format: AudioFormat) throws(StreamError) -> StreamRing {
        let result: Result<StreamRing, StreamError> = shared.withLock { shared in
            if let ring = shared.ring {
                return ring.format == format ? .success(ring)
                    : .failure(.content("the stream came back as \(format) after being \(ring.format)"))
            }
            let ring = StreamRing(format: format, settings: settings)
            shared.ring = ring
            shared.phase = .playing
            return .success(ring)
        }
        return try result.get()
    }

    private func markBuffered() {
        shared.withLock { $0.buffered = true }
    }

    private func finish(_ phase: Phase) {
        shared.withLock { shared in
            if case .failed = shared.phase { return }
            shared.phase = phase
            shared.buffered = true
        }
    }

    /// Waits `seconds`, in steps, unless cancelled; false when cancelled.
    private func sleep(seconds: Int) -> Bool {
        let end = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < end {
            if isCancelled { return false }
            room.wait(nanoseconds: 100_000_000)
        }
        return !isCancelled
    }
}

/// How much a session has played: whether anything (a failure after that is worth a reconnect) and for how long on
/// the current connection (30 s of it makes the reconnects count start again).
struct StreamProgress {
    private(set) var any = false
    private var connectionFrames = 0
    private var rate = 1

    mutating func startConnection() { connectionFrames = 0 }

    mutating func played(frames: Int, rate: Int) {
        any = true
        connectionFrames += frames
        self.rate = max(1, rate)
    }

    var connectionSeconds: Int { connectionFrames / rate }
}
