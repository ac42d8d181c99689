import AudioCore
import Foundation
import Decoders
import FermataCore

/// Audio inserted before the music while the position holds still: a count-in (`beats` clicks `interval` device
/// frames apart, beat one accented) or spoken words (mono samples at the device rate). Rendered chunk by chunk on
/// the decoder thread into a preallocated float scratch.
struct ClickTrack {
    var beats: Int
    var interval: Int
    /// When set, the insert is this speech instead of clicks.
    var speech: [Float]?
    var written = 0
    /// Where the music resumes once the clicks are out (the mark pushed then).
    var item: PlayableItem
    var sourceFrame: Int64
    var sourceRate: Int
    var total: Int { speech?.count ?? beats * interval }

    /// Click length: 30 ms, or less when beats come faster than that.
    func clickFrames(rate: Int) -> Int { min(interval / 2, rate * 30 / 1000) }

    /// The click sample at frame `i` of the count-in (0 between clicks): a decaying tone that starts at full
    /// amplitude on the beat, 1.5 kHz at 0.5 for beat one, 1 kHz at 0.3 for the others.
    func sample(at i: Int, rate: Int) -> Float {
        if let speech { return speech[i] }
        let beat = i / interval, offset = i % interval, length = clickFrames(rate: rate)
        guard offset < length else { return 0 }
        let (frequency, amplitude) = beat == 0 ? (1500.0, 0.5) : (1000.0, 0.3)
        let decay: Double = 1 - Double(offset) / Double(length)
        let phase: Double = 2 * Double.pi * frequency * Double(offset) / Double(rate)
        return Float(amplitude * decay * decay * cos(phase))
    }
}

/// The count-in (decoder thread only): clicks before the music on play, and before each loop pass when asked.
extension DecodeLoop {
    /// Starts a count-in before `item` at `frame`: the position stays at `frame` while the clicks play (a mark with
    /// no source advance), then the music follows in the next device frame.
    func beginCountIn(_ plan: CountInPlan, item: PlayableItem, at frame: Int64, sourceRate: Int) {
        guard let device, plan.beats > 0 else { return }
        let tagged = (try? TagReader.read(path: item.path))?.bpm.flatMap { CountInPlan.bpmRange.contains($0) ? $0 : nil }
        let bpm = (plan.bpm ?? tagged ?? plan.fallbackBPM) * converter.tempo
        // A tempo the plan's checks let through is 20–400 BPM × 0.5–1.5; anything else (never expected) falls back
        // to one beat a second rather than trapping the decoder thread.
        let beat = 60 * Double(device.sampleRate) / bpm
        let interval = beat.isFinite && beat >= 1 && beat < Double(Int32.max) ? Int(beat.rounded()) : device.sampleRate
        pushMark(.jump, item: item, sourceFrame: frame, sourceRate: sourceRate, ratio: 0)
        inserts.append(ClickTrack(beats: plan.beats, interval: interval, item: item, sourceFrame: frame,
                                  sourceRate: sourceRate))
    }

    /// Writes the next chunk of the first insert that fits; true while inserts remain.
    func writeClicks() -> Bool {
        guard var track = inserts.first, let device else { return false }
        let room = shared.ring.freeBytes() / device.bytesPerFrame - 1
        let frames = min(Self.chunkFrames, track.total - track.written, max(0, room))
        if frames > 0 {
            let floats = clickScratch
            for i in 0..<frames {
                let value = track.sample(at: track.written + i, rate: device.sampleRate)
                for c in 0..<device.channels { floats[i * device.channels + c] = value }
            }
            SampleConversion.fromFloat(floats, frames: frames, to: device, into: decodeBuffer)
            let bytes = UnsafeRawBufferPointer(start: decodeBuffer, count: frames * device.bytesPerFrame)
            let written = shared.ring.write(bytes)
            assert(written == bytes.count, "ring overflow: room was checked")
            shared.outputBell.ring()
            track.written += frames
        } else {
            shared.decoderBell.wait(nanoseconds: 5_000_000)
        }
        if track.written < track.total {
            inserts[0] = track
            return true
        }
        inserts.removeFirst()
        // The next insert holds the position again at once (its mark overrides this one at the same place).
        pushMark(.jump, item: track.item, sourceFrame: track.sourceFrame, sourceRate: track.sourceRate,
                 ratio: inserts.isEmpty ? nil : 0)
        return !inserts.isEmpty
    }
}
