import AudioCore
import AudioOutput
import Testing

/// The output's position as the device stamps it (`ALSAPosition`): alsa-lib's own `null` PCM, which stamps its status
/// with the clock the software parameters ask for. Without CLOCK_MONOTONIC asked (`enableStamps`) its stamp is the
/// wall clock, outside the read, and the reading falls back to the read's instant: `stamped` says which.
struct ALSAPositionTests {
    static let config = "pcm.stampednull { type null }"

    @Test func theOutputsDelayComesWithTheDevicesOwnStampOnTheMonotonicClock() throws {
        let sink = ALSASink(device: "stampednull", configText: Self.config)
        let format = try sink.open(AudioFormat(sampleRate: 48_000, channels: 2, encoding: .s16), periodFrames: 480,
                                   periods: 4)
        defer { sink.close() }
        let frames = 480
        let silence = [UInt8](repeating: 0, count: frames * format.bytesPerFrame)
        _ = silence.withUnsafeBytes { sink.write($0.baseAddress!, frames: frames) }
        let before = MonotonicClock.nanoseconds()
        let reading = try #require(sink.stampedPosition())
        let after = MonotonicClock.nanoseconds()
        #expect(reading.stamped, "the null PCM's status stamp is not on CLOCK_MONOTONIC: \(reading)")
        #expect(reading.nanoseconds >= before && reading.nanoseconds <= after)
        let delay = sink.delayReading
        #expect(delay.nanoseconds >= after && delay.frames >= 0)
    }

    @Test func aClosedSinkHasNoPosition() {
        let sink = ALSASink(device: "stampednull", configText: Self.config)
        #expect(sink.stampedPosition() == nil)
    }
}
