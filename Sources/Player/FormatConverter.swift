import AudioCore

/// Turns decoded frames into device frames: ReplayGain, channel mapping, sample encoding and (through `Resampler`)
/// sample rate. When the source already has the device's format and the gain is unity it copies bytes untouched, which
/// is what makes gapless playback bit-exact.
///
/// Threads: the decoder thread only. Buffers are allocated once, at `init`.
final class FormatConverter {
    private(set) var source: AudioFormat?
    private(set) var device: AudioFormat?
    private var gain = 1.0
    private var resampler: Resampler?
    private let maxFrames: Int
    private let floatIn: UnsafeMutablePointer<Float>
    private let floatOut: UnsafeMutablePointer<Float>
    private let deviceOut: UnsafeMutableRawPointer
    private let resampleFrames: Int

    /// - Parameter maxFrames: the most frames one `convert` call receives.
    init(maxFrames: Int) {
        self.maxFrames = maxFrames
        resampleFrames = maxFrames * 2
        floatIn = .allocate(capacity: maxFrames * 8)
        floatOut = .allocate(capacity: resampleFrames * 8)
        deviceOut = .allocate(byteCount: resampleFrames * 8 * 4, alignment: 64)
    }

    deinit {
        floatIn.deallocate()
        floatOut.deallocate()
        deviceOut.deallocate()
    }

    /// Source frames per device frame.
    var ratio: Double {
        guard let source, let device else { return 1 }
        return Double(source.sampleRate) / Double(device.sampleRate)
    }

    var isPassThrough: Bool {
        guard let source, let device else { return false }
        return source.isDeviceCompatible(with: device) && gain == 1
    }

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
    }

    /// True when the next track (in `next`) would need the resampler's tail flushed first.
    func needsFlush(before next: AudioFormat) -> Bool {
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
        if let resampler {
            resampler.process(floatIn, frames: frames, scratch: floatOut, scratchFrames: resampleFrames) { block, n in
                emitDevice(block, frames: n, device: device, emit: emit)
            }
        } else {
            emitDevice(floatIn, frames: frames, device: device, emit: emit)
        }
    }

    /// Emits the resampler's tail (before a rate change or at the end of the stream).
    func flush(emit: (UnsafeRawBufferPointer) -> Void) {
        guard let resampler, let device else { return }
        resampler.flush(scratch: floatOut, scratchFrames: resampleFrames) { block, n in
            emitDevice(block, frames: n, device: device, emit: emit)
        }
    }

    /// Forgets filter state (after a seek or a drop).
    func reset() { resampler?.clear() }

    private func emitDevice(
        _ block: UnsafePointer<Float>, frames: Int, device: AudioFormat, emit: (UnsafeRawBufferPointer) -> Void
    ) {
        SampleConversion.fromFloat(block, frames: frames, to: device, into: deviceOut)
        emit(UnsafeRawBufferPointer(start: deviceOut, count: frames * device.bytesPerFrame))
    }
}
