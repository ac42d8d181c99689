import FermataCore

/// The listener's beat on one queue entry (tapped or set), in beats per minute: it counts on that entry only.
struct EntryBeat: Sendable, Hashable {
    var entry: EntryID
    var bpm: Double
}
