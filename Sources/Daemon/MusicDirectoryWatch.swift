import Engine
import FermataCore
import Foundation
import Library
import Logging
import Player
import ServiceLifecycle

/// Whether the music directory can be played from: a directory with something in it. A drive or share mounted a few
/// seconds after boot leaves its mount point missing or empty until then.
///
/// A plain value; `check` does blocking file-system calls (run it on `BlockingWork`).
enum MusicDirectoryState: Equatable {
    case present
    case missing
    case empty
    case unreadable(String)

    static func check(_ path: String) -> MusicDirectoryState {
        switch RawFiles.kind(path) {
        case nil: return .missing
        case .file, .other: return .unreadable("not a directory")
        case .directory:
            guard let names = RawFiles.names(in: path) else { return .unreadable("cannot be listed") }
            return names.isEmpty ? .empty : .present
        }
    }

    /// For the log line: "is missing", "is empty", "cannot be read (Permission denied)".
    var words: String {
        switch self {
        case .present: "is here"
        case .missing: "is missing"
        case .empty: "is empty"
        case let .unreadable(reason): "cannot be read (\(reason))"
        }
    }
}

/// Started only when the music directory was missing or empty at start: the daemon has served the saved queue
/// stopped since then; this notices the directory when it appears (a mount, a plugged drive) without a restart,
/// then starts the saved entry at its saved position as the resume policy says, and runs the start-up scan if one
/// is configured. It checks every `interval` until then (a stat and a directory read, off the cooperative pool),
/// and not at all afterwards.
///
/// Threads: `run` is called once by the service group.
struct MusicDirectoryWatch: Service {
    let path: String
    let player: Player
    let library: Library
    let saved: PlayerSnapshot
    let policy: ResumePolicy
    let scanOnStart: Bool
    let logger: Logger
    var interval: Duration = .seconds(2)
    /// How long to wait, once the directory is there, for the saved entry's own file (a copy still under way) before
    /// starting anyway (a file that has gone is then skipped, as at any start).
    var fileGrace: Duration = .seconds(10)

    func run() async throws {
        let path = path
        var appeared: ContinuousClock.Instant?
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            if Task.isCancelled || Task.isShuttingDownGracefully { return }
            guard await BlockingWork.run({ MusicDirectoryState.check(path) }) == .present else { continue }
            if appeared == nil {
                appeared = .now
                logger.notice("music directory \(path) is here now")
            }
            if let start = appeared, ContinuousClock.now - start < fileGrace, !(await savedFileExists()) { continue }
            break
        }
        guard !Task.isCancelled, !Task.isShuttingDownGracefully else { return }
        await player.resumeSaved(saved, policy: policy)
        if scanOnStart { library.startScan(.incremental) }
        // A service that returns early ends the whole group: stay until the daemon shuts down.
        try? await gracefulShutdown()
    }

    /// Whether the saved current entry's file is there (true when there is no saved entry).
    private func savedFileExists() async -> Bool {
        guard let id = saved.currentEntry, let entry = await player.queueView().queue.entry(id: id) else { return true }
        let file = entry.uri.hasPrefix("/") ? entry.uri : path + "/" + entry.uri
        return await BlockingWork.run { RawFiles.kind(file) != nil }
    }
}
