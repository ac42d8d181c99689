import FermataCore

/// What the engine tells the player, in order, through `PlaybackEngine.events`.
public enum EngineEvent: Sendable, Equatable {
    /// The decoder began reading this entry; the player should say what follows it (`setUpcoming`).
    case decodingStarted(EntryID)
    /// The first frame of this entry reached the device; `generation` is the `start` it belongs to.
    case trackAudible(EntryID, generation: Int)
    /// A loop seam of this entry was heard: pass `pass` (from 1) begins.
    case passHeard(EntryID, pass: Int)
    /// The entry could not be played (typed decoder error as text); the player should say what follows it.
    case trackFailed(EntryID, String)
    /// The last frame of the stream was played; the device is closed.
    case ended
    /// The device went away (or was absent); the engine retries and resumes at the same position. `reason`: what
    /// failed and the system's word for why ("opening the device: No such file or directory (error 2)").
    case deviceLost(reason: String)
    case deviceRestored
    /// The device ran dry and was recovered in place.
    case underrun
    /// The step trainer changed the tempo at a loop seam of `entry`: pass `pass` (from 1) plays at `tempo` (1 =
    /// normal). Sent when the decoder makes the seam, ahead of the listener: the pass is heard at its `passHeard`.
    case tempoChanged(Double, entry: EntryID, pass: Int)
    /// A network stream's station name (ICY `icy-name`), as received.
    case streamName(EntryID, String)
    /// A network stream's title now (ICY `StreamTitle`, or an Ogg link's comments), as received.
    case streamTitle(EntryID, String)
    /// Something about a network stream worth a log line: a reconnect, a buffer that ran dry.
    case streamNotice(EntryID, String)
}

/// A request to the decoder thread.
enum DecoderCommand: Sendable {
    case start(PlayableItem, frame: Int64, generation: Int, countIn: CountInPlan?)
    case setUpcoming(after: EntryID, PlayableItem?)
    case setLoop(entry: EntryID, LoopRegion?)
    case setTempo(Double)
    /// Transposition in semitones.
    case setPitch(Double)
    case setMetronome(MetronomeSetting?)
    /// A take mixed over its original's passes (nil: none).
    case setTakeMix(TakeMix?)
    case setTrainer(SpeedTrainerPlan?)
    /// "Again" for the step trainer (`StepTrainer.again`).
    case trainerAgain
    case setPassCountIn(CountInPlan?)
    case announce(Speech, duck: Bool)
    case trackAnnouncement(EntryID, Speech, duck: Bool)
    case stop
}
