import AudioCore
import FermataCore

/// The practice loop as the player keeps it: none, point A marked and waiting for B, or an A–B region on an entry.
/// The marking rules live here as pure edits (given the place heard); the `Player` applies the result and tells the
/// engine.
///
/// Threads: a value, part of `PlayerState`.
enum LoopMarks: Equatable {
    case none
    /// A is marked; B is not yet.
    case pendingA(EntryFrame)
    case set(EntryLoop)

    /// The loop region, if one is set.
    var loop: EntryLoop? {
        if case let .set(loop) = self { loop } else { nil }
    }

    var pendingA: EntryFrame? {
        if case let .pendingA(mark) = self { mark } else { nil }
    }

    /// A region on `entry`, checked: A at or after the start, B after A.
    static func region(_ region: LoopRegion, on entry: EntryID) throws -> LoopMarks {
        guard region.start >= 0, region.end > region.start else { throw Player.ActionError.loopBBeforeA }
        return .set(EntryLoop(entry: entry, region: region))
    }

    /// Marks A where `heard` is: moves the start of a loop on that entry when it is before B, otherwise starts a
    /// new loop waiting for B.
    func markingA(at heard: EntryFrame) throws -> LoopMarks {
        if let existing = loop, existing.entry == heard.entry, heard.frame < existing.region.end {
            return try .region(LoopRegion(start: heard.frame, end: existing.region.end), on: heard.entry)
        }
        return .pendingA(heard)
    }

    /// Marks B where `heard` is: closes the loop from a pending A, or moves the end of a loop on that entry.
    func markingB(at heard: EntryFrame) throws -> LoopMarks {
        let start: Int64
        if let pending = pendingA, pending.entry == heard.entry {
            start = pending.frame
        } else if let existing = loop, existing.entry == heard.entry {
            start = existing.region.start
        } else {
            throw Player.ActionError.loopNeedsA
        }
        guard heard.frame > start else { throw Player.ActionError.loopBBeforeA }
        return try .region(LoopRegion(start: start, end: heard.frame), on: heard.entry)
    }

    /// The one-button cycle: A, then B, then off.
    func cycling(at heard: EntryFrame) throws -> LoopMarks {
        switch self {
        case .set: .none
        case .pendingA: try markingB(at: heard)
        case .none: try markingA(at: heard)
        }
    }

    /// Moves one end of the loop by `offset` frames (kept within the frame range).
    func nudging(_ endpoint: LoopEndpoint, by offset: Int64) throws -> LoopMarks {
        guard var current = loop else { throw Player.ActionError.loopNeedsA }
        switch endpoint {
        case .a: current.region.start = FrameTime.moved(current.region.start, by: offset)
        case .b: current.region.end = FrameTime.moved(current.region.end, by: offset)
        }
        return try .region(current.region, on: current.entry)
    }
}
