/// Everything a front end (protocol handler, button, CLI) can ask the player to do.
public enum ControlAction: Sendable, Hashable {
    case play
    case playEntry(EntryID)
    case pause
    case resume
    case togglePause
    /// The PLAY button (and the encoder's push): starts a stopped queue at the current entry, or the first; otherwise
    /// toggles pause. The protocol's `pause` is `togglePause`, which leaves a stopped player stopped, as MPD does.
    case playPause
    case stop
    case next
    /// The PREVIOUS button: back to the start of the entry when more than 3 s of it were heard, else the entry before.
    case previous
    /// MPD's `previous`: always the entry before (MPD has no restart rule).
    case previousEntry
    /// MPD's `next` (`forward`) and `previous` in one step: refused when stopped (`Not playing`); the entry skipped to
    /// plays, also when the player was paused (MPD's `PlayOrder` starts it; the buttons' `next` keeps a pause);
    /// past the end the player stops.
    case skipPlaying(forward: Bool)
    /// Seek within the current track to an absolute time in seconds.
    case seek(seconds: Double)
    /// Seek relative to the heard position (hold-repeat buttons).
    case seekBy(seconds: Double)
    /// Seek to a time in an entry, starting that entry first when another is playing (MPD `seek`, `seekid`): one
    /// action, so nothing comes between the start and the seek.
    case seekEntry(EntryID, seconds: Double)
    case setVolume(Int)
    case changeVolume(by: Int)
    case setRepeat(RepeatMode)
    case setSingle(Bool)
    case setReplayGain(ReplayGainMode)
    /// Set A at the heard position.
    case loopSetA
    /// Set B at the heard position (A must be set and earlier).
    case loopSetB
    /// The one-button cycle: first press sets A, second sets B, a third clears.
    case loopCycle
    case loopClear
    /// "Again!": loops the last `seconds` of what was heard (at the tempo in force: at 80 % that is 0.8 × `seconds`
    /// of the track), ending where it is now; when a loop is already set, clears it (straight playback again).
    case loopLast(seconds: Double)
    /// "Again!" by bars: loops the last `bars` bars of `beatsPerBar` beats at the track's beat (the listener's, tapped
    /// or set, else the file's BPM tag; refused when neither is known), at the tempo in force; with a loop set, clears it.
    case loopLastBars(Int, beatsPerBar: Int)
    /// A tap of the tap-tempo button at `atNanoseconds` (CLOCK_MONOTONIC: the button's kernel timestamp): from the
    /// second tap on, the current track's beat (`TapTempo`).
    case tapTempo(atNanoseconds: UInt64)
    /// Sets the current track's beat (`TrackBeat`: 20–400 BPM, its first beat 0–60 s into the track), or with nil
    /// forgets it (the file's BPM tag counts again, first beat at 0).
    case setBeat(TrackBeat?)
    /// Turns the click over the track on (with its plan) or off (nil).
    case metronome(MetronomePlan?)
    /// The click's button: off when on; on when off, as it was last set (else 4 beats at full level).
    case toggleMetronome
    /// Plays a section of the current track: its region becomes the loop (with its passes), its tempo applies, and
    /// playback goes to its start, all in one step.
    case playSection(SectionChoice)
    /// The current track's sections as its practice memory keeps them (the practice recorder, on entering the track
    /// and after every edit). Applied when `entry` is current.
    case setSections(entry: EntryID, [PracticeSection])
    /// Moves one end of the loop by a signed number of milliseconds.
    case loopNudge(LoopEndpoint, milliseconds: Int)
    /// Sets the region directly, in seconds of the current track; `repeatCount` limits the jumps back (nil: for ever).
    case setLoop(startSeconds: Double, endSeconds: Double, repeatCount: Int? = nil)
    /// Playback speed without pitch change, in percent (50–150, rounded to steps of 5; 100 is untouched audio).
    case setTempo(percent: Int)
    /// Changes the speed by a signed number of percent (buttons: ±5), clamped to 50–150.
    case changeTempo(by: Int)
    /// Transposition in cents, independent of the tempo (`Transposition.range`: ±12 semitones in half-semitone steps
    /// plus a ±50-cent fine tune; 0 with tempo 100 % is untouched audio).
    case setTranspose(cents: Int)
    /// Changes the transposition by a signed number of cents (buttons: ±50, a half semitone), clamped to the range.
    case changeTranspose(by: Int)
    /// Starts the step trainer on the A–B loop, or ends it (nil; the tempo stays where it got to).
    case speedTrainer(SpeedTrainerPlan?)
    /// "Again" while the step trainer runs: the pass heard does not count; with a plan that falls back, the next pass
    /// is a step slower. Refused with no trainer running.
    case trainerAgain
    /// The `trainer` key: ends the trainer when it runs; else starts the section's plan (the section playing), or the
    /// last plan used, or else the configured one.
    case toggleTrainer
    /// Count-in clicks before playback starts (and before each loop pass if asked); nil or 0 beats: none.
    case countIn(CountInPlan?)
    /// Speaks `text`, or with nil what is playing (title, artist, loop and speed), as `setAnnouncements` says.
    case announce(String?)
    /// How announcements sound: over the music, ducked (`duck`), or before it; and whether each new track is announced.
    case setAnnouncements(duck: Bool, onTrackChange: Bool)
    /// A track's practice memory, applied on entering it (the practice recorder): its tempo, and its loop when it has
    /// one. Refused when `entry` is no longer current, or when a command changed the tempo or the loop since that
    /// entry started: the listener's own change wins over a memory that arrives after it.
    case practiceMemory(entry: EntryID, tempoPercent: Int, loop: PracticeLoop?, transposeCents: Int, beat: TrackBeat?)
}

