import AudioCore
import AudioOutput
import Testing

/// The null output keeps the sink contract ALSA keeps: a drop (or a drain) leaves the device ready and not paused.
/// It stayed paused, so after a seek while paused the engine wrote to it for ever and got nothing accepted
/// (`SeekPastTheEndTests` shows the freeze through the daemon).
@Suite struct PacedNullSinkTests {
    @Test func aDropWhilePausedLeavesTheDeviceAcceptingFrames() throws {
        let sink = PacedNullSink()
        _ = try sink.open(AudioFormat(sampleRate: 44_100, channels: 2, encoding: .s16), periodFrames: 220, periods: 4)
        let buffer = [UInt8](repeating: 0, count: 880 * 4)
        try buffer.withUnsafeBytes { raw in
            let base = try #require(raw.baseAddress)
            #expect(sink.write(base, frames: 880) == .written(880), "the buffer holds 4 periods")
            #expect(sink.pause(true))
            // Full and paused: nothing fits, and the answer takes a period (a writer cannot spin on it). The first
            // write may still take the few frames that played before the pause.
            _ = sink.write(base, frames: 220)
            let before = MonotonicClock.seconds()
            #expect(sink.write(base, frames: 220) == .written(0))
            #expect(MonotonicClock.seconds() - before >= 0.004, "returned at once: a writer would spin")
            sink.drop()
            #expect(sink.write(base, frames: 880) == .written(880), "a drop empties the buffer")
            // Playing again, the device makes room as it plays: the next period fits once one has played. Still
            // paused (the old drop), it never does and every write takes nothing.
            #expect(sink.write(base, frames: 220) == .written(220), "after a drop the device plays again")
            #expect(sink.pause(true))
            sink.drain()
            #expect(sink.write(base, frames: 880) == .written(880))
            #expect(sink.write(base, frames: 220) == .written(220), "after a drain too")
        }
    }
}
