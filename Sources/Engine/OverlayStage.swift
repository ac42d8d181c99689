import AudioCore
import FermataCore

/// The stage after the tempo and pitch stage (`FormatConverter`) on the way into the ring: mixes what sounds over the
/// music — the spoken announcement (ducking the music under it), the click over the track on its beat grid and a
/// recorded take over its original's passes at a balance — into the device-format bytes, and passes every block with
/// none of them through untouched (bit-exact).
///
/// Threads: owned by `DecodeLoop`; the decoder thread alone calls it. Its scratch memory is allocated once.
final class OverlayStage {
    /// Speech over the music, while it lasts.
    var speech: SpeechOverlay?
    /// The click over the track (nil: none).
    private(set) var metronome: MetronomeSetting?
    /// The click sounding now: it may run on into the next block.
    private var clickVoice: ClickVoice?
    /// The take mixed over its original's passes (nil: none), its sound at the device's rate once first mixed.
    private var take: TakeMix?
    private let floats: FixedBuffer<Float>
    private let bytes: FixedBuffer<UInt8>
    private let chunkFrames: Int

    init(chunkFrames: Int) {
        self.chunkFrames = chunkFrames
        floats = FixedBuffer(zeroedCount: chunkFrames * AudioFormat.channelRange.upperBound)
        bytes = FixedBuffer(byteCount: chunkFrames * AudioFormat.maxBytesPerFrame)
    }

    func setMetronome(_ setting: MetronomeSetting?) {
        metronome = setting
        if setting == nil { clickVoice = nil }
    }

    func setTakeMix(_ mix: TakeMix?) { take = mix }

    /// What was written past the ring's new end is gone (a flush), the click sounding in it too.
    func cut() { clickVoice = nil }

    /// Passes `input` (device format) on to `write`, with the speech and the clicks that sound in it mixed in.
    /// `stretch`: the track being written there, the source frame at `input`'s start and source frames per device
    /// frame (nil: no track, or the position holds); `taggedBPM`: the file's BPM tag of an entry (read once per entry
    /// by the caller).
    func process(_ input: UnsafeRawBufferPointer, device: AudioFormat, sourceRate: Int?,
                 stretch: (item: PlayableItem, frame: Double, ratio: Double)?,
                 taggedBPM: (PlayableItem) -> Double?, write: (UnsafeRawBufferPointer) -> Void) {
        let frameBytes = device.bytesPerFrame, channels = device.channels
        let frames = input.count / frameBytes
        let clicks = clickStretch(stretch, sourceRate: sourceRate, device: device, taggedBPM: taggedBPM)
        let clicking = clickVoice != nil
            || clicks.map { $0.grid.hasOnset(start: $0.start, ratio: $0.ratio, count: frames) } == true
        let takeFrame = takePlacement(stretch, sourceRate: sourceRate, device: device)
        var offset = 0
        while offset < frames && (speech != nil || clicking || takeFrame != nil) {
            let n = min(frames - offset, chunkFrames)
            let scratch = floats.base
            SampleConversion.toFloat(input.baseAddress! + offset * frameBytes, frames: n, from: device,
                                     channels: channels, gain: 1, into: scratch)
            if var mix = speech {
                for i in 0..<min(n, mix.total - mix.frame) {
                    let gain = mix.gain(at: mix.frame + i), voice = mix.voice(at: mix.frame + i)
                    for c in 0..<channels {
                        scratch[i * channels + c] = max(-1, min(1, scratch[i * channels + c] * gain + voice))
                    }
                }
                mix.frame += n
                speech = mix.frame < mix.total ? mix : nil
            }
            if let takeFrame, let take { mixTake(take, from: takeFrame + offset, into: scratch, frames: n, channels: channels) }
            if let clicks {
                mixClicks(into: scratch, frames: n, channels: channels, rate: device.sampleRate, clicks: clicks,
                          from: offset)
            }
            SampleConversion.fromFloat(scratch, frames: n, to: device, into: bytes.raw)
            write(UnsafeRawBufferPointer(start: bytes.raw, count: n * frameBytes))
            offset += n
        }
        if offset < frames { write(UnsafeRawBufferPointer(rebasing: input[(offset * frameBytes)...])) }
    }

