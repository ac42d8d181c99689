import FermataCore

/// A point in the PCM ring where what is playing changes: a track starts, playback resumes at another source frame
/// (seek, loop seam), or the stream ends. Pushed by the decoder thread, read by the output thread.
struct TrackMark: BitwiseCopyable {
    enum Kind: UInt8 {
        case trackStart
        case jump
        case end
    }

    /// Increases by one for every mark the decoder pushes (so a mark is announced once, even after rewinds).
    var serial: Int
    /// The engine `start` this mark belongs to (so the heard position can tell a start has become audible).
    var generation: Int
    var position: Int
    var kind: Kind
    var entryID: EntryID
    var sourceFrame: Int64
    var sourceRate: Int32
    /// Source frames per device frame (1 unless resampling).
    var rateRatio: Double

    static let empty = TrackMark(serial: 0, generation: 0, position: 0, kind: .end, entryID: -1, sourceFrame: 0, sourceRate: 0, rateRatio: 1)
}

/// Something the output thread wants the rest of the program to know, sent without locks or allocation.
struct OutputEvent: BitwiseCopyable {
    enum Kind: UInt8 {
        case trackAudible
        case ended
        case deviceLost
        case deviceRestored
        case underrun
    }

    var kind: Kind
    var entryID: EntryID
    /// The start generation of the mark that caused it (0 when none).
    var generation = 0

    static let empty = OutputEvent(kind: .ended, entryID: -1)
}
