import FermataCore

/// Everything the MPD command handlers need from the daemon, in coarse calls over plain values.
///
/// Implemented by the daemon over the player actor, the queue store and the library (and by an in-memory double in
/// the tests). Methods are called from any task, concurrently for different connections, never on an event loop's
/// thread in a way that may block it. Implementations must be thread-safe (an actor or actor-backed).
///
/// Errors: throw `MPDError` to choose the ACK code and message (`MPDError.noSuchSong()`, `.badSongIndex()`, …); any
/// other error is reported as `ACK_ERROR_SYSTEM` with its description. URIs and playlist names reaching the backend
/// have passed `URIValidator.checked` / `StoredPlaylistName.validate`; backends must still confine file access with
/// `MusicPathGuard` (symlinks).
///
/// Changes: after every change a client could observe, publish the subsystem on `idle` (`.player` for transport,
/// `.mixer` for volume, `.options` for repeat/random/single/consume/crossfade/replay gain, `.playlist` for the queue,
/// `.storedPlaylist`, `.database`/`.update`, `.sticker`, `.output`). A queue edit must bump `queueVersion` and be
/// committed before the call returns (the client's `OK` promises it).
public protocol MPDBackend: Sendable {
    /// Where the backend announces changes; each connection subscribes once.
    var idle: IdleBroadcaster { get }

    /// Static facts: decoders, URL handlers, whether stickers exist.
    var capabilities: BackendCapabilities { get }

    // MARK: Player

    /// Transport, volume, repeat/single, replay gain and the A–B loop all go through FermataCore's `ControlAction`.
    func perform(_ action: ControlAction) async throws

    /// Random, consume, crossfade, clearerror. Refuse what Fermata does not do with an `MPDError`.
    func setOption(_ option: PlayerOption) async throws

    func status() async throws -> MPDStatusInfo
    func stats() async throws -> MPDStats

    // MARK: Queue

    /// Reads queue songs with `queuePosition` and `queueID` set, in queue order.
    func queueSongs(_ query: QueueQuery) async throws -> [SongInfo]

    /// Applies one queue edit atomically. Returns the ids of added entries (empty for other edits).
    @discardableResult
    func editQueue(_ edit: QueueEdit) async throws -> [EntryID]

    // MARK: Database

    /// `find`/`search`: songs matching the query, sorted and windowed as asked (unsorted: library order).
    func songs(_ query: SongQuery) async throws -> [SongInfo]

    /// `list`: distinct values, sorted by group values then value.
    func tagValues(_ request: TagListRequest) async throws -> [TagListRow]

    /// `count`: one row, or one per value of `groupBy`.
    func count(_ filter: SongFilter?, groupBy: TagType?) async throws -> [CountRow]

    /// `lsinfo` (`recursive == false`) and `listall`/`listallinfo` (`true`) of a directory, or of one song when `uri`
    /// names a song. `""` is the root; `lsinfo` of the root also lists stored playlists. Unknown: `No such directory`.
    func browse(_ uri: String, recursive: Bool) async throws -> [DirectoryEntry]

    /// Where recursive `browse` answers may be kept while the library is unchanged; nil (the default): none kept.
    var listingCache: ListingCache? { get }

    /// Returns once the backend can answer about its state (a restart may accept connections while it is still
    /// reading the saved queue back); every batch waits for it. The default returns at once.
    func ready() async

    /// `listfiles`: every file and directory in a library directory (names relative to it).
    func files(in uri: String) async throws -> [FileEntry]

    /// `update`/`rescan` of the whole library (`nil`) or below `uri`. Returns the job id (`updating_db`).
    func update(_ uri: String?, rescan: Bool) async throws -> Int

    /// A slice of a cover picture, or nil when the song has none (`albumart` then answers `No file exists`,
    /// `readpicture` an empty response).
    func coverArt(_ request: CoverArtRequest) async throws -> CoverArtChunk?

    // MARK: Stored playlists

    func storedPlaylists() async throws -> [StoredPlaylistInfo]

    /// The songs of a stored playlist (tags filled when the library knows the file). Unknown: `No such playlist`.
    func storedPlaylistSongs(_ name: String) async throws -> [SongInfo]

    func editStoredPlaylist(_ name: String, _ edit: StoredPlaylistEdit) async throws

    // MARK: Stickers (Fermata's custom metadata)

    /// Runs one sticker operation. `get` of a missing sticker throws `MPDError(.noExist, "no such sticker")`.
    func sticker(_ operation: StickerOperation) async throws -> [StickerMatch]

    // MARK: Outputs

