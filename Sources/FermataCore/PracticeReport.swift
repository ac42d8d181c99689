/// Which practice statistics to report: today, this ISO week (Monday to Sunday), a given day or the week holding it.
/// Days are local calendar days written `YYYY-MM-DD`.
public enum PracticePeriod: Sendable, Hashable {
    case today
    case thisWeek
    case day(String)
    case week(containing: String)

    /// The protocol's name for the period (`period:` line).
    public var name: String {
        switch self {
        case .today: "today"
        case .thisWeek: "week"
        case let .day(day): day
        case let .week(day): "week " + day
        }
    }
}

/// Time actually played (wall clock while the player was playing) in one period: the total, then each track with
/// its loop regions, most practised first. A value type; safe to pass anywhere.
public struct PracticeReport: Sendable, Hashable {
    /// The period as asked (`today`, `week`, a day, `week DAY`).
    public var period: String
    /// First and last local day of the period, `YYYY-MM-DD`, inclusive.
    public var firstDay: String
    public var lastDay: String
    public var totalSeconds: Double
    public var tracks: [PracticeTrackTime]

    public init(period: String, firstDay: String, lastDay: String, totalSeconds: Double = 0,
                tracks: [PracticeTrackTime] = []) {
        self.period = period
        self.firstDay = firstDay
        self.lastDay = lastDay
        self.totalSeconds = totalSeconds
        self.tracks = tracks
    }
}

/// One track's practice time (loops included) and the part spent in each loop region.
public struct PracticeTrackTime: Sendable, Hashable {
    /// The track's path now (it follows moves and renames of library tracks).
    public var file: String
    public var title: String?
    public var artist: String?
    public var seconds: Double
    /// Most practised first.
    public var loops: [PracticeLoopTime]

    public init(file: String, title: String? = nil, artist: String? = nil, seconds: Double,
                loops: [PracticeLoopTime] = []) {
        self.file = file
        self.title = title
        self.artist = artist
        self.seconds = seconds
        self.loops = loops
    }
}

/// Time spent inside one A–B loop region (ends in seconds of the track, to the millisecond).
public struct PracticeLoopTime: Sendable, Hashable {
    public var startSeconds: Double
    public var endSeconds: Double
    public var seconds: Double
    /// The track's section with these ends, if it has one (its name).
    public var section: String?
    /// The tempo reached in this region on each day of the period that has one, oldest first.
    public var tempoReached: [PracticeTempoDay]

    public init(startSeconds: Double, endSeconds: Double, seconds: Double, section: String? = nil,
                tempoReached: [PracticeTempoDay] = []) {
        self.startSeconds = startSeconds
        self.endSeconds = endSeconds
        self.seconds = seconds
        self.section = section
        self.tempoReached = tempoReached
    }
}

/// The tempo reached in a loop region on one local day: the tempo of its fastest pass heard to the end that day.
public struct PracticeTempoDay: Sendable, Hashable {
    public var day: String
    public var percent: Int

    public init(day: String, percent: Int) {
        self.day = day
        self.percent = percent
    }
}
