import FermataCore
import Streams

/// The network streams the decoder thread has open: one `StreamSession` per queue entry being played, waited for,
/// or still heard from the ring. A session starts on the first question about its entry and is cancelled as soon as
/// no one holds the entry any more (`keep(only:)`), so a skipped station's connection closes at once.
///
/// Threads: the decoder thread only (each session runs its own thread).
final class LiveSources {
    private let settings: StreamSettings
    private let events: AsyncStream<EngineEvent>.Continuation
    private var sessions: [EntryID: StreamSession] = [:]

    init(settings: StreamSettings, events: AsyncStream<EngineEvent>.Continuation) {
        self.settings = settings
        self.events = events
    }

    var isEmpty: Bool { sessions.isEmpty }

    /// The session playing `item`, started if there is none.
    func session(for item: PlayableItem) -> StreamSession {
        if let session = sessions[item.entryID], session.url == item.path { return session }
        sessions[item.entryID]?.cancel()
        let entry = item.entryID
        let session = StreamSession(url: item.path, settings: settings) { [events] report in
            switch report {
            case let .name(name): events.yield(.streamName(entry, name))
            case let .title(title): events.yield(.streamTitle(entry, title))
            case let .notice(text): events.yield(.streamNotice(entry, text))
            }
        }
        sessions[entry] = session
        session.start()
        return session
    }

    /// The open session of `entry`, if any.
    func existing(_ entry: EntryID) -> StreamSession? { sessions[entry] }

    func readiness(_ item: PlayableItem) -> LiveReadiness {
        switch session(for: item).readiness {
        case .pending: .pending
        case .ready: .ready
        case let .failed(reason): .failed(reason)
        }
    }

    /// Cancels every session whose entry `held` does not contain.
    func keep(only held: (EntryID) -> Bool) {
        for (entry, session) in sessions where !held(entry) {
            session.cancel()
            sessions[entry] = nil
        }
    }
}
