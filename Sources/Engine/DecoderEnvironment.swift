import AudioCore
import Decoders
import FermataCore

/// Everything `DecoderMachine` does to the world, and the few facts it asks of it: the flush handshake with the
/// output thread, the open decoder, the converter, the ring's marks and writes, the events to the player. The
/// machine decides; the environment carries out. `DecodeLoop` is the real one (the ring, libFLAC, SoundTouch, the
/// output thread); `DecoderMachineTests` use one that records each call and answers from a script, with no thread.
///
/// Threads: called by the machine on the decoder thread only; it must not call back into the machine (the machine
/// passes what it knows, such as the device format, as arguments).
protocol DecoderEnvironment: AnyObject {
    // MARK: the flush handshake

    /// Asks the output thread to act (see `FlushKind`) and returns its answer; afterwards the ring ends at the
    /// answered position and the output thread reads nothing until `resume()`.
    func flush(_ kind: FlushKind, open format: AudioFormat?) -> FlushAnswer
    /// Lets the output thread read what was written since the last flush.
    func resume()
    /// Whether the output thread has the device closed (nothing heard, nothing held).
    var outputIsClosed: Bool { get }
    /// Whether no piece of any track has been written since the engine started or last stopped.
    var timelineIsEmpty: Bool { get }
    /// Whether the ring still holds a piece of `entry` after the listener's position.
    func timelineContains(_ entry: EntryID) -> Bool

    // MARK: the decoder

    /// Makes `item` the open decoder (the one already open when it is `item`, else a new one), seeked to `frame`
    /// (nil: a fresh decoder is left at its start); returns the source format.
    func openDecoder(_ item: PlayableItem, at frame: Int64?) throws(DecoderError) -> AudioFormat
    func closeDecoder()
    /// Seeks the open decoder.
    func seek(to frame: Int64) throws(DecoderError)
    /// The BPM tag of `item`'s file, if it has one.
    func taggedBPM(of item: PlayableItem) -> Double?

    // MARK: network streams

    /// Whether the network stream `item` can be opened now (it starts connecting on the first ask).
    func liveReadiness(_ item: PlayableItem) -> LiveReadiness
    /// Waits a little while a stream connects (a command wakes it sooner).
    func waitForLive()
    /// The frame the open stream's next read starts at (counted from its opening).
    var liveFrame: Int64 { get }

    // MARK: the converter

    func configureConverter(source: AudioFormat, device: AudioFormat, gain: Double)
    func resetConverter()
    /// Whether the converter holds a tail (resampler, stretcher) that a track at `source` would not continue.
    func converterNeedsDrain(before source: AudioFormat) -> Bool
    /// Writes the converter's tail into the ring.
    func drainConverter()
    func setConverterTempo(_ tempo: Double, continuous: Bool)
    /// Transposes what is converted from now on (semitones; 0: none).
    func setConverterPitch(_ semitones: Double)
    /// Clicks over what is written from now on (nil: none).
    func setMetronome(_ setting: MetronomeSetting?)
    /// Mixes a take over its original's passes in what is written from now on (nil: none).
    func setTakeMix(_ mix: TakeMix?)

    // MARK: the ring

    /// Records a mark at the ring's write position. `holdsPosition`: the position stays at `sourceFrame` until the
    /// next mark (a count-in or spoken words are written after it).
    func pushMark(_ mark: MarkRequest, device: AudioFormat?)
    /// Decodes up to `maxFrames` frames of the open decoder and writes them converted; `.written(0)` when the ring had
    /// no room (having waited a little).
    func decode(maxFrames: Int, device: AudioFormat) -> DecodeOutcome
    /// Whether the ring has room for a loop seam of `fadeFrames` (having waited a little when not).
    func seamHasRoom(fadeFrames: Int, device: AudioFormat) -> Bool
    /// Reads the `fadeFrames` frames after B, seeks the decoder to `start` and reads the `fadeFrames` frames there
    /// (silence past the end or on a read error).
    func readSeam(from start: Int64, fadeFrames: Int, format: AudioFormat) throws(DecoderError)
    /// Ends a loop pass exactly at B (`end`, where the decoder is) while the converter stretches: what the stretcher
    /// owes for the pass is written, pushed out by the frames after B, and it starts afresh for the next pass
    /// (`FormatConverter.finishPass`); the decoder is left at B.
    func finishPass(at end: Int64, format: AudioFormat) throws(DecoderError)
    /// Writes the equal-power crossfade of the two pieces `readSeam` read.
    func writeSeamCrossfade(fadeFrames: Int, format: AudioFormat)
    /// Renders and writes the next frames of `insert` (from `insert.written`); returns how many (0 after waiting a
    /// little when the ring was full).
    func writeInsert(_ insert: ClickTrack, device: AudioFormat) -> Int
    /// Mixes `overlay` into what is written from now on (nil: none).
    func setOverlay(_ overlay: SpeechOverlay?)

    // MARK: the player

    func emit(_ event: EngineEvent)
}

/// Whether a network stream can be opened.
enum LiveReadiness: Equatable {
    /// Audio is buffered.
    case ready
    /// Connecting or buffering.
    case pending
    /// It will not play (the reason for the log and `status`).
    case failed(String)
}

/// The output thread's answer to a flush.
struct FlushAnswer: Equatable {
    /// Where the ring now ends (the output cursor).
    var position: Int
    /// The device format (nil when closed).
    var device: AudioFormat?
    /// What the ring holds at `position`: the track and source frame the listener is at.
    var heard: SourcePoint?
}

/// A track and a source frame in it.
struct SourcePoint: Equatable {
    var item: PlayableItem
    var frame: Int64
}

/// A mark the machine asks for; the environment stamps it with its ring position, serial and rate ratio.
struct MarkRequest: Equatable {
    var kind: TrackMark.Kind
    /// The track the ring continues with (nil for the end of the stream).
    var point: SourcePoint?
    var sourceRate: Int
    /// The position holds still at `point` after this mark (a count-in or words before the music).
    var holdsPosition = false
    /// The `PlaybackEngine.start` it belongs to.
    var generation: Int
    /// The loop pass what follows belongs to, from 1.
    var pass: Int = 1
}

/// What one `decode` call did.
enum DecodeOutcome: Equatable {
    case written(frames: Int)
    case endOfStream
    case failed(String)
}
