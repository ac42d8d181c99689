import FermataCore
import Foundation
import MPDProtocol
import Synchronization

/// The server-sent events every open page follows (`GET /api/events`): fed by the same change feed the MPD port's
/// `idle` clients get (`IdleBroadcaster`) and by the daemon's own signals (a control used, a card read), turned into
/// named events once and handed to every stream. A player change becomes one `status` event with the whole status
/// (read once however many pages are open, and once for a burst of changes), and one more `settle` (300 ms) after the
/// last change of a burst of player or option changes: a change the engine splices in (a loop set, a tempo) is heard a
/// device buffer after the command answers, so the status read at once may still show what was before. A scan is followed
/// with `scan` events twice a second while it runs; a comment every 15 s keeps idle connections open through proxies
/// and NATs.
///
/// A slow page never holds the others up or grows memory: each stream keeps at most its newest 32 events (an older
/// `status` is superseded by a newer one anyway). At most `maxStreams` streams at once.
///
/// Threads: `publish` and `subscribe` from any thread or task (a mutex guards the table); `run` once, as a task of
/// the web server's service.
public final class WebEvents: Sendable {
    static let maxStreams = 16
    static let keepAlive: Duration = .seconds(15)
    /// How long after the last player or option change the follow-up `status` is read: a device buffer (20 ms by
    /// default, up to 200 ms on boards with a large one) and the engine's next period, with room.
    static let settle: Duration = .milliseconds(300)

    /// One open stream: where its frames go.
    private struct Stream {
        let sink: AsyncStream<String>.Continuation
    }

    private struct State {
        var streams: [Int: Stream] = [:]
        var nextID = 0
        var pending = IdleSet()
        var signals: [WebSignal] = []
        /// When the follow-up `status` is due (nil: none); moved on by each change of a burst.
        var settleAt: ContinuousClock.Instant?
    }

    /// What the follow-up loop does next.
    private enum Settling {
        case idle
        case wait(until: ContinuousClock.Instant)
        case send
    }

    private let state = Mutex(State())
    private let wake: AsyncStream<Void>.Continuation
    private let wakes: AsyncStream<Void>
    private let settleWake: AsyncStream<Void>.Continuation
    private let settleWakes: AsyncStream<Void>
    /// Renders the current status (the same JSON as `GET /api/status`); nil when it cannot be read now.
    let status: @Sendable () async -> Data?
    /// Renders the scan's progress; the bool says whether it still runs.
    let scan: @Sendable () async -> (json: Data, running: Bool)?
    /// `WebEvents.settle`, or a test's own.
    let settleTime: Duration

