import AudioCore
import Decoders
import FermataCore

/// Speech over the music: the music ducks (−10 dB) in `ramp` frames, the words play, the music comes back in `ramp`
/// frames. Frames are counted from the splice at the heard position.
struct SpeechOverlay {
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

/// Spoken announcements (decoder thread only; the words come rendered from `SpeechRenderer`): before the music (an
/// insert while the position holds) or over it (ducked), at once at the heard position, at the next start when
/// nothing plays, or at a track change.
extension DecodeLoop {
    func announce(_ speech: Speech, duck: Bool) {
        guard let device, !segments.isEmpty else {
            pendingAnnouncement = (speech, duck)
            return
        }
        let samples = speech.resampled(to: device.sampleRate)
        let position = requestFlush(.splice, open: nil)
        if let (item, frame) = sourceAt(position) {
            reposition(item, at: frame, ringPosition: position)
            place(samples, duck: duck, item: item, at: frame, sourceRate: active?.format.sampleRate ?? device.sampleRate)
        }
        resume()
    }

    /// At a start: the announcement asked for while nothing played.
    func announcePending(item: PlayableItem, at frame: Int64, sourceRate: Int) {
        guard let (speech, duck) = pendingAnnouncement, let device else { return }
        pendingAnnouncement = nil
        place(speech.resampled(to: device.sampleRate), duck: duck, item: item, at: frame, sourceRate: sourceRate)
    }

    /// At a track change: the words the player prepared for this entry ("Title, by Artist"), if any.
    func announceTrackChange(_ item: PlayableItem, sourceRate: Int) {
        guard let (speech, duck) = trackAnnouncements.removeValue(forKey: item.entryID), let device else { return }
        place(speech.resampled(to: device.sampleRate), duck: duck, item: item, at: 0, sourceRate: sourceRate)
    }

    private func place(_ speech: [Float], duck: Bool, item: PlayableItem, at frame: Int64, sourceRate: Int) {
        guard let device else { return }
        if duck {
            overlay = SpeechOverlay(speech: speech, ramp: device.sampleRate / 10)
        } else {
            pushMark(.jump, item: item, sourceFrame: frame, sourceRate: sourceRate, ratio: 0)
            inserts.append(ClickTrack(beats: 0, interval: 1, speech: speech, item: item, sourceFrame: frame,
                                      sourceRate: sourceRate))
        }
    }

    /// Appends device-format bytes to the ring, mixing the speech overlay into them while one is active.
    func writeMixed(_ bytes: UnsafeRawBufferPointer) {
        guard var mix = overlay, let device else {
            let written = shared.ring.write(bytes)
            assert(written == bytes.count, "ring overflow: room was checked before decoding")
            return
        }
        let frameBytes = device.bytesPerFrame, channels = device.channels
        let frames = bytes.count / frameBytes
        var offset = 0
        while offset < frames && mix.frame < mix.total {
            let n = min(frames - offset, Self.chunkFrames, mix.total - mix.frame)
            SampleConversion.toFloat(bytes.baseAddress! + offset * frameBytes, frames: n, from: device,
                                     channels: channels, gain: 1, into: overlayScratch)
            for i in 0..<n {
                let gain = mix.gain(at: mix.frame + i), voice = mix.voice(at: mix.frame + i)
                for c in 0..<channels {
                    overlayScratch[i * channels + c] = max(-1, min(1, overlayScratch[i * channels + c] * gain + voice))
                }
            }
            SampleConversion.fromFloat(overlayScratch, frames: n, to: device, into: overlayBytes)
            _ = shared.ring.write(UnsafeRawBufferPointer(start: overlayBytes, count: n * frameBytes))
            mix.frame += n
            offset += n
        }
        if offset < frames {
            _ = shared.ring.write(UnsafeRawBufferPointer(rebasing: bytes[(offset * frameBytes)...]))
        }
        overlay = mix.frame < mix.total ? mix : nil
    }
}
