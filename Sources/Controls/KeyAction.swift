import AudioCore
import FermataCore

/// What a button gesture, an encoder detent or a chord asks for, as written in a board profile or the user's config:
/// `play-pause`, `play`, `pause`, `stop`, `next`, `previous`, `seek+10`, `seek-10`, `volume+2`, `volume-2`, `tempo+5`,
/// `tempo-5`, `transpose+1`, `transpose-0.5` (semitones, two decimals at most), `repeat-cycle`, `loop` (first press sets A, second B, third clears), `loop-a`, `loop-b`, `loop-clear`,
/// `loop-last-8` (loop the last 8 seconds heard; again: straight on), `loop-last-2-bars` (the last 2 bars of 4 beats at
/// the track's beat), `tap-tempo`, `section-next`, `section-previous`, `section-save` (the A–B loop as the track's next
/// section), `metronome` (the click over the track on or off), `trainer` (the step trainer on the loop or section, or
/// off), `trainer-again` ("again": the pass does not count, or a step back), `announce`, `sleep-30` (the sleep timer:
/// the music fades out and stops in 30 minutes; pressed again, the timer starts over), `sleep-off`, `shutdown`,
/// `none`. A value; any thread.
public enum KeyAction: Sendable, Hashable, CustomStringConvertible {
    case togglePause, play, pause, stop, next, previous
    /// Relative seek in seconds (hold-repeat).
    case seek(seconds: Double)
    /// Relative volume in steps of the 0–100 scale.
    case volume(Int)
    /// Relative tempo in percent.
    case tempo(percent: Int)
    /// Relative transposition in cents (written in semitones: `transpose+0.5` is 50).
    case transpose(cents: Int)
    /// off → queue → track → off.
    case repeatCycle
    case loopCycle, loopSetA, loopSetB, loopClear
    /// "Again!": loop the last N seconds heard; pressed again, straight playback (`loop-last-8`).
    case loopLast(seconds: Int)
    /// "Again!" by bars (of 4 beats) at the track's beat (`loop-last-2-bars`).
    case loopLastBars(Int)
    /// One tap of the tap-tempo button.
    case tapTempo
    /// Step to the next or previous section of the track (`section-next`, `section-previous`).
    case sectionNext, sectionPrevious
    /// Save the A–B loop as a section of the track (the daemon's practice store does it).
    case sectionSave
    /// The click over the track on or off (`metronome`).
    case metronome
    /// The step trainer on (the section's plan, the last, or 70 → 100 % in 5 % steps) or off (`trainer`).
    case trainer
    /// "Again" for the step trainer (`trainer-again`).
    case trainerAgain
    /// Say what is playing.
    case announce
    /// Power the box off (a long hold; off by default).
    case shutdown
    /// Set the sleep timer to this many minutes (1–1440: `sleep-30`), or turn it off (`sleep-off`); the daemon's
    /// timers do it.
    case sleep(minutes: Int)
    case sleepOff

    public init?(parsing text: String) {
        switch text {
        case "play-pause", "toggle-pause": self = .togglePause
        case "play": self = .play
        case "pause": self = .pause
        case "stop": self = .stop
        case "next": self = .next
        case "previous", "prev": self = .previous
        case "repeat-cycle": self = .repeatCycle
        case "loop": self = .loopCycle
        case "loop-a": self = .loopSetA
        case "loop-b": self = .loopSetB
        case "loop-clear": self = .loopClear
        case "announce": self = .announce
        case "tap-tempo": self = .tapTempo
        case "section-next": self = .sectionNext
        case "section-previous", "section-prev": self = .sectionPrevious
        case "section-save": self = .sectionSave
        case "metronome": self = .metronome
        case "trainer": self = .trainer
        case "trainer-again": self = .trainerAgain
        case "shutdown": self = .shutdown
        case "sleep-off": self = .sleepOff
        default:
            // sleep-N: whole minutes, 1 to a day, digits only (no sign: "sleep-+5" is refused).
            let minutes = text.dropFirst(6)
            if text.hasPrefix("sleep-"), (1...4).contains(minutes.count), minutes.utf8.allSatisfy({ (48...57).contains($0) }),
               let value = Int(minutes), (1...1440).contains(value) {
                self = .sleep(minutes: value)
                return
            }
            if text.hasPrefix("loop-last-"), text.hasSuffix("-bars"),
               let bars = Int(text.dropFirst(10).dropLast(5)), (1...64).contains(bars), text.dropFirst(10).first != "+" {
                self = .loopLastBars(bars)
                return
            }
            // transpose+N / transpose-N: signed semitones, two decimals at most.
            if text.hasPrefix("transpose"), let sign = text.dropFirst(9).first, sign == "+" || sign == "-",
               let cents = Transposition.cents(semitones: text.dropFirst(9)), cents != 0 {
                self = .transpose(cents: cents)
                return
            }
            guard let (name, amount) = Self.signedAmount(text) else { return nil }
            switch name {
            case "seek": self = .seek(seconds: amount)
            case "volume" where amount == amount.rounded(): self = .volume(Int(amount))
            case "tempo" where amount == amount.rounded(): self = .tempo(percent: Int(amount))
            case "loop-last" where amount < 0 && amount >= -600 && amount == amount.rounded():
                self = .loopLast(seconds: Int(-amount))
            default: return nil
            }
        }
    }