/// Transposition's limits and its spoken and written forms.
public enum Transposition {
    /// ±12 semitones and a ±50-cent fine tune, in cents.
    public static let range = -1250...1250

    /// Semitones as a decimal ("-2", "+7", "3.5", "0.15"): what `transpose` answers and accepts.
    public static func semitonesText(cents: Int) -> String {
        let sign = cents < 0 ? "-" : (cents > 0 ? "+" : "")
        let magnitude = cents.magnitude
        let whole = magnitude / 100, fraction = magnitude % 100
        guard fraction != 0 else { return sign + String(whole) }
        let digits = fraction % 10 == 0 ? String(fraction / 10) : (fraction < 10 ? "0" : "") + String(fraction)
        return sign + String(whole) + "." + digits
    }

    /// Cents from semitones written as a decimal with at most two decimals ("-2", "+7", "3.5", "0.15"), parsed
    /// digit by digit (no floating point); nil for anything else, and for more than `limit` cents either way.
    public static func cents(semitones text: some StringProtocol, limit: Int = range.upperBound) -> Int? {
        var rest = Substring(text)
        let negative = rest.first == "-"
        if rest.first == "-" || rest.first == "+" { rest = rest.dropFirst() }
        let parts = rest.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.count <= 3, whole.allSatisfy({ $0.isASCII && $0.isNumber }),
              let units = Int(whole) else { return nil }
        var fraction = 0
        if parts.count == 2 {
            let digits = parts[1]
            guard (1...2).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(digits) else {
                return nil
            }
            fraction = digits.count == 1 ? value * 10 : value
        }
        let cents = units * 100 + fraction
        guard cents <= limit else { return nil }
        return negative ? -cents : cents
    }
}

/// The answer to a `practiceMemory` that came too late: the listener changed the tempo or the loop on the track first,
/// or the track is no longer current. Nothing was applied.
public struct PracticeMemorySuperseded: Error, CustomStringConvertible {
    public init() {}
    public var description: String { "the tempo or the loop was changed since the track started" }
}

