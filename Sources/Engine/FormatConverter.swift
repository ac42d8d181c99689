import AudioCore
import CTimeStretchShim

/// Turns decoded frames into device frames: ReplayGain, channel mapping, tempo (SoundTouch time-stretch, in float at
/// the source rate), sample encoding and (through `Resampler`) sample rate. When the source already has the device's
/// format, the gain is unity and the tempo is 1 it copies bytes untouched, which is what makes gapless playback
/// bit-exact.
///
/// Threads: the decoder thread only. Buffers are allocated once, at `init`; the stretcher when a tempo is first set.
final class FormatConverter {
    private(set) var source: AudioFormat?
    private(set) var device: AudioFormat?
    private var gain = 1.0
    private var resampler: Resampler?
    /// Playback speed (1: untouched). Changing it keeps the stretcher's state, so a change at a loop seam is seamless.
    private(set) var tempo = 1.0
    /// Transposition in semitones (0: untouched), independent of the tempo; SoundTouch does both in one pass.
    private(set) var pitch = 0.0
    /// Whether audio goes through the stretcher: at any tempo but 1 or any transposition but 0, and at 1 too when
    /// reached continuously (the speed trainer's last step), so no buffered audio is dropped.
    private(set) var stretching = false
    private var stretcher: OpaquePointer?
    private var stretcherShape: (rate: Int, channels: Int)?
    private let stretchOut: UnsafeMutablePointer<Float>
    private let maxFrames: Int
    private let floatIn: UnsafeMutablePointer<Float>
    private let floatOut: UnsafeMutablePointer<Float>
    private let deviceOut: UnsafeMutableRawPointer
    private let resampleFrames: Int
    /// The end of the last loop pass, faded out under the start of the next (`finishPass`).
    private let join = StretchJoin(maxChannels: AudioFormat.channelRange.upperBound)

    /// - Parameter maxFrames: the most frames one `convert` call receives.
    init(maxFrames: Int) {
        self.maxFrames = maxFrames
        resampleFrames = maxFrames * 2
        floatIn = .allocate(capacity: maxFrames * 8)
        floatOut = .allocate(capacity: resampleFrames * 8)
        deviceOut = .allocate(byteCount: resampleFrames * AudioFormat.maxBytesPerFrame, alignment: 64)
        stretchOut = .allocate(capacity: maxFrames * 8)
    }

    deinit {
        if let stretcher { fermata_stretch_free(stretcher) }
        stretchOut.deallocate()
        floatIn.deallocate()
        floatOut.deallocate()
        deviceOut.deallocate()
    }

    /// Source frames per device frame (the tempo included: at 0.8, 0.8 source frames per device frame).
    var ratio: Double {
        guard let source, let device else { return 1 }
        return Double(source.sampleRate) / Double(device.sampleRate) * tempo
    }

    var isPassThrough: Bool {
        guard let source, let device else { return false }
        return source.isDeviceCompatible(with: device) && gain == 1 && !stretching
    }

    /// Sets the playback speed for what is converted from now on. `continuous`: the stream goes on without a reset
    /// (a loop seam), so the stretcher stays in the path even at 1.
    func setTempo(_ value: Double, continuous: Bool = false) {
        tempo = value
        stretching = value != 1 || pitch != 0 || (continuous && stretching)
        if !stretching { join.reset() }  // the untouched path: nothing to fade under, nothing owed
        if let stretcher { fermata_stretch_set_tempo(stretcher, value) }
        prepareStretcher()
    }

    /// Sets the transposition (semitones; 0 with tempo 1 leaves the path untouched, bit for bit) for what is
    /// converted from now on.
    func setPitch(_ semitones: Double) {
        pitch = semitones
        stretching = tempo != 1 || semitones != 0
        if let stretcher { fermata_stretch_set_pitch_semitones(stretcher, semitones) }
        prepareStretcher()
    }

