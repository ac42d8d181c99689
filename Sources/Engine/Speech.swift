/// Spoken words ready to play: mono samples at eSpeak's rate.
public struct Speech: Sendable, Equatable {
    public var samples: [Float]
    public var rate: Int

    public init(samples: [Float], rate: Int) {
        self.samples = samples
        self.rate = rate
    }

    /// The samples at `deviceRate` (soxr), for the decoder thread to place in the stream.
    func resampled(to deviceRate: Int) -> [Float] {
        guard rate != deviceRate, let resampler = Resampler(inputRate: rate, outputRate: deviceRate, channels: 1) else {
            return samples
        }
        var output: [Float] = []
        output.reserveCapacity(samples.count * deviceRate / rate + 1024)
        let scratchFrames = 8192
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: scratchFrames)
        defer { scratch.deallocate() }
        samples.withUnsafeBufferPointer { input in
            resampler.process(input.baseAddress!, frames: input.count, scratch: scratch, scratchFrames: scratchFrames) {
                output.append(contentsOf: UnsafeBufferPointer(start: $0, count: $1))
            }
        }
        resampler.flush(scratch: scratch, scratchFrames: scratchFrames) {
            output.append(contentsOf: UnsafeBufferPointer(start: $0, count: $1))
        }
        return output
    }
}
