import FermataCore
import MPDProtocol

extension QueueSource {
    /// What a card's target (or an alarm's) puts in the queue: a stored playlist, an album by its tag, a folder or a
    /// practice piece of the music directory; nil for an action, which plays nothing of its own.
    init?(target: CardTarget) {
        switch target {
        case let .playlist(name): self = .storedPlaylist(name: name, range: nil)
        case let .album(name): self = .matching(SongQuery(filter: .string(.tag(.album), StringMatch(.equals, name))))
        case let .folder(path), let .piece(path): self = .uri(path, recursive: true)
        case let .stream(url): self = .uri(url, recursive: false)
        case .action: return nil
        }
    }
}
