/// Everything about the player that must survive a power cut, except the queue's entries.
public struct PlayerSnapshot: Sendable, Equatable {
    public enum Transport: String, Sendable {
        case playing
        case paused
        /// Stopped on purpose by the user: stays stopped after a restart.
        case stopped
    }

    public var transport: Transport = .stopped
    public var currentEntry: EntryID?
    public var positionFrames: Int64 = 0
    public var sampleRate: Int = 0
    public var volume = 100
    /// Playback speed in percent (50–150; 100 untouched).
    public var tempoPercent = 100
    /// Transposition in cents (`Transposition.range`; 0 untouched).
    public var transposeCents = 0
    /// The current entry's beat as the listener tapped or set it (nil: its file's BPM tag).
    public var beat: TrackBeat?
    /// The click over the track, when on.
    public var metronome: MetronomePlan?
    public var repeatMode = RepeatMode.off
    public var single = false
    public var consume = false
    public var replayGain = ReplayGainMode.off
    public var loop: EntryLoop?
    public var queueVersion = 1
    public var nextEntryID: EntryID = 1

    public init() {}
}

/// Where the player writes what must survive a power cut. Implemented by the daemon over SQLite.
/// Calls come from the player actor, one at a time; the state is durable when `save` returns.
/// Implementations never throw to the player: a full or read-only disk is their problem to log and retry.
public protocol PlayerPersistence: Sendable {
    /// Writes the state durably; `queue`: the whole queue when it changed (the store writes only what differs from
    /// what it wrote last). `writeNumber`: the player's count of durable writes, this one included (it orders this
    /// write against `checkpoint`s on their way to the store).
    func save(_ snapshot: PlayerSnapshot, queue: PlayQueue?, writeNumber: Int) async
    /// The cheap, frequent write while playing: position only. `writeNumber`: the player's count of durable writes
    /// when it read the position. A checkpoint and a save travel to the store from different tasks, in no
    /// guaranteed order; a checkpoint read before a save that has already arrived (`writeNumber` below the
    /// save's) is stale and must be dropped — a stop's state lost to the last position read while playing.
    func checkpoint(entry: EntryID, frame: Int64, sampleRate: Int, writeNumber: Int) async
}

/// An A–B loop and the entry it belongs to.
public struct EntryLoop: Sendable, Hashable {
    public var entry: EntryID
    public var region: LoopRegion

    public init(entry: EntryID, region: LoopRegion) {
        self.entry = entry
        self.region = region
    }
}