/// A loop as a track's practice memory keeps it: seconds of the track, and how many passes (nil: for ever).
public struct PracticeLoop: Sendable, Hashable {
    public var startSeconds: Double
    public var endSeconds: Double
    public var repeatCount: Int?

    public init(startSeconds: Double, endSeconds: Double, repeatCount: Int?) {
        self.startSeconds = startSeconds
        self.endSeconds = endSeconds
        self.repeatCount = repeatCount
    }
}

/// A count-in: `beats` clicks (beat one accented) at the track's tempo: `bpm` when given, else the file's BPM tag,
/// else `fallbackBPM`; multiplied by the playback speed. `beforeEachPass`: also before every A–B loop pass.
public struct CountInPlan: Sendable, Hashable {
    public var beats: Int
    public var bpm: Double?
    public var fallbackBPM: Double
    public var beforeEachPass: Bool

    public init(beats: Int, bpm: Double? = nil, fallbackBPM: Double = 100, beforeEachPass: Bool = false) {
        self.beats = beats
        self.bpm = bpm
        self.fallbackBPM = fallbackBPM
        self.beforeEachPass = beforeEachPass
    }

    /// The tempos a count-in may have, given or tagged (a file's BPM tag outside it is ignored).
    public static let bpmRange: ClosedRange<Double> = 20...400

    /// Nil when usable: 1–16 beats, 20–400 BPM (so never NaN or infinite).
    public var problem: String? {
        guard (1...16).contains(beats) else { return "count-in beats must be 1-16" }
        guard Self.bpmRange.contains(bpm ?? fallbackBPM), Self.bpmRange.contains(fallbackBPM) else {
            return "count-in tempo must be 20-400 BPM"
        }
        return nil
    }
}

/// The step trainer: start at `startPercent`, add `stepPercent` every `everyPasses` loop passes, up to
/// `ceilingPercent` (the target); with `fallsBack`, "again" (`trainerAgain`) takes the next pass a step back down.
/// A value; any thread.
public struct SpeedTrainerPlan: Sendable, Hashable {
    public var startPercent: Int
    public var stepPercent: Int
    public var everyPasses: Int
    public var ceilingPercent: Int
    /// "Again" falls back a step (else it only starts the step's passes over).
    public var fallsBack: Bool

    public init(startPercent: Int, stepPercent: Int, everyPasses: Int, ceilingPercent: Int, fallsBack: Bool = false) {
        self.startPercent = startPercent
        self.stepPercent = stepPercent
        self.everyPasses = everyPasses
        self.ceilingPercent = ceilingPercent
        self.fallsBack = fallsBack
    }

    /// What the `trainer` key starts with no plan of a section's and none used before: 70 % to 100 % in 5 % steps,
    /// two passes each, a step back on "again".
    public static let standard = SpeedTrainerPlan(startPercent: 70, stepPercent: 5, everyPasses: 2, ceilingPercent: 100,
                                                  fallsBack: true)

    /// The most passes a step may ask for.
    public static let maxPassesPerStep = 1000

    /// The tempo after `steps` steps up (at most the target), in percent.
    public func tempoPercent(afterSteps steps: Int) -> Int {
        min(ceilingPercent, startPercent + min(steps, 200) * stepPercent)
    }

    /// The steps from the start to the target.
    public var steps: Int { stepPercent > 0 ? (ceilingPercent - startPercent + stepPercent - 1) / stepPercent : 0 }

    /// Its words on the protocol and in the CLI: `70 5 2 100` (`fallback` after them when it falls back).
    public var words: String {
        "\(startPercent) \(stepPercent) \(everyPasses) \(ceilingPercent)" + (fallsBack ? " fallback" : "")
    }

