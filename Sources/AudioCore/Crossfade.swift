import Glibc

/// Equal-power crossfade gains for loop seams: the outgoing signal follows cos, the incoming sin, so the summed power
/// stays constant for uncorrelated material.
///
/// The gain for frame `i` of an `n`-frame window is evaluated at the centre of the frame, `(i + 0.5) / n`, in Double.
/// Pure functions; any thread.
public enum EqualPowerCrossfade {
    /// Gain of the incoming signal at frame `index` of a `count`-frame window.
    @inline(__always)
    public static func fadeIn(_ index: Int, of count: Int) -> Double {
        sin(Double.pi / 2 * (Double(index) + 0.5) / Double(count))
    }

    /// Gain of the outgoing signal at frame `index` of a `count`-frame window.
    @inline(__always)
    public static func fadeOut(_ index: Int, of count: Int) -> Double {
        cos(Double.pi / 2 * (Double(index) + 0.5) / Double(count))
    }

    /// Mixes `outgoing` and `incoming` (both `frames` frames of `format`) into `destination`, frame by frame with the
    /// gains above; integer results are rounded to nearest and clamped.
    public static func mix(
        outgoing: UnsafeRawPointer, incoming: UnsafeRawPointer, into destination: UnsafeMutableRawPointer,
        frames: Int, format: AudioFormat
    ) {
        let channels = format.channels
        for frame in 0..<frames {
            let gOut = fadeOut(frame, of: frames)
            let gIn = fadeIn(frame, of: frames)
            for channel in 0..<channels {
                let i = frame * channels + channel
                switch format.encoding {
                case .s16:
                    let a = Double(outgoing.load(fromByteOffset: i * 2, as: Int16.self))
                    let b = Double(incoming.load(fromByteOffset: i * 2, as: Int16.self))
                    destination.storeBytes(of: SampleMath.clampS16(a * gOut + b * gIn), toByteOffset: i * 2, as: Int16.self)
                case .s32:
                    let a = Double(outgoing.load(fromByteOffset: i * 4, as: Int32.self))
                    let b = Double(incoming.load(fromByteOffset: i * 4, as: Int32.self))
                    destination.storeBytes(of: SampleMath.clampS32(a * gOut + b * gIn), toByteOffset: i * 4, as: Int32.self)
                case .f32:
                    let a = Double(outgoing.load(fromByteOffset: i * 4, as: Float.self))
                    let b = Double(incoming.load(fromByteOffset: i * 4, as: Float.self))
                    destination.storeBytes(of: Float(a * gOut + b * gIn), toByteOffset: i * 4, as: Float.self)
                }
            }
        }
    }
}
