import FermataCore

/// What the engine tells the player, in order, through `PlaybackEngine.events`.
public enum EngineEvent: Sendable, Equatable {
    /// The decoder began reading this entry; the player should say what follows it (`setUpcoming`).
    case decodingStarted(EntryID)
    /// The first frame of this entry reached the device.
    case trackAudible(EntryID)
    /// The entry could not be played (typed decoder error as text); the player should say what follows it.
    case trackFailed(EntryID, String)
    /// The last frame of the stream was played; the device is closed.
    case ended
    /// The device went away (or was absent); the engine retries and resumes at the same position.
    case deviceLost
    case deviceRestored
    /// The device ran dry and was recovered in place.
    case underrun
}

/// A request to the decoder thread.
enum DecoderCommand: Sendable {
    case start(PlayableItem, frame: Int64, generation: Int)
    case setUpcoming(after: EntryID, PlayableItem?)
    case setLoop(entry: EntryID, LoopRegion?)
    case stop
}
