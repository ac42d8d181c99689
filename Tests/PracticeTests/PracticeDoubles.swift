import FermataCore
import Foundation
import Practice
import Synchronization

/// A clock the test sets and advances.
/// Thread-safe (a mutex); any task may read or move it.
final class ManualClock: PracticeClock {
    private let time: Mutex<Date>
    init(_ start: Date) { time = Mutex(start) }
    var now: Date { time.withLock { $0 } }
    func advance(minutes: Double) { time.withLock { $0 += minutes * 60 } }
    func advance(seconds: Double) { time.withLock { $0 += seconds } }
}

/// A player that only holds a status: the test sets it, `perform` applies tempo and loop actions to it.
/// An actor; any task.
actor ScriptedPlayer: PlayerControl {
    var current = PlayerStatus()
    private(set) var performed: [ControlAction] = []
    /// The listener changed the tempo or the loop on the current entry (`listenerChanges`).
    private var touched = false

    init() { current.sourceSampleRate = 44_100 }

    func status() async -> PlayerStatus { current }

    func perform(_ action: ControlAction) async throws {
        performed.append(action)
        switch action {
        case let .setTempo(percent): current.tempoPercent = percent
        case let .setTranspose(cents): current.transposeCents = cents
        case let .setSections(entry, list): if entry == current.entryID { current.sections = list }
        case let .setLoop(start, end, count):
            let rate = Double(current.sourceSampleRate)
            current.loop = LoopRegion(start: Int64(start * rate), end: Int64(end * rate), repeatCount: count)
        case let .practiceMemory(entry, tempo, loop, transpose, beat):
            // As the player: refused once the listener changed the tempo or the loop on this entry.
            guard entry == current.entryID, !touched else { throw PracticeMemorySuperseded() }
            current.tempoPercent = tempo
            current.transposeCents = transpose
            current.beat = beat ?? current.beat
            if let loop {
                let rate = Double(current.sourceSampleRate)
                current.loop = LoopRegion(start: Int64(loop.startSeconds * rate), end: Int64(loop.endSeconds * rate),
                                          repeatCount: loop.repeatCount)
            }
        default: break
        }
    }

    /// The listener sets the tempo on the current entry before the recorder gets there.
    func listenerSets(tempo: Int) {
        current.tempoPercent = tempo
        touched = true
    }

    /// Plays `path` as a new entry (no loop: the loop belongs to the entry left).
    func play(_ path: String, entry: EntryID) {
        touched = false
        current.state = .playing
        current.entryID = entry
        current.path = path
        current.loop = nil
        current.sections = []
    }

    func set(_ state: PlayState) { current.state = state }

    func setLoop(seconds start: Double, _ end: Double, repeatCount: Int? = nil) {
        current.loop = LoopRegion(start: Int64(start * 44_100), end: Int64(end * 44_100), repeatCount: repeatCount)
    }

    func setTempo(_ percent: Int) { current.tempoPercent = percent }

    /// A loop pass was heard to its end at `percent` (nil: none yet on this loop).
    func passEnded(at percent: Int?) { current.lastPassTempoPercent = percent }
}

/// Local noon-based dates in a fixed zone, for readable test times.
struct TestTime {
    static let zone = TimeZone(identifier: "Europe/Berlin")!
    static let calendar = PracticeCalendar(timeZone: zone)

    /// `year-month-day hour:minute` in `zone`.
    static func date(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int) -> Date {
        var gregorian = Calendar(identifier: .gregorian)
        gregorian.timeZone = zone
        return gregorian.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!
    }
}
