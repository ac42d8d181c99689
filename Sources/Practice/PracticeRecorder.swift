import FermataCore
import Foundation
import Logging

/// Counts practice time and keeps each track's practice memory. Each `observe()` reads the player's status and
/// counts the wall-clock time since the previous observation against what was playing then (nothing while paused or
/// stopped); the time waits in memory and is written in one small transaction every `flushInterval`, when the track,
/// the loop or the transport changes, for a report, and at shutdown. A failed write (disk full, read-only) is logged
/// once and retried; playback never notices.
///
/// With `remember`, entering a track restores the loop region and tempo last used on it (`TrackMemory`), and a change
/// made while on the track is saved when it is seen. A restore happens only on entering, so it never undoes a change
/// the listener makes on the track.
/// Threads: an actor; `PracticeService` and the protocol backend call it from any task.
public actor PracticeRecorder {
    /// Yields whenever an observation finds the player playing (the service's 1 Hz poll waits on it).
    public nonisolated let playingSignals: AsyncStream<Void>
    let playingSignal: AsyncStream<Void>.Continuation
    let player: any PlayerControl
    let store: PracticeStore
    let clock: any PracticeClock
    let calendar: PracticeCalendar
    let remember: Bool
    let flushInterval: TimeInterval
    let logger: Logger
    var tally: PracticeTally
    /// The previous observation: when, and what was playing (nil: paused or stopped).
    var last: (at: Date, subject: PracticeSubject?)?
    var lastFlush: Date
    var failing = false
    /// The track being visited, for its memory.
    var visit: PracticeVisit?
    var restoring = false
    /// The entry the player restored at start (`adoptRestored`): its loop and tempo are the player state saved when
    /// they were acknowledged, newer than any memory, so the first visit adopts them instead of restoring.
    var restoredEntry: EntryID?
    /// The entry whose sections the player was last given (they load on entering a track, `remember` or not: they
    /// are the listener's own, not a memory of settings).
    var sectionsGivenFor: EntryID?
    /// Told after an observation has written practice time (the web remote's `practice` event).
    var onWritten: (@Sendable () -> Void)?

    /// A bad `YYYY-MM-DD` (no such day).
    public struct NoSuchDay: Error, CustomStringConvertible {
        public let day: String
        public var description: String { "no such day: \(day)" }
    }

    public init(player: any PlayerControl, store: PracticeStore, remember: Bool = true,
                clock: any PracticeClock = SystemPracticeClock(), calendar: PracticeCalendar = PracticeCalendar(),
                flushInterval: TimeInterval = 30, logger: Logger = Logger(label: "fermata.practice")) {
        self.player = player
        self.store = store
        self.remember = remember
        self.clock = clock
        self.calendar = calendar
        self.flushInterval = flushInterval
        self.logger = logger
        tally = PracticeTally(calendar: calendar)
        lastFlush = clock.now
        (playingSignals, playingSignal) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// The player restored `entry` as current at start, with the loop and tempo its saved state holds: they were
    /// saved durably when acknowledged, while the memory is saved when a change is seen (at most once a second), so
    /// entering this entry first keeps what the player shows and saves it as the track's memory.
    public func adoptRestored(entry: EntryID?) {
        restoredEntry = entry
    }

    /// Where it is told that an observation wrote practice time: when playing paused or stopped, the track or the loop
    /// changed, and every `flushInterval` while playing. Not for the writes a report makes (its reader has the
    /// figures already: telling would make a page that reloads its chart on the news ask again and again).
    public func reportWrites(to handler: @escaping @Sendable () -> Void) {
        onWritten = handler
    }

    /// Whether the last observation found the player playing.
    public var isPlaying: Bool { last?.subject != nil }

    /// Reads the status, counts the time since the last observation, restores or saves the track's memory, and
    /// writes when due. Returns whether the player is playing.
    @discardableResult
    public func observe() async -> Bool {
        let status = await player.status()
        let now = clock.now
        let subject = PracticeVisit.subject(status)
        let previous = last
        if let previous, let counted = previous.subject { tally.add(from: previous.at, to: now, counted) }
        if let subject, let percent = status.lastPassTempoPercent { tally.reach(percent, at: now, subject) }
        last = (now, subject)
        if subject != nil { playingSignal.yield() }
        await giveSections(status)
        if remember { await updateMemory(status) }
        if subject != previous?.subject || now.timeIntervalSince(lastFlush) >= flushInterval {
            if await write() { onWritten?() }
        }
        return subject != nil
    }

    /// Writes the time counted so far (one transaction); on failure keeps it for the next try.
    public func flush() async {
        await write()
    }

    /// `flush`; whether it wrote anything.
    @discardableResult
    private func write() async -> Bool {
        lastFlush = clock.now
        guard !tally.isEmpty else { return false }
        let rows = tally.take(), reached = tally.takeReached()
        do {
            try await store.add(rows, reached: reached)
            if failing { logger.notice("practice statistics are being saved again") }
            failing = false
            return true
        } catch {
            if !failing { logger.warning("cannot save practice statistics (\(error)); keeping them in memory") }
            failing = true
            tally.restore(rows)
            tally.restoreReached(reached)
            return false
        }
    }

    /// Counts up to now and writes: for a clean shutdown.
    public func finish() async {
        await observe()
        await flush()
        playingSignal.finish()
    }

    /// The statistics of `period`, the time counted up to now included.
    public func report(_ period: PracticePeriod) async throws -> PracticeReport {
        await observe()
        await flush()
        let now = clock.now
        let days: (first: String, last: String)
        switch period {
        case .today: days = (calendar.day(now), calendar.day(now))
        case .thisWeek: days = calendar.week(now)
        case let .day(day):
            guard calendar.date(ofDay: day) != nil else { throw NoSuchDay(day: day) }
            days = (day, day)
        case let .week(day):
            guard let date = calendar.date(ofDay: day) else { throw NoSuchDay(day: day) }
            days = calendar.week(date)
        }
        let tracks = try await store.tracks(from: days.first, to: days.last)
        return PracticeReport(period: period.name, firstDay: days.first, lastDay: days.last,
                              totalSeconds: tracks.reduce(0) { $0 + $1.seconds }, tracks: tracks)
    }

    // MARK: sections

    /// A section edit that cannot be done; nothing changed.
    public struct SectionError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Changes the current track's sections: saved durably, then handed to the player; returns the new list.
    public func editSections(_ edit: SectionEdit) async throws -> [PracticeSection] {
        let status = await player.status()
        guard let entry = status.entryID, let path = status.path else { throw SectionError(description: "nothing is playing") }
        var list = try await store.sections(path: path)
        switch edit {
        case let .saveLoop(name):
            guard let loop = status.loop, let ends = PracticeVisit.loop(status) else {
                throw SectionError(description: "set a loop (A and B) first: a section is saved from it")
            }
            upsert(PracticeSection(name: name ?? Self.freeName(in: list), startMilliseconds: ends.start,
                                   endMilliseconds: ends.end, passes: loop.repeatCount.map { $0 + 1 },
                                   tempoPercent: status.tempoPercent), into: &list)
        case let .add(section): upsert(section, into: &list)
        case let .delete(index):
            guard list.indices.contains(index) else {
                throw SectionError(description: "no section \(index + 1): this track has \(list.count)")
            }
            list.remove(at: index)
        case let .replace(index, section):
            guard list.indices.contains(index) else {
                throw SectionError(description: "no section \(index + 1): this track has \(list.count)")
            }
            guard !list.enumerated().contains(where: { $0.offset != index && $0.element.name == section.name }) else {
                throw SectionError(description: "this track already has a section named \(section.name)")
            }
            list[index] = section
        }
        if let problem = list.lazy.compactMap(\.problem).first { throw SectionError(description: problem) }
        guard list.count <= PracticeSection.maxPerTrack else {
            throw SectionError(description: "a track has at most \(PracticeSection.maxPerTrack) sections")
        }
        try await store.replaceSections(list, path: path)
        try await player.perform(.setSections(entry: entry, list))
        sectionsGivenFor = entry
        return list
    }

    /// The sections of the track at `path` (relative to the music directory), from its practice memory.
    public func sections(path: String) async throws -> [PracticeSection] { try await store.sections(path: path) }

    /// "section N" with the smallest N no section of `list` is named.
    static func freeName(in list: [PracticeSection]) -> String {
        let names = Set(list.map(\.name))
        return (1...).lazy.map { "section \($0)" }.first { !names.contains($0) }!
    }

    private func upsert(_ section: PracticeSection, into list: inout [PracticeSection]) {
        if let index = list.firstIndex(where: { $0.name == section.name }) { list[index] = section } else { list.append(section) }
    }

    /// On entering a track: hands the player its sections (once per entry; retried at the next observation when the
    /// store cannot be read).
    private func giveSections(_ status: PlayerStatus) async {
        guard let entry = status.entryID, let path = status.path, entry != sectionsGivenFor else { return }
        do {
            let list = try await store.sections(path: path)
            if !list.isEmpty { try await player.perform(.setSections(entry: entry, list)) }
            sectionsGivenFor = entry
        } catch {
            logger.warning("cannot give the player the sections of \(path): \(error)")
        }
    }

    // MARK: memory

    private func updateMemory(_ status: PlayerStatus) async {
        guard !restoring, status.state != .stopped, let entry = status.entryID, let path = status.path,
              let observed = PracticeVisit.memory(status) else { return }  // nil: the rate is not known yet
        restoring = true
        defer { restoring = false }
        if visit?.entry != entry {
            let adopting = visit == nil && entry == restoredEntry
            restoredEntry = nil
            visit = PracticeVisit(entry: entry, path: path, known: observed)
            do {
                if let saved = try await store.memory(path: path) {
                    // Adopting: what the player shows is saved below as the new memory when it differs.
                    if adopting { visit?.known = saved } else if !observed.shows(saved) { visit?.pending = saved }
                }
            } catch {
                logger.warning("cannot read the practice memory of \(path): \(error)")
            }
        }
        guard var current = visit, current.entry == entry else { return }
        if let pending = current.pending {
            await restore(pending, into: &current)
        } else if observed != current.known {
            current.known = observed
            do {
                try await store.saveMemory(observed, path: current.path, at: clock.now)
            } catch {
                logger.warning("cannot save the practice memory of \(current.path): \(error)")
            }
        }
        if visit?.entry == entry { visit = current }
    }

    /// Applies a saved memory on entering a track. Until the new track is heard the player applies a loop to the one
    /// before, so this checks the result and tries again at the next observations (10 at most).
    private func restore(_ saved: TrackMemory, into visit: inout PracticeVisit) async {
        let loop = saved.loop.map {
            PracticeLoop(startSeconds: Double($0.start) / 1000, endSeconds: Double($0.end) / 1000,
                         repeatCount: saved.loopCount)
        }
        do {
            try await player.perform(.practiceMemory(entry: visit.entry, tempoPercent: saved.tempoPercent, loop: loop,
                                                     transposeCents: saved.transposeCents, beat: saved.beat))
        } catch is PracticeMemorySuperseded {
            // The listener changed the tempo or the loop on this track first: theirs stays, and becomes the memory at
            // the next observation (it differs from the memory still `known`).
            logger.info("kept the tempo and loop set on \(visit.path) over its practice memory")
            visit.pending = nil
            visit.known = saved
            return
        } catch {
            logger.debug("practice memory of \(visit.path) not applied yet: \(error)")
        }
        let status = await player.status()
        visit.attempts += 1
        guard status.entryID == visit.entry, let now = PracticeVisit.memory(status) else { return }
        if now.shows(saved) {
            logger.info("restored the practice memory of \(visit.path): \(saved)")
        } else if visit.attempts < 10 {
            return
        } else {
            logger.warning("could not restore the practice memory of \(visit.path); playing on")
        }
        visit.pending = nil
        visit.known = now
    }
}
