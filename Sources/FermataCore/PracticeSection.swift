/// A named region of a track to practise ("intro", "solo", "bars 17-32"): its ends in milliseconds of the track, how
/// many passes it plays (then playback goes on past its end; nil: it loops for ever) and the tempo it is practised at
/// (nil: whatever is set). A track's sections live in its practice memory (keyed by the track's identity, so they
/// follow the file through moves and rescans); the player holds the current track's for stepping through them.
///
/// A value; any thread.
public struct PracticeSection: Sendable, Hashable {
    public var name: String
    public var startMilliseconds: Int64
    public var endMilliseconds: Int64
    /// Passes (1 to 1000: "four times" is 4), nil: for ever.
    public var passes: Int?
    /// 50–150 %, nil: the tempo in force.
    public var tempoPercent: Int?
    /// The step trainer this section climbs with when played (nil: none; it then plays at `tempoPercent`).
    public var trainer: SpeedTrainerPlan?

    public init(name: String, startMilliseconds: Int64, endMilliseconds: Int64, passes: Int? = nil,
                tempoPercent: Int? = nil, trainer: SpeedTrainerPlan? = nil) {
        self.trainer = trainer
        self.name = name
        self.startMilliseconds = startMilliseconds
        self.endMilliseconds = endMilliseconds
        self.passes = passes
        self.tempoPercent = tempoPercent
    }

    /// Sections one track may have.
    public static let maxPerTrack = 64
    /// The longest name, in characters.
    public static let maxNameLength = 64
    /// The latest end: 24 hours of track.
    public static let maxMilliseconds: Int64 = 86_400_000

    /// Nil when usable: a printable name of 1–64 characters, 0 ≤ start < end ≤ 24 h, 1–1000 passes, 50–150 %.
    public var problem: String? {
        if let problem = Self.nameProblem(name) { return problem }
        guard startMilliseconds >= 0, endMilliseconds > startMilliseconds, endMilliseconds <= Self.maxMilliseconds else {
            return "a section runs from 0 or later to a later end, within 24 hours"
        }
        if let passes, !(1...1000).contains(passes) { return "a section plays 1 to 1000 times" }
        if let tempoPercent, !(50...150).contains(tempoPercent) { return "a section's tempo is 50-150 %" }
        if let problem = trainer?.problem { return "a section's trainer: " + problem }
        return nil
    }

    /// Nil when `name` can name a section (and a queued section's `PlaySpan`): 1–64 characters, none a control.
    public static func nameProblem(_ name: String) -> String? {
        guard !name.isEmpty, name.count <= maxNameLength,
              !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            return "a section name is 1 to \(maxNameLength) printable characters"
        }
        return nil
    }

    /// A section with its ends given in seconds (the protocol's and the CLI's), rounded to the millisecond; nil when
    /// either is not finite or past 24 hours (no conversion can trap). `problem` checks the rest.
    public init?(name: String, startSeconds: Double, endSeconds: Double, passes: Int?, tempoPercent: Int?) {
        let limit = Double(Self.maxMilliseconds) / 1000
        guard startSeconds.isFinite, endSeconds.isFinite, abs(startSeconds) <= limit, abs(endSeconds) <= limit else {
            return nil
        }
        self.init(name: name, startMilliseconds: Int64((startSeconds * 1000).rounded()),
                  endMilliseconds: Int64((endSeconds * 1000).rounded()), passes: passes, tempoPercent: tempoPercent)
    }

    /// Whether this section's ends are `loop`'s, to the millisecond the frame rounding may move them.
    public func matches(startMilliseconds start: Int64, endMilliseconds end: Int64) -> Bool {
        abs(start - startMilliseconds) <= 1 && abs(end - endMilliseconds) <= 1
    }
}

/// A change to the current track's sections (`fermata section`, the protocol's `section_*`, a `section-save` button).
public enum SectionEdit: Sendable, Hashable {
    /// The A–B loop set now, its passes and the tempo in force, as a new section (nil name: "section N"); a section
    /// with the same name is replaced.
    case saveLoop(name: String?)
    /// A section given in full; one with the same name is replaced.
    case add(PracticeSection)
    /// Removes the section at this position (from 0).
    case delete(Int)
    /// Puts this section in the place of the one at this position (from 0): a rename or an edit that keeps its place.
    case replace(Int, PracticeSection)
}

/// Which section `playSection` goes to.
public enum SectionChoice: Sendable, Hashable {
    /// The one after the section playing (after the last, the first: a set list of sections cycles); with none
    /// playing, the first that starts after the heard position (or the first).
    case next
    /// The one before the section playing (before the first, the last); with none playing, the last that starts
    /// before the heard position (or the last).
    case previous
    /// By position, from 0 in the track's list.
    case index(Int)
    case named(String)
}
