/// The rule for the tempo an entry plays at, in one place for the two that apply it — the player's state (what it
/// shows and saves) and the engine's decoder machine (what it plays, switched at the sample the entry starts): an entry
/// with a tempo of its own (a section queued with its tempo, `PlaySpan.tempoPercent`) plays at it, unless the
/// listener changed the tempo while that entry was current — then it plays on at the listener's for the rest of that
/// entry; every other entry plays at the listener's.
///
/// A value; each of the two keeps its own on its own thread, fed the same events (a listener's change, an entry
/// entered), so they agree.
public struct EntryTempo: Sendable, Equatable {
    /// The entry whose own tempo the listener overrode (nil: none).
    public private(set) var overridden: EntryID?

    public init() {}

    /// The listener changed the tempo while `current` played; it overrides that entry's own tempo if it has one.
    public mutating func listenerChanged(current: EntryID?, hasOwnTempo: Bool) {
        if let current, hasOwnTempo { overridden = current }
    }

    /// `entry` starts: an override of any other entry is over.
    public mutating func entered(_ entry: EntryID?) {
        if overridden != entry { overridden = nil }
    }

    /// The tempo `entry` plays at: `own` unless the listener overrode it on that entry, else `listener`.
    public func tempo<Tempo>(of entry: EntryID, own: Tempo?, listener: Tempo) -> Tempo {
        guard entry != overridden, let own else { return listener }
        return own
    }
}