    /// The version of the time-stretch library, for the logs.
    static var stretchLibrary: String { "SoundTouch " + String(cString: fermata_stretch_version()) }

    /// Prepares for a track. Returns false when the resampler's tail must be flushed first (`flush`) because the
    /// source rate changed; call again after flushing. Consecutive tracks at the same rate keep the filter running.
    func configure(source: AudioFormat, device: AudioFormat, gain: Double) {
        self.source = source
        self.device = device
        self.gain = gain
        if source.sampleRate == device.sampleRate {
            resampler = nil
        } else if resampler?.inputRate != source.sampleRate || resampler?.outputRate != device.sampleRate
                    || resampler?.channels != device.channels {
            resampler = Resampler(inputRate: source.sampleRate, outputRate: device.sampleRate, channels: device.channels)
        }
        prepareStretcher()
    }

    /// Creates (or re-creates, for another rate or channel count) the stretcher when the tempo is not 1.
    private func prepareStretcher() {
        guard stretching, let source, let device else { return }
        let shape = (rate: source.sampleRate, channels: device.channels)
        if stretcher != nil, let stretcherShape, stretcherShape == shape { return }
        if let stretcher { fermata_stretch_free(stretcher) }
        stretcher = fermata_stretch_new(UInt32(shape.rate), UInt32(shape.channels))
        stretcherShape = shape
        if let stretcher {
            fermata_stretch_set_tempo(stretcher, tempo)
            fermata_stretch_set_pitch_semitones(stretcher, pitch)
        }
    }

    /// True when the next track (in `next`) would need the resampler's tail flushed first.
    func needsFlush(before next: AudioFormat) -> Bool {
        if stretching, let stretcherShape, stretcherShape.rate != next.sampleRate { return true }
        guard let resampler else { return false }
        return resampler.inputRate != next.sampleRate
    }

    /// Converts `frames` frames at `input`; hands device-format bytes to `emit` (one or more calls).
    func convert(_ input: UnsafeRawPointer, frames: Int, emit: (UnsafeRawBufferPointer) -> Void) {
        guard let source, let device, frames > 0 else { return }
        if isPassThrough {
            emit(UnsafeRawBufferPointer(start: input, count: frames * source.bytesPerFrame))
            return
        }
        SampleConversion.toFloat(input, frames: frames, from: source, channels: device.channels, gain: gain, into: floatIn)
        if stretching, let stretcher {
            fermata_stretch_put(stretcher, floatIn, UInt32(frames))
            drainStretcher(stretcher, device: device, emit: emit)
        } else {
            resampleAndEmit(floatIn, frames: frames, device: device, emit: emit)
        }
    }

    /// Moves everything the stretcher has ready on, in blocks the resampler's scratch can take.
    private func drainStretcher(_ stretcher: OpaquePointer, device: AudioFormat,
                                emit: (UnsafeRawBufferPointer) -> Void) {
        while true {
            let n = Int(fermata_stretch_receive(stretcher, stretchOut, UInt32(maxFrames)))
            if n == 0 { return }
            let skip = join.frames > 0 ? join.mix(into: stretchOut, frames: n, channels: device.channels) : 0
            resampleAndEmit(stretchOut + skip * device.channels, frames: n - skip, device: device, emit: emit)
        }
    }

    /// Ends a loop pass at its B: emits exactly what the stretcher owes for the pass (its source frames / tempo since
    /// it last started afresh, and the frames the join skipped at its start), pushed out by `lookahead` — the `frames`
    /// source frames after B, so the pass ends in music, not in the silence a flush pads with —, keeps the frames after
    /// those to fade under the next pass (`StretchJoin`), and starts the stretcher afresh. Not stretching: nothing to
    /// do (every pass is exact already).
    func finishPass(lookahead: UnsafeRawPointer, frames: Int, emit: (UnsafeRawBufferPointer) -> Void) {
        guard stretching, let stretcher, let source, let device else { return }
        endStretch(stretcher, lookahead: lookahead, frames: frames, keep: StretchJoin.keptFrames(rate: source.sampleRate),
                   source: source, device: device, emit: emit)
    }

