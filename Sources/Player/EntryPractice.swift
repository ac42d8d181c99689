import FermataCore

/// The listener's beat on one queue entry (tapped or set): it counts on that entry only.
struct EntryBeat: Sendable, Hashable {
    var entry: EntryID
    var beat: TrackBeat
}

/// One queue entry's practice sections, as its track's practice memory keeps them (the recorder hands them in): the
/// player steps through them; the store owns them.
struct EntrySections: Sendable, Hashable {
    var entry: EntryID
    var list: [PracticeSection]
}
