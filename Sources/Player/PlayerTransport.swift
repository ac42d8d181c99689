import Engine
import FermataCore

/// The player's one truth about its transport: stopped (with the entry `play` would start from) or running — playing
/// or paused — on an entry, with the last start it asked of the engine. The engine is told every change (the player
/// never reads pause or stop back from it), so `status`, snapshots and `isPlaying` all answer from this value.
///
/// Threads: a value, part of `PlayerState`.
enum PlayerTransport {
    /// Stopped, at `cursor` (where `play` starts; nil: the first entry in play order). `lastStart`: the generation of
    /// the last start asked of the engine, so that an audible event still on its way from it is recognised as stale.
    case stopped(cursor: EntryID?, lastStart: Int)
    /// Started on an entry: audio is playing, paused, or on its way.
    case running(RunningTransport)

    static let initial = PlayerTransport.stopped(cursor: nil, lastStart: 0)

    /// The entry the listener hears (or heard last), or where a stopped player starts.
    var current: EntryID? {
        switch self {
        case let .stopped(cursor, _): cursor
        case let .running(run): run.entry
        }
    }

    var isStopped: Bool {
        if case .stopped = self { true } else { false }
    }

    /// Playing now: started and not paused.
    var isPlaying: Bool {
        if case let .running(run) = self { !run.paused } else { false }
    }

    var state: PlayState {
        switch self {
        case .stopped: .stopped
        case let .running(run): run.paused ? .paused : .playing
        }
    }

    /// The start asked of the engine while running.
    var requestedStart: RequestedStart? {
        if case let .running(run) = self { run.start } else { nil }
    }

    /// The generation of the last start asked of the engine.
    var lastStartGeneration: Int {
        switch self {
        case let .stopped(_, lastStart): lastStart
        case let .running(run): run.start.generation
        }
    }

    /// Stops, keeping the current entry as the place `play` starts from.
    mutating func stop() {
        moveCursor(to: current)
    }

    /// Stopped at `entry`: where `play` starts from.
    mutating func moveCursor(to entry: EntryID?) {
        self = .stopped(cursor: entry, lastStart: lastStartGeneration)
    }

    /// Pauses or resumes a running transport; false when stopped (MPD: pause does nothing then).
    mutating func setPaused(_ paused: Bool) -> Bool {
        guard case var .running(run) = self else { return false }
        run.paused = paused
        self = .running(run)
        return true
    }

    /// An entry became audible in the engine's start `generation`: false when that start is older than the last one
    /// asked (a `next` sent while the old start's event was on its way), or when the transport has stopped since (the
    /// event of a start a `stop`, a `clear` or a `next` past the end ended: the cursor stays where they left it — the
    /// durability property test found such an event bring a cleared cursor back, and save it).
    mutating func heard(_ entry: EntryID, generation: Int) -> Bool {
        guard generation >= lastStartGeneration else { return false }
        switch self {
        case .stopped: return false
        case var .running(run):
            run.entry = entry
            run.failuresInARow = 0
            self = .running(run)
        }
        return true
    }

    /// Counts a track that could not be played; returns how many failed in a row.
    mutating func failed() -> Int {
        guard case var .running(run) = self else { return 1 }
        run.failuresInARow += 1
        self = .running(run)
        return run.failuresInARow
    }
}

/// A started transport.
struct RunningTransport {
    /// The entry heard now (or, before it is heard, the one asked for).
    var entry: EntryID
    var paused: Bool
    /// The last start asked of the engine.
    var start: RequestedStart
    /// Tracks that failed to open one after another (the queue is given up when every entry has).
    var failuresInARow = 0
}

/// A start asked of the engine: what the status reports until the engine's heard generation reaches it.
struct RequestedStart: Equatable {
    var generation: Int
    var entry: EntryID
    var frame: Int64
    /// The entry's source rate, once known (read off the actor for a skip to a file not heard yet).
    var rate: Int?
}
