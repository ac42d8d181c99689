import AudioCore
import Decoders
@testable import Engine
import FermataCore

/// A `DecoderEnvironment` with no thread, device or file: it records every call the machine makes as an `Action`
/// and answers from a script — each path's format and length, which opens fail, whether the output is closed. The
/// "ring" counts frames written (one byte per frame), so the timeline and splices behave as in the engine.
final class ScriptedDecoderEnvironment: DecoderEnvironment {
    /// What the machine did, in order.
    enum Action: Equatable {
        case flush(FlushKind, open: AudioFormat?)
        case resume
        case open(EntryID, at: Int64?)
        case closeDecoder
        case seek(Int64)
        case configure(source: AudioFormat, device: AudioFormat)
        case resetConverter
        case drainConverter
        case tempo(Double, continuous: Bool)
        case pitch(Double)
        case mark(TrackMark.Kind, EntryID?, frame: Int64, holds: Bool)
        case decoded(Int)
        case seam(from: Int64, fade: Int)
        case finishPass(at: Int64)
        case crossfade(Int)
        case insert(frames: Int)
        case overlay(Bool)
        case event(EngineEvent)
        case waitedForLive
    }

    private(set) var actions: [Action] = []
    /// A scripted file.
    struct Track {
        var format: AudioFormat
        var frames: Int64
    }

    /// Each path's file.
    var tracks: [String: Track] = [:]
    /// Paths whose open fails.
    var unreadable: Set<String> = []
    /// Network streams' readiness by URL (a stream not listed is ready).
    var live: [String: LiveReadiness] = [:]
    var outputIsClosed = true
    /// The listener's place in the ring (what a splice answers); by default the end of what was written.
    var listener: Int?

    private var written = 0
    private var timeline = RingTimeline()
    private var decoderPath: String?
    private var decoderPosition: Int64 = 0
    private var device: AudioFormat?

    /// Forgets the actions so far (a test's setup).
    func clear() { actions.removeAll() }

    func flush(_ kind: FlushKind, open format: AudioFormat?) -> FlushAnswer {
        actions.append(.flush(kind, open: format))
        let position = listener ?? written
        written = position
        if kind == .close {
            device = nil
            timeline.removeAll()
        } else if let format {
            device = format
        }
        return FlushAnswer(position: position, device: device, heard: timeline.source(at: position))
    }

    func resume() { actions.append(.resume) }
    var timelineIsEmpty: Bool { timeline.isEmpty }
    func timelineContains(_ entry: EntryID) -> Bool { timeline.contains(entry) }

    func openDecoder(_ item: PlayableItem, at frame: Int64?) throws(DecoderError) -> AudioFormat {
        actions.append(.open(item.entryID, at: frame))
        guard !unreadable.contains(item.path), let track = tracks[item.path] else {
            decoderPath = nil
            throw DecoderError.unreadable(path: item.path, reason: "scripted")
        }
        decoderPath = item.path
        decoderPosition = frame ?? 0
        return track.format
    }

    func closeDecoder() {
        actions.append(.closeDecoder)
        decoderPath = nil
    }

    func seek(to frame: Int64) throws(DecoderError) {
        actions.append(.seek(frame))
        decoderPosition = frame
    }

    func taggedBPM(of item: PlayableItem) -> Double? { 120 }

    func liveReadiness(_ item: PlayableItem) -> LiveReadiness { live[item.path] ?? .ready }
    func waitForLive() { actions.append(.waitedForLive) }
    var liveFrame: Int64 { decoderPosition }

    func configureConverter(source: AudioFormat, device: AudioFormat, gain: Double) {
        actions.append(.configure(source: source, device: device))
    }

    func resetConverter() { actions.append(.resetConverter) }
    func converterNeedsDrain(before source: AudioFormat) -> Bool { false }
    func drainConverter() { actions.append(.drainConverter) }
    func setConverterTempo(_ tempo: Double, continuous: Bool) { actions.append(.tempo(tempo, continuous: continuous)) }
    func setConverterPitch(_ semitones: Double) { actions.append(.pitch(semitones)) }
    func setMetronome(_ setting: MetronomeSetting?) {}
    func setTakeMix(_ mix: TakeMix?) {}

    func pushMark(_ mark: MarkRequest, device: AudioFormat?) {
        actions.append(.mark(mark.kind, mark.point?.item.entryID, frame: mark.point?.frame ?? 0,
                             holds: mark.holdsPosition))
        if let point = mark.point {
            let anchor = RingTimeline.Anchor(position: written, sourceFrame: point.frame, bytesPerFrame: 1,
                                             ratio: mark.holdsPosition ? 0 : 1)
            timeline.append(anchor, item: point.item, released: 0)
        }
    }

    func decode(maxFrames: Int, device: AudioFormat) -> DecodeOutcome {
        guard let decoderPath, let track = tracks[decoderPath] else { return .failed("no decoder") }
        let n = Int(min(Int64(maxFrames), track.frames - decoderPosition))
        guard n > 0 else { return .endOfStream }
        decoderPosition += Int64(n)
        written += n
        actions.append(.decoded(n))
        return .written(frames: n)
    }

    func seamHasRoom(fadeFrames: Int, device: AudioFormat) -> Bool { true }

    func readSeam(from start: Int64, fadeFrames: Int, format: AudioFormat) throws(DecoderError) {
        actions.append(.seam(from: start, fade: fadeFrames))
        decoderPosition = start + Int64(fadeFrames)
    }

    func finishPass(at end: Int64, format: AudioFormat) throws(DecoderError) {
        actions.append(.finishPass(at: end))
    }

    func writeSeamCrossfade(fadeFrames: Int, format: AudioFormat) {
        actions.append(.crossfade(fadeFrames))
        written += fadeFrames
    }

    func writeInsert(_ insert: ClickTrack, device: AudioFormat) -> Int {
        let n = insert.total - insert.written
        actions.append(.insert(frames: n))
        written += n
        return n
    }

    func setOverlay(_ overlay: SpeechOverlay?) { actions.append(.overlay(overlay != nil)) }
    func emit(_ event: EngineEvent) { actions.append(.event(event)) }
}
