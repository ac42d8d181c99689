import FermataCore

/// Everything `status` prints: the player's own snapshot plus the queue and library facts MPD adds.
///
/// A plain value built by the `MPDBackend`; the MPD `repeat`/`single` pair is derived from `player.repeatMode` and
/// `player.single` by `RepeatSingleMapping`.
public struct MPDStatusInfo: Sendable, Hashable {
    /// Transport, entry id, position, duration, volume, repeat/single, replay gain, loop, last error.
    public var player: PlayerStatus
    public var random: Bool
    public var consume: Bool
    /// MPD 0.24's one-shot consume: `consume` switches itself off after one song (`status` says `consume: oneshot`).
    public var consumeOneshot = false
    /// Crossfade between songs in whole seconds (0 = off; Fermata plays gaplessly).
    public var crossfadeSeconds: Int
    /// The queue version (MPD's `playlist`): bumped on every queue change; `plchanges` compares against it.
    public var queueVersion: UInt32
    public var queueLength: Int
    /// Position of `player.entryID` in the queue.
    public var songPosition: Int?
    public var nextSongPosition: Int?
    public var nextSongID: EntryID?
    /// Instantaneous bit rate in kbit/s (0 when unknown).
    public var bitrate: Int
    /// The decoded format of the current song as `rate:bits:channels`.
    public var audioFormat: String?
    /// The running database update job, if any.
    public var updatingJob: Int?
    /// Whole seconds until the sleep timer stops the music (nil: no sleep timer); Fermata's `sleep:` line, which MPD
    /// clients skip as they skip any line they do not know.
    public var sleepSeconds: Int?

    public init(
        player: PlayerStatus = PlayerStatus(), random: Bool = false, consume: Bool = false, crossfadeSeconds: Int = 0,
        queueVersion: UInt32 = 1, queueLength: Int = 0, songPosition: Int? = nil, nextSongPosition: Int? = nil,
        nextSongID: EntryID? = nil, bitrate: Int = 0, audioFormat: String? = nil, updatingJob: Int? = nil
    ) {
        self.player = player
        self.random = random
        self.consume = consume
        self.crossfadeSeconds = crossfadeSeconds
        self.queueVersion = queueVersion
        self.queueLength = queueLength
        self.songPosition = songPosition
        self.nextSongPosition = nextSongPosition
        self.nextSongID = nextSongID
        self.bitrate = bitrate
        self.audioFormat = audioFormat
        self.updatingJob = updatingJob
    }
}

/// What `stats` prints. Times are whole seconds; `databaseUpdated` is a Unix time.
public struct MPDStats: Sendable, Hashable {
    public var artists: Int
    public var albums: Int
    public var songs: Int
    public var uptime: Int64
    /// Time spent playing since the daemon started.
    public var playtime: Int64
    /// Sum of all song durations in the library.
    public var databasePlaytime: Int64
    public var databaseUpdated: Int64

    public init(
        artists: Int = 0, albums: Int = 0, songs: Int = 0, uptime: Int64 = 0, playtime: Int64 = 0,
        databasePlaytime: Int64 = 0, databaseUpdated: Int64 = 0
    ) {
        self.artists = artists
        self.albums = albums
        self.songs = songs
        self.uptime = uptime
        self.playtime = playtime
        self.databasePlaytime = databasePlaytime
        self.databaseUpdated = databaseUpdated
    }
}

/// Player settings MPD has and `ControlAction` does not (they are the backend's to keep or refuse).
public enum PlayerOption: Sendable, Hashable {
    case random(Bool)
    case consume(Bool)
    /// `consume oneshot` (MPD 0.24): consume one song, then switch consume off.
    case consumeOneshot
    /// `single oneshot`: stop after the current song once, then single switches itself off (MPD 0.21).
    case singleOneshot
    case crossfade(seconds: Int)
    /// `clearerror`: forget `PlayerStatus.lastError`.
    case clearError
}