    /// Nil when the plan is out of range (tempos 50–150, step 1–50, ceiling not below the start, passes ≥ 1).
    public var problem: String? {
        guard (50...150).contains(startPercent), (50...150).contains(ceilingPercent) else { return "tempos must be 50-150 %" }
        guard ceilingPercent >= startPercent else { return "the ceiling must not be below the start" }
        guard (1...50).contains(stepPercent), (1...Self.maxPassesPerStep).contains(everyPasses) else {
            return "step 1-50 %, every 1 to \(Self.maxPassesPerStep) passes"
        }
        return nil
    }
}

/// A snapshot of the player for status displays, the protocol and tests.
public struct PlayerStatus: Sendable, Hashable {
    public var state: PlayState = .stopped
    public var entryID: EntryID?
    public var path: String?
    /// Position as heard (the output buffer's delay accounted for), in seconds.
    public var elapsed: Double = 0
    /// The same, in source frames of the current track.
    public var elapsedFrames: Int64 = 0
    public var duration: Double?
    public var sourceSampleRate: Int = 0
    public var volume: Int = 100
    public var repeatMode: RepeatMode = .off
    public var single = false
    /// Single is MPD's `oneshot`: it switches itself off when it has stopped playback once.
    public var singleOneshot = false
    public var loop: LoopRegion?
    /// A pending A point while the one-button loop cycle waits for B.
    public var loopPendingA: Int64?
    /// The loop pass heard now, from 1, while a loop is set on the entry heard.
    public var loopPass: Int?
    public var replayGain: ReplayGainMode = .off
    /// Playback speed in percent (100: normal, bit-exact; other values are time-stretched without pitch change).
    public var tempoPercent = 100
    /// Transposition in cents (0: none; `Transposition.range`), independent of the tempo.
    public var transposeCents = 0
    /// The part of its file the current entry plays (a range or a queued section), nil: all of it.
    public var span: PlaySpan?
    /// The current track's beat as the listener tapped or set it, or nil (the file's BPM tag counts).
    public var beat: TrackBeat?
    /// The click over the track, when on.
    public var metronome: MetronomePlan?
    /// The count-in before play starts (nil: none).
    public var countIn: CountInPlan?
    /// The step trainer running, if any (its tempo now is `tempoPercent`).
    public var trainer: SpeedTrainerPlan?
    /// The tempo of the last loop pass heard to its end on the current entry's loop (or queued section): what the
    /// practice statistics count as the tempo reached on it. Nil until a pass ends, and again when the loop changes.
    public var lastPassTempoPercent: Int?
    /// The current track's sections (its practice memory), and the one whose region is the loop now.
    public var sections: [PracticeSection] = []
    public var activeSection: Int?
    /// The device format, e.g. "44100 Hz 16-bit 2ch", when the device is open.
    public var outputFormat: String?
    /// The last problem worth showing (a file that would not play, a missing device), or nil.
    public var lastError: String?
    /// What a network stream playing now says of itself (its station and the title now), nil for a file.
    public var stream: StreamTags?

    public init() {}
}

/// What a network stream says of itself as it plays: the station's name (ICY `icy-name`) and the title now (ICY
/// `StreamTitle`, or an Ogg link's comments). Cleaned of control characters and bounded by the stream reader.
public struct StreamTags: Sendable, Hashable {
    public var name: String?
    public var title: String?

    public init(name: String? = nil, title: String? = nil) {
        self.name = name
        self.title = title
    }
}

/// The one way to drive a player: the MPD handlers, the GPIO keymap, the CLI and the daemon all call only this.
/// Implementations are actors or otherwise thread-safe; callers may be on any task.
public protocol PlayerControl: Sendable {
    func perform(_ action: ControlAction) async throws
    func status() async -> PlayerStatus
}

extension ControlAction {
    /// The longest text `announce` speaks: a bar number or a short phrase is what a musician needs, and eSpeak takes
    /// time and memory in proportion (8 KB of text is minutes of audio and, on a Pi, seconds of synthesis).
    public static let maxAnnouncementCharacters = 300
}
