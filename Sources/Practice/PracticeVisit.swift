import FermataCore

/// The track the practice recorder is on: which queue entry, its path, and the memory last saved, restored or seen
/// for it (a difference from it is a change made by the listener, to save). Also turns a status into the subject the
/// time counts against and into a memory.
/// A value type, owned by `PracticeRecorder`.
struct PracticeVisit: Sendable {
    var entry: EntryID
    var path: String
    var known: TrackMemory
    /// A saved memory still to apply (entering the track), and how many times it was tried.
    var pending: TrackMemory?
    var attempts = 0

    /// What playing time counts against now; nil while paused or stopped.
    static func subject(_ status: PlayerStatus) -> PracticeSubject? {
        guard status.state == .playing, let path = status.path else { return nil }
        // A queued section (or range) with no loop of the listener's on it: its part of the track is what is
        // practised, so its time counts under the section in the report as a loop on it would.
        if status.loop == nil, let span = status.span, let end = span.endMilliseconds {
            return PracticeSubject(path: path, loop: .init(start: span.startMilliseconds, end: end))
        }
        return PracticeSubject(path: path, loop: loop(status))
    }

    /// The loop, tempo, transposition and beat the status shows; nil while the track's sample rate is not known yet,
    /// and for a queued section or range (its part and tempo are the queue's, not a memory of the track's).
    static func memory(_ status: PlayerStatus) -> TrackMemory? {
        guard status.span == nil, status.loop == nil || status.sourceSampleRate > 0 else { return nil }
        return TrackMemory(loop: loop(status), loopCount: status.loop?.repeatCount, tempoPercent: status.tempoPercent,
                           transposeCents: status.transposeCents, beat: status.beat)
    }

    /// The loop's ends rounded to milliseconds.
    static func loop(_ status: PlayerStatus) -> PracticeSubject.LoopMilliseconds? {
        guard let region = status.loop, status.sourceSampleRate > 0 else { return nil }
        let rate = Double(status.sourceSampleRate)
        return .init(start: Int64((Double(region.start) / rate * 1000).rounded()),
                     end: Int64((Double(region.end) / rate * 1000).rounded()))
    }
}

extension TrackMemory {
    /// Whether this (what the player shows) carries out `saved`: its tempo, and its loop when it has one, up to the
    /// millisecond the frame rounding may move a loop end.
    func shows(_ saved: TrackMemory) -> Bool {
        guard tempoPercent == saved.tempoPercent, transposeCents == saved.transposeCents else { return false }
        if let want = saved.beat, beat.map({ abs($0.bpm - want.bpm) > 0.001 || abs($0.offsetSeconds - want.offsetSeconds) > 0.001 }) ?? true {
            return false
        }
        guard let want = saved.loop else { return true }
        guard let have = loop else { return false }
        return abs(have.start - want.start) <= 1 && abs(have.end - want.end) <= 1 && loopCount == saved.loopCount
    }
}
