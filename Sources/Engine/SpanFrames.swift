import AudioCore
import FermataCore

/// A queue entry's `PlaySpan` in source frames, as the decoder machine plays it: where the track starts and ends, and
/// the loop that plays its passes. A value; the decoder thread's.
struct SpanFrames: Equatable {
    var start: Int64
    /// Nil: the file's end.
    var end: Int64?
    var passes: Int

    init(_ span: PlaySpan, rate: Int) {
        start = FrameTime.frames(milliseconds: span.startMilliseconds, rate: rate)
        end = span.endMilliseconds.map { FrameTime.frames(milliseconds: $0, rate: rate) }
        passes = span.passes
    }

    /// The loop that plays the passes, at a cursor at `position` after `passes` seams: B back to A until all are
    /// played (nil: one pass, no end, or the decoder outside the span).
    func loop(position: Int64, seams: Int) -> LoopRegion? {
        guard let end, end > start, seams < passes - 1, position <= end else { return nil }
        return LoopRegion(start: start, end: end, repeatCount: passes - 1)
    }
}

extension PlayableItem {
    /// The tempo this item plays at by itself (its span's), nil: the listener's.
    var ownTempo: Double? { span?.tempoPercent.map { Double($0) / 100 } }
}
