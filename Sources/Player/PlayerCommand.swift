import AudioCore
import Decoders
import Engine
import FermataCore

/// What can change the player's state: a listener's action, a queue edit, a restore, or an engine event — each one
/// `PlayerState.reduce` step. Everything a step needs from outside (a file's rate, rendered speech, the position
/// heard) is in the command or the step's `heard` argument: read before the step, never awaited inside it.
enum PlayerCommand {
    /// An action; `read`: what it needs from the current entry's file, read by the driver before the step.
    case action(ControlAction, read: FileFacts = FileFacts())
    /// `seekid`/`seekcur` into another entry, with that entry's source rate read from its file (nil: unreadable).
    case seekEntry(EntryID, seconds: Double, rate: Int?)
    /// `spans`: the part of its file each plays (empty: all of each).
    case insert(uris: [String], replayGain: [ReplayGainInfo], spans: [PlaySpan?] = [], at: Int?)
    /// MPD `rangeid`: the part of its file an entry plays (nil: all of it).
    case setSpan(EntryID, PlaySpan?)
    case remove(Set<EntryID>)
    case move(Range<Int>, to: Int)
    case swap(Int, Int)
    case clear
    case shuffle(Range<Int>?)
    case setShuffled(Bool)
    case singleOneshot
    case consume(ConsumeMode)
    case priority(UInt8, [Range<Int>])
    case volumeCeiling(Int)
    case volumeFloor(Int)
    case setLoop(entry: EntryID, LoopRegion)
    case speedTrainer(SpeedTrainerPlan?)
    case clearError
    /// Puts back a saved state; `idleRate`: the current entry's rate when it has a loop and the snapshot had none.
    case restore(PlayerSnapshot, entries: [QueueEntry], policy: ResumePolicy, idleRate: Int?)
    case resumeSaved(PlayerSnapshot, policy: ResumePolicy)
    case restoreQueue(entries: [QueueEntry], version: Int, nextID: EntryID, shuffledOrder: [EntryID]?)
    /// The source rate of start `generation`'s entry, read from its file.
    case rateResolved(generation: Int, rate: Int)
    /// The source rate of a current entry not started (stopped or paused before any of it was decoded).
    case idleRateResolved(EntryID, rate: Int)
    /// The periodic position write while playing.
    case checkpoint
    // Engine events.
    /// The decoder began `entry`; `announcement`: the words for the entry expected next, rendered before the step.
    case decodingStarted(EntryID, announcement: (entry: EntryID, speech: Speech)?)
    case trackFailed(EntryID, reason: String)
    case trackAudible(EntryID, generation: Int)
    case ended
    /// The step trainer set pass `pass` of `entry` to `tempo` (ahead of the listener).
    case tempoChanged(Double, entry: EntryID, pass: Int)
    /// Pass `pass` of `entry`'s loop is heard from now on.
    case passHeard(EntryID, pass: Int)
    /// A network stream's name or title changed (nil: unchanged).
    case streamTags(EntryID, name: String?, title: String?)
}

/// One order to the engine, as `PlaybackEngine`'s methods take it. Starts are numbered by the state (the transport's
/// last generation plus one), so the reducer knows the generation it asked for without asking the engine.
enum EngineOrder: Equatable {
    case start(PlayableItem, frame: Int64, countIn: CountInPlan?, generation: Int)
    case stop
    case setPaused(Bool)
    case setUpcoming(after: EntryID, PlayableItem?)
    case setLoop(entry: EntryID, LoopRegion?)
    case setGain(Double)
    case setPassCountIn(CountInPlan?)
    case setTempo(Double)
    case setPitch(semitones: Double)
    case setMetronome(MetronomeSetting?)
    case setTrainer(SpeedTrainerPlan?)
    case trainerAgain
    case prepareTrackAnnouncement(EntryID, Speech, duck: Bool)
}

/// What one step asks of the world, in the order the driver carries it out: the engine orders (in the same actor
/// turn as the state change), then the one save (awaited before the command's answer), then the notifications.
struct PlayerEffects: Equatable {
    /// A durable write of the state after the step; `queue` when the queue changed too.
    enum Save: Equatable {
        case state(PlayerSnapshot)
        case stateAndQueue(PlayerSnapshot, PlayQueue)
    }

    var engine: [EngineOrder] = []
    var save: Save?
    /// For MPD `idle` and displays, each once, in the order they happened.
    var changes: [PlayerChange] = []
    /// The position write of a checkpoint step (entry, frame, rate).
    var checkpoint: CheckpointWrite?
    /// A start whose entry's rate is unknown: the driver reads it from the file (off the actor), then sends
    /// `rateResolved`.
    var resolveRateOf: RequestedStart?
    /// Lines for the log.
    var warnings: [String] = []
    /// The ids an insert gave its new entries (the command's answer).
    var added: [EntryID] = []

    mutating func order(_ order: EngineOrder) { engine.append(order) }

    mutating func changed(_ change: PlayerChange) {
        if !changes.contains(change) { changes.append(change) }
    }
}

/// The position a checkpoint writes.
struct CheckpointWrite: Equatable {
    var entry: EntryID
    var frame: Int64
    var sampleRate: Int
}

/// What an action needs from the current entry's file, read off the actor before its step (the step checks it still
/// applies: the facts are about the entry current when they were read).
struct FileFacts: Sendable {
    /// The entry whose file was read (the facts count only while it is current).
    var entry: EntryID?
    /// The file's BPM tag ("Again!" by bars when the listener set no beat).
    var taggedBPM: Double?
    /// The file's source rate (a section played from a stopped player: its ends become frames at it).
    var rate: Int?
    /// The track's sections from its practice memory, when the player was not given them (a stopped box after `clear`
    /// and `add`: no entry was current for the practice recorder to give them to).
    var sections: [PracticeSection]?
}

/// A step's bookkeeping while it runs: what to save and what was changed, turned into `PlayerEffects.save` at its end
/// (one save per step, of the state the step ends in).
struct PendingSave {
    var wanted = false
    var queueChanged = false
    /// Write only when the state to save differs from the state before the step: an action that changes nothing (a
    /// pause while paused, a tap that does not yet give a tempo) writes nothing.
    var onlyIfChanged = false

    mutating func state() { wanted = true }

    /// A save the step's own changes may make unnecessary (see `onlyIfChanged`); another `state()` does not lift it.
    mutating func stateIfChanged() {
        wanted = true
        onlyIfChanged = true
    }

    mutating func queue() {
        wanted = true
        queueChanged = true
    }
}
