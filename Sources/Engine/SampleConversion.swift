import AudioCore

/// Conversions between left-justified integer / float interleaved samples and Float32, with channel mapping.
/// Pure functions over caller-owned buffers; any thread.
public enum SampleConversion {
    /// Reads `frames` frames of `format`, maps them to `channels` channels (mono is copied to every channel, many to
    /// mono is averaged, otherwise channels are kept in order and extra ones are silent) and scales by `gain`.
    static func toFloat(
        _ input: UnsafeRawPointer, frames: Int, from format: AudioFormat, channels: Int, gain: Double,
        into output: UnsafeMutablePointer<Float>
    ) {
        let src = format.channels
        for frame in 0..<frames {
            for c in 0..<channels {
                let value: Double
                if src == 1 {
                    value = sample(input, frame * src, format.encoding)
                } else if channels == 1 {
                    var sum = 0.0
                    for k in 0..<src { sum += sample(input, frame * src + k, format.encoding) }
                    value = sum / Double(src)
                } else {
                    value = c < src ? sample(input, frame * src + c, format.encoding) : 0
                }
                output[frame * channels + c] = Float(value * gain)
            }
        }
    }

    @inline(__always)
    private static func sample(_ input: UnsafeRawPointer, _ index: Int, _ encoding: SampleEncoding) -> Double {
        switch encoding {
        case .s16: Double(input.load(fromByteOffset: index * 2, as: Int16.self)) / 32768
        case .s32: Double(input.load(fromByteOffset: index * 4, as: Int32.self)) / 2_147_483_648
        case .f32: Double(input.load(fromByteOffset: index * 4, as: Float.self))
        }
    }

    /// Writes `frames` Float32 frames (already in the device's channel count) in the device's encoding.
    public static func fromFloat(
        _ input: UnsafePointer<Float>, frames: Int, to device: AudioFormat, into output: UnsafeMutableRawPointer
    ) {
        let count = frames * device.channels
        switch device.encoding {
        case .s16:
            let out = output.assumingMemoryBound(to: Int16.self)
            for i in 0..<count { out[i] = SampleMath.clampS16(Double(input[i]) * 32768) }
        case .s32:
            let out = output.assumingMemoryBound(to: Int32.self)
            for i in 0..<count { out[i] = SampleMath.clampS32(Double(input[i]) * 2_147_483_648) }
        case .f32:
            output.copyMemory(from: input, byteCount: count * 4)
        }
    }
}
