import FermataCore
import MPDProtocol

/// What the web remote needs from the daemon: the MPD backend (the same calls the MPD port makes, so both are one
/// box), and what MPD's protocol has no command for — what `fermata doctor` says, the volume limits, uploads, a card
/// learnt from the next swipe, the controls' live events.
///
/// Implemented by the daemon (its composition root); methods are called from any request's task.
public protocol WebBackend: Sendable {
    var mpd: any MPDBackend { get }
    /// The library's full-text search (every word a prefix of a title, artist, album or path word), at most `limit`.
    func search(_ text: String, limit: Int) async throws -> [SongInfo]
    /// What `fermata doctor` says, as the daemon sees it.
    func findings() async -> [WebFinding]
    /// `audio.volume_max` and `audio.volume_start` (nil: the saved volume at start).
    var volumeLimits: (max: Int, start: Int?) { get }
    /// Where uploads go (nil: the music folder is not writable by fermatad, or uploads are off).
    var uploads: WebUploads? { get }
    /// The format of the file at `path` when it is audio Fermata plays, by its content (nil: not such audio). Blocks:
    /// it reads the file's first bytes.
    func playableFormat(ofFile path: String) -> String?
    /// Binds the next unknown card read to `target`; the card's event says when.
    func learnNextCard(target: String, volumeMax: Int?) async throws
    /// Stops waiting for a card to learn.
    func stopLearningCard() async throws
    /// The target the next unknown card will play, while one is being learnt.
    func cardLearning() async -> String?
}

/// One finding of the box's checks.
public struct WebFinding: Sendable, Hashable {
    public var ok: Bool
    public var what: String
    public var fix: String?

    public init(ok: Bool, what: String, fix: String? = nil) {
        self.ok = ok
        self.what = what
        self.fix = fix
    }
}

/// Where uploaded files go: a folder inside the music directory (its path relative to it, e.g. `incoming`), at most
/// `maxBytes` each; written under a temporary name and renamed whole, then scanned.
public struct WebUploads: Sendable, Hashable {
    /// The music directory's absolute path.
    public var musicDirectory: String
    /// The folder's path relative to the music directory.
    public var folder: String
    public var maxBytes: Int64

    public init(musicDirectory: String, folder: String = "incoming", maxBytes: Int64) {
        self.musicDirectory = musicDirectory
        self.folder = folder
        self.maxBytes = maxBytes
    }
}

/// Live events the daemon hands the web remote besides the MPD backend's `idle` changes: a control used (a button, a
/// pedal, a remote's key, the encoder), a card read, practice statistics written (time counted when playing paused,
/// the track or the loop changed, and every 30 s while playing), recording changed (on or off, its phase, a take kept
/// or deleted, a problem).
public enum WebSignal: Sendable, Hashable {
    case input(device: String?, control: String, gesture: String, action: String?)
    case card(id: String, known: Bool, learned: String?)
    case practice
    case recording
}