    /// The take's frame at the block's start, nil when the block is left as it is: another entry, a count-in (the
    /// position holds), no source rate, the original alone (0 %: bit-exact in any sample format), or a take libsoxr
    /// could not bring to the device's rate. The device frames since the pass began are the source frames
    /// since the loop's start over the source frames per device frame, so every pass, seek and tempo places the take
    /// afresh, and a take recorded at 100 % lands on the frame it was recorded against.
    private func takePlacement(_ stretch: (item: PlayableItem, frame: Double, ratio: Double)?, sourceRate: Int?,
                               device: AudioFormat) -> Int? {
        guard var current = take, current.takePercent > 0, let stretch, let sourceRate,
              stretch.item.entryID == current.entry, stretch.ratio > 0 else { return nil }
        if current.sound.rate != device.sampleRate {
            // The device opened at another rate than the daemon loaded the take for (it loads it at the rate the
            // device will play the original at, so this is rare): once, here.
            current.sound = current.sound.resampled(to: device.sampleRate)
            take = current
            guard current.sound.rate == device.sampleRate else { return nil }
        }
        let start = Double(FrameTime.frames(milliseconds: current.loopStartMilliseconds, rate: sourceRate))
        let frame = ((stretch.frame - start) / stretch.ratio).rounded()
        return frame.isFinite && abs(frame) < 1e12 ? Int(frame) : nil
    }

    /// Mixes `take` over `frames` frames of `scratch` from the take's frame `first`: the original at its gain, the
    /// take's frames (mono to every channel, stereo to many in order) at its own; outside the take, the original at its
    /// gain (silent at 100 %).
    private func mixTake(_ take: TakeMix, from first: Int, into scratch: UnsafeMutablePointer<Float>, frames: Int,
                         channels: Int) {
        let gains = take.gains, sound = take.sound, source = sound.channels, length = sound.frames
        sound.samples.withUnsafeBufferPointer { samples in
            for i in 0..<frames {
                let t = first + i
                let inside = t >= 0 && t < length
                for c in 0..<channels {
                    var value = scratch[i * channels + c] * gains.original
                    if inside {
                        let k = source == 1 ? 0 : (channels == 1 ? -1 : c)
                        let sample: Float
                        if k < 0 {
                            var sum: Float = 0
                            for j in 0..<source { sum += Float(samples[t * source + j]) }
                            sample = sum / Float(source) / 32768
                        } else {
                            sample = k < source ? Float(samples[t * source + k]) / 32768 : 0
                        }
                        value += sample * gains.take
                    }
                    scratch[i * channels + c] = max(-1, min(1, value))
                }
            }
        }
    }

    /// Where the beats of the track being written fall: its grid, the source frame at the block's start and the source
    /// frames per device frame, the click's level and length; nil with no click over the track, no usable beat, or
    /// while the position holds.
    private func clickStretch(_ stretch: (item: PlayableItem, frame: Double, ratio: Double)?, sourceRate: Int?,
                              device: AudioFormat, taggedBPM: (PlayableItem) -> Double?) -> ClickStretch? {
        guard let metronome, let sourceRate, let stretch, stretch.ratio > 0 else { return nil }
        let entry = stretch.item.entryID
        guard let beat = metronome.beat(for: entry, tagged: taggedBPM(stretch.item)),
              let grid = ClickGrid(beat: beat, sourceRate: sourceRate, beatsPerBar: metronome.plan.beatsPerBar)
        else { return nil }
        // 30 ms, or half a beat when beats come faster.
        let halfBeat = min(Double(device.sampleRate), grid.interval / stretch.ratio / 2)
        let length = max(1, min(device.sampleRate * 30 / 1000, halfBeat.isFinite ? Int(halfBeat) : 1))
        return ClickStretch(grid: grid, start: stretch.frame, ratio: stretch.ratio, level: Float(metronome.plan.level),
                            length: length)
    }

    /// Adds the clicks whose onsets fall in device frames `from..<from + frames` of the stretch `clicks` describes
    /// (and the rest of a click begun earlier) to `scratch`.
    private func mixClicks(into scratch: UnsafeMutablePointer<Float>, frames: Int, channels: Int, rate: Int,
                           clicks: ClickStretch, from: Int) {
        var voice = clickVoice
        var next = 0
        let start = clicks.start + Double(from) * clicks.ratio
        func play(until end: Int) {
            while next < end, var sounding = voice {
                let value = clicks.level * ClickTrack.click(at: sounding.frame, of: sounding.length,
                                                            accented: sounding.accented, rate: rate)
                for c in 0..<channels { scratch[next * channels + c] = max(-1, min(1, scratch[next * channels + c] + value)) }
                sounding.frame += 1
                voice = sounding.frame < sounding.length ? sounding : nil
                next += 1
            }
            next = max(next, end)
        }
        clicks.grid.forEachOnset(start: start, ratio: clicks.ratio, count: frames) { onset, accented in
            play(until: onset)
            voice = ClickVoice(accented: accented, length: clicks.length)
        }
        play(until: frames)
        clickVoice = voice
    }
}