    /// "seek+10" → ("seek", 10), "loop-last-8" → ("loop-last", -8): the last sign starts the amount; it is required.
    private static func signedAmount(_ text: String) -> (String, Double)? {
        guard let sign = text.lastIndex(where: { $0 == "+" || $0 == "-" }) else { return nil }
        guard let value = Double(text[sign...]), value != 0, value.isFinite else { return nil }
        return (String(text[..<sign]), value)
    }

    public var description: String {
        switch self {
        case .togglePause: "play-pause"
        case .play: "play"
        case .pause: "pause"
        case .stop: "stop"
        case .next: "next"
        case .previous: "previous"
        case let .seek(s): "seek" + Self.signed(s == s.rounded() ? "\(Int(s))" : "\(s)", negative: s < 0)
        case let .volume(v): "volume" + Self.signed("\(v)", negative: v < 0)
        case let .tempo(p): "tempo" + Self.signed("\(p)", negative: p < 0)
        case let .transpose(cents): "transpose" + Transposition.semitonesText(cents: cents)
        case .repeatCycle: "repeat-cycle"
        case .loopCycle: "loop"
        case .loopSetA: "loop-a"
        case .loopSetB: "loop-b"
        case .loopClear: "loop-clear"
        case let .loopLast(seconds): "loop-last-\(seconds)"
        case let .loopLastBars(bars): "loop-last-\(bars)-bars"
        case .tapTempo: "tap-tempo"
        case .sectionNext: "section-next"
        case .sectionPrevious: "section-previous"
        case .sectionSave: "section-save"
        case .metronome: "metronome"
        case .trainer: "trainer"
        case .trainerAgain: "trainer-again"
        case .announce: "announce"
        case .shutdown: "shutdown"
        case let .sleep(minutes): "sleep-\(minutes)"
        case .sleepOff: "sleep-off"
        }
    }

    private static func signed(_ digits: String, negative: Bool) -> String { negative ? digits : "+" + digits }

    /// Whether `times` of this action can be sent as one bigger step (an accelerated encoder detent).
    public var scales: Bool {
        switch self {
        case .seek, .volume, .tempo, .transpose: true
        default: false
        }
    }

    /// The same action `times` as big (for scalable actions; others are unchanged).
    public func scaled(by times: Int) -> KeyAction {
        switch self {
        case let .seek(s): .seek(seconds: s * Double(times))
        case let .volume(v): .volume(v * times)
        case let .tempo(p): .tempo(percent: p * times)
        case let .transpose(cents): .transpose(cents: max(-2_500, min(2_500, cents * times)))
        default: self
        }
    }

    /// The player action, given the player's current repeat mode; nil for the actions that are not the player's
    /// (shutdown: the machine's; section-save: the practice store's; sleep: the timers'), which go to the service's
    /// `extraActions` handler instead.
    public func controlAction(currentRepeat: RepeatMode, at time: UInt64 = MonotonicClock.nanoseconds()) -> ControlAction? {
        switch self {
        case .togglePause: .playPause
        case .play: .play
        case .pause: .pause
        case .stop: .stop
        case .next: .next
        case .previous: .previous
        case let .seek(s): .seekBy(seconds: s)
        case let .volume(v): .changeVolume(by: v)
        case .repeatCycle: .setRepeat(Self.cycle(after: currentRepeat))
        case .loopCycle: .loopCycle
        case .loopSetA: .loopSetA
        case .loopSetB: .loopSetB
        case .loopClear: .loopClear
        case let .loopLast(seconds): .loopLast(seconds: Double(seconds))
        case let .loopLastBars(bars): .loopLastBars(bars, beatsPerBar: 4)
        case .tapTempo: .tapTempo(atNanoseconds: time)
        case .sectionNext: .playSection(.next)
        case .sectionPrevious: .playSection(.previous)
        case .metronome: .toggleMetronome
        case .trainer: .toggleTrainer
        case .trainerAgain: .trainerAgain
        case let .tempo(p): .changeTempo(by: p)
        case let .transpose(cents): .changeTranspose(by: cents)
        case .announce: .announce(nil)
        case .shutdown, .sectionSave, .sleep, .sleepOff: nil
        }
    }

    /// Whether `controlAction` needs the player's repeat mode (read with `status()` first).
    public var needsStatus: Bool { self == .repeatCycle }

    static func cycle(after mode: RepeatMode) -> RepeatMode {
        switch mode {
        case .off: .queue
        case .queue: .track
        case .track: .off
        }
    }
}
