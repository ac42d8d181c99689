import AudioCore
import Decoders
import FermataCore
import Foundation

/// A recorded take held in memory to be mixed over its original (`TakeMix`): interleaved 16-bit samples at the take's
/// rate. Immutable once made, so it is shared between the daemon task that loads it and the decoder thread that mixes
/// it; loading is blocking work (file I/O, decoding, resampling) for a worker thread, never the decoder thread's.
public final class TakeSound: Sendable {
    public let samples: [Int16]
    public let rate: Int
    public let channels: Int

    public var frames: Int { channels > 0 ? samples.count / channels : 0 }

    public init(samples: [Int16], rate: Int, channels: Int) {
        self.samples = samples
        self.rate = rate
        self.channels = max(1, channels)
    }

    /// The most a take may hold in memory to be mixed: 60 MB of samples, 5 minutes of 48 kHz stereo (10 of mono).
    public static let maxBytes = 60_000_000

    /// Why a take cannot be mixed.
    public enum LoadError: Error, CustomStringConvertible, Equatable {
        case decoder(String)
        case tooLong(seconds: Int, limitSeconds: Int)
        case empty

        public var description: String {
            switch self {
            case let .decoder(reason): reason
            case let .tooLong(seconds, limit):
                "the take is \(seconds) s long; takes up to \(limit) s at its rate and channels are mixed with the "
                    + "original (play it alone or alternate)"
            case .empty: "the take holds no sound"
            }
        }
    }

    /// Decodes the file at `path` whole, resampled (libsoxr) to `rate` when that is known and differs. Blocking.
    public static func load(path: String, rate: Int?) throws(LoadError) -> TakeSound {
        let decoder: any AudioDecoder
        do { decoder = try DecoderRegistry.open(path: path) } catch { throw .decoder(error.description) }
        let format = decoder.format
        let channels = max(1, min(format.channels, AudioFormat.channelRange.upperBound))
        let limitFrames = maxBytes / (2 * channels)
        if let total = decoder.totalFrames, total > Int64(limitFrames) {
            throw .tooLong(seconds: Int(total / Int64(max(1, format.sampleRate))),
                           limitSeconds: limitFrames / max(1, format.sampleRate))
        }
        var floats: [Float] = []
        let chunk = 4096
        let raw = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk * format.bytesPerFrame, alignment: 16)
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: chunk * channels)
        defer { raw.deallocate(); scratch.deallocate() }
        while true {
            let n: Int
            do { n = try decoder.read(into: raw) } catch { throw .decoder(error.description) }
            if n == 0 { break }
            guard floats.count / channels + n <= limitFrames else {
                throw .tooLong(seconds: (floats.count / channels + n) / max(1, format.sampleRate),
                               limitSeconds: limitFrames / max(1, format.sampleRate))
            }
            SampleConversion.toFloat(raw.baseAddress!, frames: n, from: format, channels: channels, gain: 1, into: scratch)
            floats.append(contentsOf: UnsafeBufferPointer(start: scratch, count: n * channels))
        }
        guard !floats.isEmpty else { throw .empty }
        let sound = TakeSound(floats: floats, rate: format.sampleRate, channels: channels)
        guard let rate else { return sound }
        return sound.resampled(to: rate)
    }

    convenience init(floats: [Float], rate: Int, channels: Int) {
        self.init(samples: floats.map { SampleMath.clampS16(Double($0) * 32768) }, rate: rate, channels: channels)
    }

    /// This take at `deviceRate` (libsoxr, as speech is): itself when the rates agree. Allocates; the decoder thread
    /// calls it only when the device opened at another rate than the one the take was loaded for.
    func resampled(to deviceRate: Int) -> TakeSound {
        guard rate != deviceRate, deviceRate > 0,
              let resampler = Resampler(inputRate: rate, outputRate: deviceRate, channels: channels) else { return self }
        let input = samples.map { Float($0) / 32768 }
        var output: [Float] = []
        output.reserveCapacity(input.count / channels * deviceRate / rate * channels + 4096 * channels)
        let scratchFrames = 8192
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: scratchFrames * channels)
        defer { scratch.deallocate() }
        input.withUnsafeBufferPointer { buffer in
            resampler.process(buffer.baseAddress!, frames: buffer.count / channels, scratch: scratch,
                              scratchFrames: scratchFrames) {
                output.append(contentsOf: UnsafeBufferPointer(start: $0, count: $1 * channels))
            }
        }
        resampler.flush(scratch: scratch, scratchFrames: scratchFrames) {
            output.append(contentsOf: UnsafeBufferPointer(start: $0, count: $1 * channels))
        }
        return TakeSound(floats: output, rate: deviceRate, channels: channels)
    }
}

/// A take played together with its original (`playtake ID balance`): while queue entry `entry` plays, each pass of its
/// loop from `loopStartMilliseconds` has the take mixed over it from the pass's first frame, the take at `takeGain`
/// and the original at `originalGain` (an equal-power balance). The take was recorded at the tempo heard, so it is
/// placed by the device frames since the pass began, whatever the tempo. A value; any thread.
public struct TakeMix: Sendable {
    public var entry: EntryID
    public var loopStartMilliseconds: Int64
    public var sound: TakeSound
    /// 0: the original alone; 100: the take alone; 50: both at −3 dB.
    public var takePercent: Int

    public static let percents = 0...100

    public init(entry: EntryID, loopStartMilliseconds: Int64, sound: TakeSound, takePercent: Int) {
        self.entry = entry
        self.loopStartMilliseconds = loopStartMilliseconds
        self.sound = sound
        self.takePercent = min(Self.percents.upperBound, max(Self.percents.lowerBound, takePercent))
    }

    /// The take's gain and the original's: exactly 1 and 0 at the ends, the equal-power law between.
    var gains: (take: Float, original: Float) {
        switch takePercent {
        case 0: return (0, 1)
        case 100: return (1, 0)
        default:
            let angle = Double(takePercent) / 100 * Double.pi / 2
            return (Float(sin(angle)), Float(cos(angle)))
        }
    }
}
