import FermataCore

/// The reducer's part for network streams: what a stream says of itself (its station, the title now) is kept per
/// queue entry and shown as the song's `Name` and `Title`; each change is a player change, as MPD signals it.
extension PlayerState {
    mutating func streamTagsChanged(_ entry: EntryID, name: String?, title: String?, _ step: inout PlayerStep) {
        guard queue.entry(id: entry) != nil else { return }
        var tags = streamTags[entry] ?? StreamTags()
        if let name { tags.name = name }
        if let title { tags.title = title.isEmpty ? nil : title }
        guard tags != streamTags[entry] else { return }
        // Entries that left the queue take their tags with them.
        if streamTags.count > 16 { streamTags = streamTags.filter { queue.entry(id: $0.key) != nil } }
        streamTags[entry] = tags
        step.changed(.player)
    }
}