    init(status: @escaping @Sendable () async -> Data?,
         scan: @escaping @Sendable () async -> (json: Data, running: Bool)?, settle: Duration = WebEvents.settle) {
        self.status = status
        self.scan = scan
        settleTime = settle
        (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        (settleWakes, settleWake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// The hub of `backend`'s web remote: its status and scan read as the API reads them.
    public convenience init(backend: any WebBackend) {
        let readings = WebReadings(backend: backend)
        self.init(status: { (try? await readings.status()).map { WebJSON.encode($0) } }, scan: {
            guard let scan = try? await readings.scan() else { return nil }
            return (WebJSON.encode(scan), scan.running)
        })
    }

    // MARK: inputs

    /// A change of the MPD backend (what `idle` clients are told).
    func changed(_ set: IdleSet) {
        state.withLock { $0.pending.formUnion(set) }
        wake.yield()
    }

    /// A signal of the daemon's (a control, a card, practice statistics written).
    public func publish(_ signal: WebSignal) {
        let open = state.withLock { state -> Bool in
            guard !state.streams.isEmpty else { return false }
            // `practice` and `recording` say only "look again": one waiting is enough.
            if signal == .practice || signal == .recording, state.signals.contains(signal) { return true }
            if state.signals.count < 64 { state.signals.append(signal) }
            return true
        }
        if open { wake.yield() }
    }

    // MARK: streams

    /// A new stream, with the current status as its first event; nil past `maxStreams`.
    func subscribe() async -> (id: Int, frames: AsyncStream<String>)? {
        let (frames, sink) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(32))
        let id = state.withLock { state -> Int? in
            guard state.streams.count < Self.maxStreams else { return nil }
            state.nextID += 1
            state.streams[state.nextID] = Stream(sink: sink)
            return state.nextID
        }
        guard let id else { return nil }
        sink.yield("retry: 2000\n\n")
        if let json = await status() { sink.yield(Self.frame("status", json)) }
        return (id, frames)
    }

    func unsubscribe(_ id: Int) {
        let stream = state.withLock { $0.streams.removeValue(forKey: id) }
        stream?.sink.finish()
    }

    var streamCount: Int { state.withLock { $0.streams.count } }

    // MARK: the loop

    /// Turns changes and signals into events until cancelled; keeps streams alive meanwhile.
    func run() async {
        await withTaskCancellationHandler {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: Self.keepAlive)
                        self.send(": keep-alive\n\n")
                    }
                }
                group.addTask {
                    for await _ in self.wakes { await self.deliver() }
                }
                group.addTask {
                    for await _ in self.settleWakes { await self.followUp() }
                }
            }
        } onCancel: {
            wake.finish()
            settleWake.finish()
        }
        let streams = state.withLock { state in
            defer { state.streams.removeAll() }
            return Array(state.streams.values)
        }
        for stream in streams { stream.sink.finish() }
    }

    private func deliver() async {
        let (set, signals, open) = state.withLock { state in
            defer {
                state.pending = IdleSet()
                state.signals.removeAll()
            }
            return (state.pending, state.signals, !state.streams.isEmpty)
        }
        guard open else { return }
        for signal in signals { send(Self.frame(signal)) }
        if !set.isDisjoint(with: [.player, .options]) {
            state.withLock { $0.settleAt = .now + settleTime }
            settleWake.yield()
        }
        if !set.isDisjoint(with: [.player, .mixer, .options]), let json = await status() {
            send(Self.frame("status", json))
        }
        if set.contains(.playlist) { send(Self.frame("queue", Data("{}".utf8))) }
        if set.contains(.storedPlaylist) { send(Self.frame("playlists", Data("{}".utf8))) }
        if set.contains(.database) { send(Self.frame("library", Data("{}".utf8))) }
        if set.contains(.output) { send(Self.frame("outputs", Data("{}".utf8))) }
        if set.contains(.update) { await followScan() }
    }

    /// One `status` once `settle` has passed since the last player or option change (each change of a burst moves it
    /// on, so a burst gets one).
    private func followUp() async {
        while !Task.isCancelled {
            let next = state.withLock { state -> Settling in
                guard let due = state.settleAt else { return .idle }
                guard due <= .now else { return .wait(until: due) }
                state.settleAt = nil
                return state.streams.isEmpty ? .idle : .send
            }
            switch next {
            case .idle: return
            case let .wait(due): try? await Task.sleep(until: due, clock: .continuous)
            case .send:
                if let json = await status() { send(Self.frame("status", json)) }
                return
            }
        }
    }

    /// `scan` events twice a second while a scan runs, and one when it has ended.
    private func followScan() async {
        while !Task.isCancelled, streamCount > 0, let progress = await scan() {
            send(Self.frame("scan", progress.json))
            guard progress.running else { return }
            try? await Task.sleep(for: .milliseconds(500))
        }
    }

    private func send(_ frame: String) {
        let streams = state.withLock { Array($0.streams.values) }
        for stream in streams { stream.sink.yield(frame) }
    }

    static func frame(_ event: String, _ json: Data) -> String {
        "event: \(event)\ndata: \(String(decoding: json, as: UTF8.self))\n\n"
    }

    static func frame(_ signal: WebSignal) -> String {
        switch signal {
        case let .input(device, control, gesture, action):
            frame("input", WebJSON.encode(WebJSON.InputEvent(device: device, control: control, gesture: gesture, action: action)))
        case let .card(id, known, learned):
            frame("card", WebJSON.encode(WebJSON.CardEvent(id: id, known: known, learned: learned)))
        case .practice:
            frame("practice", Data("{}".utf8))
        case .recording:
            frame("recording", Data("{}".utf8))
        }
    }
}
