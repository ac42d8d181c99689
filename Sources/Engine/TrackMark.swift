import FermataCore

/// A point in the PCM ring where what is playing changes: a track starts, playback resumes at another source frame
/// (seek, loop seam), or the stream ends. Pushed by the decoder thread, read by the output thread.
struct TrackMark: BitwiseCopyable {
    enum Kind: UInt8 {
        case trackStart
        case jump
        /// A jump back to A at the end of a loop pass: the listener hears the next pass from here.
        case seam
        case end
    }

    /// Increases by one for every mark the decoder pushes (so a mark is announced once, even after rewinds).
    var serial: Int
    /// The engine `start` this mark belongs to (so the heard position can tell a start has become audible).
    var generation: Int
    var position: Int
    var kind: Kind
    /// The entry the ring continues with (nil: the end of the stream).
    var entryID: EntryID?
    var sourceFrame: Int64
    var sourceRate: Int32
    /// Source frames per device frame (1 unless resampling).
    var rateRatio: Double
    /// The loop pass the piece after this mark belongs to, from 1 (1 without a loop).
    var pass: Int32 = 1

    /// Where this mark's piece begins, for mapping later ring positions to source frames.
    func anchor(bytesPerFrame: Int) -> RingTimeline.Anchor {
        RingTimeline.Anchor(position: position, sourceFrame: sourceFrame, bytesPerFrame: bytesPerFrame, ratio: rateRatio)
    }

    static let empty = TrackMark(serial: 0, generation: 0, position: 0, kind: .end, entryID: nil, sourceFrame: 0, sourceRate: 0, rateRatio: 1)
}

/// Something the output thread wants the rest of the program to know, sent without locks or allocation.
enum OutputEvent: BitwiseCopyable {
    /// The first frame of this entry reached the device, for the `start` of this generation.
    case trackAudible(EntryID, generation: Int)
    /// A loop seam of this entry was heard: pass `pass` (from 1) begins.
    case passHeard(EntryID, pass: Int32)
    case ended
    /// The device could not be opened (`opening`) or went away while writing; `code`: the sink's negative errno (0:
    /// none).
    case deviceLost(code: Int32, opening: Bool)
    case deviceRestored
    case underrun
}