    /// Emits what the stretcher owes, pushed out by `lookahead` (then silence), keeps `keep` frames more for the join
    /// and clears the stretcher.
    private func endStretch(_ stretcher: OpaquePointer, lookahead: UnsafeRawPointer?, frames: Int, keep: Int,
                            source: AudioFormat, device: AudioFormat, emit: (UnsafeRawBufferPointer) -> Void) {
        let owed = fermata_stretch_owed(stretcher) + join.skipped
        join.passEnded()
        let wanted = owed + keep
        var used = 0, padded = 0
        while Int(fermata_stretch_available(stretcher)) < wanted {
            let n: Int
            if let lookahead, used < frames {
                n = min(256, frames - used)
                SampleConversion.toFloat(lookahead + used * source.bytesPerFrame, frames: n, from: source,
                                         channels: device.channels, gain: gain, into: floatIn)
                used += n
            } else {
                // Past the look-ahead: silence, as SoundTouch's own flush pads (at most 200 blocks).
                guard padded < 200 else { break }
                n = 256
                floatIn.update(repeating: 0, count: n * device.channels)
                padded += 1
            }
            fermata_stretch_put_lookahead(stretcher, floatIn, UInt32(n))
        }
        fermata_stretch_keep(stretcher, UInt32(min(wanted, Int(fermata_stretch_available(stretcher)))))
        var left = owed
        while left > 0 {
            let n = Int(fermata_stretch_receive(stretcher, stretchOut, UInt32(min(maxFrames, left))))
            if n == 0 { break }
            let skip = join.frames > 0 ? join.mix(into: stretchOut, frames: n, channels: device.channels) : 0
            resampleAndEmit(stretchOut + skip * device.channels, frames: n - skip, device: device, emit: emit)
            left -= n - skip
        }
        if keep > 0 {
            let kept = Int(fermata_stretch_receive(stretcher, stretchOut, UInt32(min(keep, maxFrames))))
            join.keep(stretchOut, frames: kept, rate: source.sampleRate, channels: device.channels)
        }
        fermata_stretch_clear(stretcher)
    }

    private func resampleAndEmit(_ block: UnsafePointer<Float>, frames: Int, device: AudioFormat,
                                 emit: (UnsafeRawBufferPointer) -> Void) {
        if let resampler {
            resampler.process(block, frames: frames, scratch: floatOut, scratchFrames: resampleFrames) { out, n in
                emitDevice(out, frames: n, device: device, emit: emit)
            }
        } else {
            emitDevice(block, frames: frames, device: device, emit: emit)
        }
    }

    /// Emits the stretcher's and the resampler's tails (before a rate change or at the end of the stream).
    func flush(emit: (UnsafeRawBufferPointer) -> Void) {
        guard let device else { return }
        if stretching, let stretcher, let source {
            endStretch(stretcher, lookahead: nil, frames: 0, keep: 0, source: source, device: device, emit: emit)
            join.reset()
        }
        resampler?.flush(scratch: floatOut, scratchFrames: resampleFrames) { block, n in
            emitDevice(block, frames: n, device: device, emit: emit)
        }
    }

    /// Forgets filter state (after a seek or a drop); at tempo 1 the stretcher leaves the path.
    func reset() {
        join.reset()
        resampler?.clear()
        if let stretcher { fermata_stretch_clear(stretcher) }
        stretching = tempo != 1 || pitch != 0
    }

    private func emitDevice(
        _ block: UnsafePointer<Float>, frames: Int, device: AudioFormat, emit: (UnsafeRawBufferPointer) -> Void
    ) {
        SampleConversion.fromFloat(block, frames: frames, to: device, into: deviceOut)
        emit(UnsafeRawBufferPointer(start: deviceOut, count: frames * device.bytesPerFrame))
    }
}
