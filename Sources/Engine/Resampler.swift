import CSoxr

/// High-quality sample-rate conversion of interleaved Float32 through libsoxr (SOXR_HQ: 20-bit, linear phase).
///
/// Keeps its filter state between calls, so consecutive tracks at the same source rate are resampled as one
/// continuous signal (no seam at the track boundary). Threads: the decoder thread only.
final class Resampler {
    let inputRate: Int
    let outputRate: Int
    let channels: Int
    private let handle: soxr_t

    init?(inputRate: Int, outputRate: Int, channels: Int) {
        var error: soxr_error_t?
        var io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I)
        var quality = soxr_quality_spec(UInt(SOXR_HQ), 0)
        guard let made = soxr_create(Double(inputRate), Double(outputRate), UInt32(channels), &error, &io, &quality, nil),
              error == nil else { return nil }
        handle = made
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.channels = channels
    }

    deinit { soxr_delete(handle) }

    /// Feeds `frames` input frames and hands every produced block to `emit` (frames, pointer).
    func process(
        _ input: UnsafePointer<Float>, frames: Int, scratch: UnsafeMutablePointer<Float>, scratchFrames: Int,
        emit: (UnsafePointer<Float>, Int) -> Void
    ) {
        var consumed = 0
        while consumed < frames {
            var used = 0
            var produced = 0
            soxr_process(handle, input + consumed * channels, frames - consumed, &used,
                         scratch, scratchFrames, &produced)
            consumed += used
            if produced > 0 { emit(scratch, produced) }
            if used == 0 && produced == 0 { break }
        }
    }

    /// Pushes out the filter's tail (end of the stream at this rate).
    func flush(scratch: UnsafeMutablePointer<Float>, scratchFrames: Int, emit: (UnsafePointer<Float>, Int) -> Void) {
        while true {
            var produced = 0
            soxr_process(handle, nil, 0, nil, scratch, scratchFrames, &produced)
            if produced == 0 { break }
            emit(scratch, produced)
        }
    }

    /// Forgets all state (after a seek).
    func clear() { soxr_clear(handle) }
}
