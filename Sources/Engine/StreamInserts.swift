import AudioCore
import FermataCore
import Glibc

/// Audio inserted before the music while the position holds still: a count-in (`beats` clicks `interval` device
/// frames apart, beat one accented) or spoken words (mono samples at the device rate). A value the decoder machine
/// queues; `DecodeLoop` renders it chunk by chunk into a preallocated float scratch.
struct ClickTrack: Equatable {
    var beats: Int
    var interval: Int
    /// When set, the insert is this speech instead of clicks.
    var speech: [Float]?
    var written = 0
    /// Where the music resumes once the insert is out (the mark pushed then).
    var resume: SourcePoint
    var sourceRate: Int
    /// Device frames the count-in ends early, so that the music's next beat comes one beat after the last click (the
    /// click over the track's grid: the resume point lies this far before a beat).
    var lead = 0
    var total: Int { speech?.count ?? max(1, beats * interval - lead) }

    /// A count-in of `plan.beats` at `bpm` (already multiplied by the playback speed) on a device at `deviceRate`.
    /// A tempo the plan's checks let through is 20–400 BPM × 0.5–1.5; anything else (never expected) falls back to
    /// one beat a second rather than trapping the decoder thread.
    static func countIn(beats: Int, bpm: Double, deviceRate: Int, resume: SourcePoint, sourceRate: Int) -> ClickTrack {
        let beat = 60 * Double(deviceRate) / bpm
        let interval = beat.isFinite && beat >= 1 && beat < Double(Int32.max) ? Int(beat.rounded()) : deviceRate
        return ClickTrack(beats: beats, interval: interval, resume: resume, sourceRate: sourceRate)
    }

    /// Spoken words before the music.
    static func words(_ samples: [Float], resume: SourcePoint, sourceRate: Int) -> ClickTrack {
        ClickTrack(beats: 0, interval: 1, speech: samples, resume: resume, sourceRate: sourceRate)
    }

    /// Click length: 30 ms, or less when beats come faster than that.
    func clickFrames(rate: Int) -> Int { min(interval / 2, rate * 30 / 1000) }

    /// The click sample at frame `i` of the count-in (0 between clicks): a decaying tone that starts at full
    /// amplitude on the beat, 1.5 kHz at 0.5 for beat one, 1 kHz at 0.3 for the others.
    func sample(at i: Int, rate: Int) -> Float {
        if let speech { return speech[i] }
        let beat = i / interval, offset = i % interval, length = clickFrames(rate: rate)
        guard offset < length else { return 0 }
        return Self.click(at: offset, of: length, accented: beat == 0, rate: rate)
    }

    /// Frame `offset` of a click `length` frames long: the count-in's and the click over the track's sound.
    static func click(at offset: Int, of length: Int, accented: Bool, rate: Int) -> Float {
        let (frequency, amplitude) = accented ? (1500.0, 0.5) : (1000.0, 0.3)
        let decay: Double = 1 - Double(offset) / Double(max(1, length))
        let phase: Double = 2 * Double.pi * frequency * Double(offset) / Double(max(1, rate))
        return Float(amplitude * decay * decay * cos(phase))
    }
}

/// Speech over the music: the music ducks (−10 dB) in `ramp` frames, the words play, the music comes back in `ramp`
/// frames. Frames are counted from the splice at the heard position.
struct SpeechOverlay: Equatable {
    var speech: [Float]
    var ramp: Int
    var frame = 0
    static let duck: Float = 0.316
    var total: Int { speech.count + 2 * ramp }

    func gain(at f: Int) -> Float {
        if f < ramp { return 1 - (1 - Self.duck) * Float(f) / Float(ramp) }
        if f < ramp + speech.count { return Self.duck }
        return Self.duck + (1 - Self.duck) * Float(min(ramp, f - ramp - speech.count)) / Float(ramp)
    }

    func voice(at f: Int) -> Float {
        let i = f - ramp
        return i >= 0 && i < speech.count ? speech[i] : 0
    }
}

/// Words waiting to be spoken: one asked for while nothing played (spoken at the next start), and the "Title, by
/// Artist" the player prepared for entries not begun yet (spoken when each begins). A value the machine owns.
struct PendingAnnouncements {
    struct Words {
        var speech: Speech
        var duck: Bool
    }

    private var atNextStart: Words?
    private var atEntry: [EntryID: Words] = [:]

    mutating func holdForNextStart(_ words: Words) { atNextStart = words }
    mutating func prepare(_ words: Words, for entry: EntryID) { atEntry[entry] = words }
    mutating func takeForStart() -> Words? {
        defer { atNextStart = nil }
        return atNextStart
    }
    mutating func take(for entry: EntryID) -> Words? { atEntry.removeValue(forKey: entry) }
}
