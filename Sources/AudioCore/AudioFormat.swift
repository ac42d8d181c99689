/// How one sample is stored in memory (native byte order, interleaved frames).
///
/// Integer encodings are left-justified: a 24-bit source travels as `.s32` with its 24 bits in the top of the word and
/// `validBits == 24`, so copying it to an `S32_LE` device is bit-exact and `>> 8` gives the source sample back.
public enum SampleEncoding: UInt8, Sendable, Hashable, BitwiseCopyable, CustomStringConvertible {
    case s16
    case s32
    case f32

    /// Bytes taken by one sample.
    public var bytes: Int {
        switch self {
        case .s16: 2
        case .s32, .f32: 4
        }
    }

    public var description: String {
        switch self {
        case .s16: "s16"
        case .s32: "s32"
        case .f32: "f32"
        }
    }
}

/// The shape of a PCM stream: rate, channel count and sample encoding.
///
/// A value type; freely shared between threads.
public struct AudioFormat: Hashable, Sendable, BitwiseCopyable, CustomStringConvertible {
    public var sampleRate: Int
    public var channels: Int
    public var encoding: SampleEncoding
    /// Meaningful bits per sample in the source (8, 16, 24 or 32); informational for integer encodings.
    public var validBits: Int

    public init(sampleRate: Int, channels: Int, encoding: SampleEncoding, validBits: Int? = nil) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.encoding = encoding
        self.validBits = validBits ?? encoding.bytes * 8
    }

    /// Bytes in one interleaved frame.
    public var bytesPerFrame: Int { channels * encoding.bytes }

    /// The channel counts every decoder accepts and every buffer of the engine is sized for (7.1 at most).
    public static let channelRange = 1...8
    /// The sample rates a format given by hand (`AudioFormat(spec:)`, a configured output format) may have.
    public static let sampleRateRange = 8_000...768_000
    /// The largest frame any stream can have: the most channels at 4 bytes a sample (s32 and f32). Fixed buffers
    /// sized in frames are allocated with it, so they never grow on the audio path.
    public static let maxBytesPerFrame = channelRange.upperBound * 4

    /// Two formats a device can play back to back without being reopened (valid bits do not matter to the device).
    public func isDeviceCompatible(with other: AudioFormat) -> Bool {
        sampleRate == other.sampleRate && channels == other.channels && encoding == other.encoding
    }

    /// Parses `RATE:ENCODING:CHANNELS`, for example `44100:s16:2` or `48000:s32:2`.
    public init?(spec: String) {
        let parts = spec.split(separator: ":")
        guard parts.count == 3, let rate = Int(parts[0]), Self.sampleRateRange.contains(rate),
              let channels = Int(parts[2]), Self.channelRange.contains(channels) else { return nil }
        let encoding: SampleEncoding
        switch parts[1].lowercased() {
        case "s16", "16": encoding = .s16
        case "s24", "24": self.init(sampleRate: rate, channels: channels, encoding: .s32, validBits: 24); return
        case "s32", "32": encoding = .s32
        case "f32", "float": encoding = .f32
        default: return nil
        }
        self.init(sampleRate: rate, channels: channels, encoding: encoding)
    }

    /// The `RATE:ENCODING:CHANNELS` text `init(spec:)` reads back.
    public var spec: String {
        let encoding = self.encoding == .s32 && validBits == 24 ? "s24" : self.encoding.description
        return "\(sampleRate):\(encoding):\(channels)"
    }

    public var description: String {
        let bits = encoding == .f32 ? "f32" : "\(validBits)-bit"
        return "\(sampleRate) Hz \(bits) \(channels)ch"
    }

    /// Frames in `seconds` at this rate, rounded down.
    public func frames(forMilliseconds ms: Int) -> Int { sampleRate * ms / 1000 }
}
