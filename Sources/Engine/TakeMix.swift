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
        /// Its length in seconds (nil: longer than the limit, found while reading) and the limit, to a tenth.
        case tooLong(seconds: Double?, limitSeconds: Double)
        case empty

        public var description: String {
            switch self {
            case let .decoder(reason): reason
            case let .tooLong(seconds, limit):
                (seconds.map { "the take is \(Self.tenths($0)) s long" } ?? "the take is longer than \(Self.tenths(limit)) s")
                    + "; takes up to \(Self.tenths(limit)) s at its rate and channels are mixed with the original "
                    + "(play it alone or alternate)"
            case .empty: "the take holds no sound"
            }
        }

        static func tenths(_ seconds: Double) -> String { String(format: "%.1f", seconds) }
    }

    /// Decodes the file at `path` whole, resampled (libsoxr) to `rate` when that is known and differs, a chunk at a
    /// time: what it holds at the end (at most `maxBytes`) is all it holds. Blocking.
    public static func load(path: String, rate: Int?, maxBytes: Int = TakeSound.maxBytes) throws(LoadError) -> TakeSound {
        let decoder: any AudioDecoder
        do { decoder = try DecoderRegistry.open(path: path) } catch { throw .decoder(error.description) }
        let format = decoder.format
        let channels = max(1, min(format.channels, AudioFormat.channelRange.upperBound))
        var sink = Accumulator(inputRate: format.sampleRate, outputRate: rate ?? format.sampleRate, channels: channels,
                               maxBytes: min(max(1, maxBytes), 1 << 40))
        guard sink.converts else {
            throw .decoder("cannot resample the take from \(format.sampleRate) Hz to \(rate ?? 0) Hz")
        }
        if let total = decoder.totalFrames {
            guard total <= Int64(sink.limitInputFrames) else { throw sink.tooLong(inputFrames: total) }
            sink.reserve(inputFrames: Int(total))  // one allocation, not a doubling array's copies
        }
        let chunk = 4096
        let raw = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk * format.bytesPerFrame, alignment: 16)
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: chunk * channels)
        defer { raw.deallocate(); scratch.deallocate() }
        while true {
            let n: Int
            do { n = try decoder.read(into: raw) } catch { throw .decoder(error.description) }
            if n == 0 { break }
            SampleConversion.toFloat(raw.baseAddress!, frames: n, from: format, channels: channels, gain: 1, into: scratch)
            try sink.add(scratch, frames: n)
        }
        return try sink.finish()
    }

    /// This take at `deviceRate` (libsoxr, as speech is): itself when the rates agree. Allocates; the decoder thread
    /// calls it only when the device opened at another rate than the one the take was loaded for.
    func resampled(to deviceRate: Int) -> TakeSound {
        guard rate != deviceRate, deviceRate > 0 else { return self }
        var sink = Accumulator(inputRate: rate, outputRate: deviceRate, channels: channels, maxBytes: nil)
        guard sink.converts else { return self }  // not mixed at the wrong rate: `OverlayStage` checks the rate
        sink.reserve(inputFrames: frames)
        let chunk = 4096
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: chunk * channels)
        defer { scratch.deallocate() }
        var frame = 0
        while frame < frames {
            let n = min(chunk, frames - frame)
            for i in 0..<(n * channels) { scratch[i] = Float(samples[frame * channels + i]) / 32768 }
            try? sink.add(scratch, frames: n)
            frame += n
        }
        return (try? sink.finish()) ?? self
    }

    /// Collects a take's 16-bit samples from float chunks, through libsoxr when the rates differ, within `maxBytes`.
    private struct Accumulator: ~Copyable {
        let inputRate: Int, outputRate: Int, channels: Int
        /// Nil: no limit (a take already loaded within one, resampled).
        let maxBytes: Int?
        private var samples: [Int16] = []
        private let resampler: Resampler?
        private let scratch: FixedBuffer<Float>
        static let scratchFrames = 8192

        init(inputRate: Int, outputRate: Int, channels: Int, maxBytes: Int?) {
            self.inputRate = max(1, inputRate)
            self.outputRate = max(1, outputRate)
            self.channels = channels
            self.maxBytes = maxBytes
            resampler = inputRate == outputRate
                ? nil : Resampler(inputRate: self.inputRate, outputRate: self.outputRate, channels: channels)
            scratch = FixedBuffer(zeroedCount: Self.scratchFrames * channels)
        }

        /// Whether it can deliver at `outputRate` (the rates agree, or libsoxr took them).
        var converts: Bool { inputRate == outputRate || resampler != nil }

        /// The most frames kept, and the input frames that make them.
        var limitFrames: Int { (maxBytes ?? Int.max / 4) / (2 * channels) }
        var limitInputFrames: Int { Int(Int64(limitFrames) * Int64(inputRate) / Int64(outputRate)) }

        func tooLong(inputFrames: Int64?) -> LoadError {
            .tooLong(seconds: inputFrames.map { Double($0) / Double(inputRate) },
                     limitSeconds: Double(limitFrames) / Double(outputRate))
        }

        mutating func reserve(inputFrames: Int) {
            let frames = Int(Int64(inputFrames) * Int64(outputRate) / Int64(inputRate)) + Self.scratchFrames
            samples.reserveCapacity(min(limitFrames + Self.scratchFrames, frames) * channels)
        }

        mutating func add(_ input: UnsafePointer<Float>, frames: Int) throws(LoadError) {
            if let resampler {
                resampler.process(input, frames: frames, scratch: scratch.base, scratchFrames: Self.scratchFrames) {
                    append($0, frames: $1)
                }
            } else {
                append(input, frames: frames)
            }
            if maxBytes != nil, samples.count / channels > limitFrames { throw tooLong(inputFrames: nil) }
        }

        mutating func finish() throws(LoadError) -> TakeSound {
            resampler?.flush(scratch: scratch.base, scratchFrames: Self.scratchFrames) { append($0, frames: $1) }
            guard !samples.isEmpty else { throw .empty }
            return TakeSound(samples: samples, rate: outputRate, channels: channels)
        }

        private mutating func append(_ floats: UnsafePointer<Float>, frames: Int) {
            for i in 0..<(frames * channels) { samples.append(SampleMath.clampS16(Double(floats[i]) * 32768)) }
        }
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