    func outputs() async throws -> [OutputInfo]

    /// Enables (`true`), disables (`false`) or toggles (`nil`) an output. Unknown id: `No such audio output`.
    func setOutput(_ id: Int, enabled: Bool?) async throws

    // MARK: Practice (Fermata only)

    /// Practice statistics for a period (`practice`). The default refuses: see `MPDBackend+Practice.swift`.
    func practiceReport(_ period: PracticePeriod) async throws -> PracticeReport
    /// Changes the current track's sections (`section_save`, `section_add`, `section_delete`); the new list. The
    /// default refuses: see `MPDBackend+Practice.swift`.
    func editSections(_ edit: SectionEdit) async throws -> [PracticeSection]
    /// The sections of the track at `uri` (`section_queue` looks one up by name).
    func sections(of uri: String) async throws -> [PracticeSection]

    /// Where the library scan is (`scan_status`). The default refuses: see `MPDBackend+Scan.swift`.
    func scanReport() async throws -> ScanReport
    /// Every file the scans on record could not index, or indexed with a repair (`scan_issues`).
    func scanIssues() async throws -> [ScanIssueLine]

    /// The cards and what each plays (`cards`). The default refuses: see `MPDBackend+Cards.swift`.
    func cards() async throws -> CardsReport
    /// Binds, forgets or reads a card (`cardassign`, `cardlearn`, `cardforget`, `cardread`).
    func editCards(_ edit: CardEdit) async throws

    /// Sets (nil: removes) the web remote's password for `role` (`webpassword`). The default refuses: see
    /// `MPDBackend+Cards.swift`.
    func setWebPassword(_ password: String?, for role: WebRole) async throws

    // MARK: Timers (Fermata only)

    /// Sets or turns off the sleep timer (nil: only reads it); the whole seconds left afterwards (nil: off)
    /// (`sleep_timer`). The default refuses: see `MPDBackend+Timers.swift`.
    func sleepTimer(_ request: SleepTimerRequest?) async throws -> Int?
    /// The alarms, each with its next firing (`alarms`).
    func alarms() async throws -> [AlarmReport]
    /// Adds, removes or switches an alarm (`alarm_add`, `alarm_remove`, `alarm_enable`); the id of one added.
    @discardableResult
    func editAlarms(_ edit: AlarmEdit) async throws -> Int64?

    // MARK: Recording yourself (Fermata only)

    /// Turns recording on or off (nil: only reads it); what it does afterwards (`record`). The default refuses: see
    /// `MPDBackend+Record.swift`.
    func recording(_ on: Bool?) async throws -> RecordReport
    /// The takes kept, newest first; of one track only with `path` (`takes`).
    func takes(path: String?) async throws -> [TakeReport]
    /// Deletes a take, its file and its row (`takedelete`).
    func deleteTake(id: Int64) async throws
    /// Plays clicks and hears them, storing the round trip (`audiolatency`); refused while playing.
    func measureLatency(rate: Int?) async throws -> (milliseconds: Double, frames: Int, rate: Int)
    /// Queues a take after the current entry and plays it (`playtake`).
    func playTake(id: Int64, _ playback: TakePlayback) async throws

    // MARK: Command lists

    /// Runs one command list's commands (`body`) as one unit of durability: the client hears nothing until the list
    /// ends, so the backend may commit the list's edits once, when `body` returns, instead of once per command
    /// (10,000 `add`s used to cost 10,000 fsyncs). Everything must be committed before this returns; edits made by
    /// other clients meanwhile must not wait for it. The default just runs `body`.
    func commandList<T>(_ body: () async -> T) async -> T

    /// A run of `add URI` lines of one command list, appended in order as if one by one: stops at the first URI that
    /// fails and returns how many were added before it, with that failure. One call instead of one per line, so a
    /// backend can look them all up and append them in one turn (10,000 `add`s in a list). The default adds them one
    /// by one with `editQueue`.
    func appendEach(_ uris: [String]) async -> (added: Int, failure: (any Error)?)
}

/// The default for backends that commit each edit on its own (test doubles).
extension MPDBackend {
    public var listingCache: ListingCache? { nil }

    public func ready() async {}

    public func commandList<T>(_ body: () async -> T) async -> T { await body() }

    public func appendEach(_ uris: [String]) async -> (added: Int, failure: (any Error)?) {
        for (index, uri) in uris.enumerated() {
            do {
                try await editQueue(.add(.uri(uri, recursive: true), at: .end))
            } catch {
                return (index, error)
            }
        }
        return (uris.count, nil)
    }
}
