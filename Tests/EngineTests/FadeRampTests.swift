import AudioCore
@testable import Engine
import Testing

/// The output's fade with no thread: a full-scale signal through `FadeRamp` block by block, as the output thread
/// feeds it; the fade's own report word through `FadeChannel`.
@Suite struct FadeRampTests {
    static let format = AudioFormat(sampleRate: 48_000, channels: 2, encoding: .s16)

    /// Feeds `frames` frames of a constant full-scale-ish signal through `ramp` in blocks of `block`; the gain of
    /// each frame (left channel) as heard.
    static func run(_ ramp: inout FadeRamp, frames: Int, block: Int = 240, value: Int16 = 30_000) -> [Double] {
        var gains: [Double] = []
        var done = 0
        while done < frames {
            let n = min(block, frames - done)
            var samples = [Int16](repeating: value, count: n * 2)
            _ = samples.withUnsafeMutableBytes { ramp.apply($0.baseAddress!, frames: n, format: format) }
            gains += stride(from: 0, to: n * 2, by: 2).map { Double(samples[$0]) / Double(value) }
            done += n
        }
        return gains
    }

    /// Two seconds down: every frame at or below the one before, silent by 2 s (within 1 %: the last steps round to
    /// zero in 16 bits a little before), and the silence holds.
    @Test func fallsMonotonicallyToSilenceOverItsTimeAndHolds() {
        var ramp = FadeRamp()
        ramp.take(FadeOrder(serial: 1, .out(milliseconds: 2000)))
        let gains = Self.run(&ramp, frames: 3 * 48_000)
        #expect(gains[0] > 0.999)
        for i in 1..<gains.count { #expect(gains[i] <= gains[i - 1], "frame \(i) rose"); if gains[i] > gains[i - 1] { break } }
        let firstSilent = gains.firstIndex { $0 == 0 }!
        #expect(firstSilent <= 96_001 && firstSilent >= 95_040, "silent at frame \(firstSilent)")
        #expect(gains[48_000] > 0.2 && gains[48_000] < 0.3, "half way: a quarter (the square law): \(gains[48_000])")
        #expect(gains[firstSilent...].allSatisfy { $0 == 0 })
        #expect(ramp.state == .silent)
    }

    /// A pause (or stop) lets a fade to silence go: the next block is untouched, bit for bit.
    @Test func releasedByAPauseTheLevelIsBackAtOnce() {
        var ramp = FadeRamp()
        ramp.take(FadeOrder(serial: 2, .out(milliseconds: 100)))
        _ = Self.run(&ramp, frames: 9600)
        #expect(ramp.state == .silent)
        let released = ramp.release()
        #expect(released)
        #expect(Self.run(&ramp, frames: 480).allSatisfy { $0 == 1 })
        let again = ramp.release()
        #expect(!again, "nothing left to let go")
    }

    /// An alarm's fade-in: from silence up to unity over its time, never falling; then untouched.
    @Test func risesFromSilence() {
        var ramp = FadeRamp()
        ramp.take(FadeOrder(serial: 3, .fromSilence(milliseconds: 1000)))
        let released = ramp.release()
        #expect(!released, "a fade-in is not let go by a pause")
        let gains = Self.run(&ramp, frames: 60_000)
        #expect(gains[0] == 0)
        for i in 1..<gains.count where gains[i] < gains[i - 1] { Issue.record("frame \(i) fell"); break }
        let firstUnity = gains.firstIndex { $0 == 1 }!
        #expect(abs(firstUnity - 48_000) <= 300, "unity at \(firstUnity)")
        #expect(ramp.isUnity && ramp.state == .done)
    }

    /// A fade called off comes back up from where it was, not from silence.
    @Test func restoreRisesFromWhereItIs() {
        var ramp = FadeRamp()
        ramp.take(FadeOrder(serial: 4, .out(milliseconds: 1000)))
        let down = Self.run(&ramp, frames: 24_000)
        ramp.take(FadeOrder(serial: 5, .restore(milliseconds: 500)))
        let up = Self.run(&ramp, frames: 30_000)
        #expect(abs(up[0] - down.last!) < 0.01, "continuous: \(down.last!) then \(up[0])")
        #expect(up.last == 1)
    }

    /// A fade to silence asked for while the output is closed or paused (or about to start) is not let go before it
    /// has begun: it waits for the output to play.
    @Test func aFadeNotBegunIsNotLetGo() {
        var ramp = FadeRamp()
        ramp.take(FadeOrder(serial: 6, .out(milliseconds: 1000)))
        let early = ramp.release()
        #expect(!early)
        #expect(ramp.state == .pending, "nothing of it heard yet")
        let gains = Self.run(&ramp, frames: 4800)
        #expect(gains.last! < 0.9, "it fell once the output played")
        let later = ramp.release()
        #expect(later, "begun: let go")
    }

    @Test func untouchedAtUnity() {
        var ramp = FadeRamp()
        #expect(Self.run(&ramp, frames: 1000).allSatisfy { $0 == 1 })
    }

    /// The order word crosses intact; the report names the fade it is about, and a newer one supersedes it.
    @Test func ordersAndReports() {
        #expect(FadeOrder(bits: FadeOrder(serial: 12345, .out(milliseconds: 30_000)).bits)
                == FadeOrder(serial: 12345, .out(milliseconds: 30_000)))
        #expect(FadeOrder(serial: 1, .out(milliseconds: .max)).milliseconds == OutputFade.maxMilliseconds)
        #expect(FadeOrder(serial: 1, .restore(milliseconds: -5)).milliseconds == 0)
        #expect(FadeOrder(bits: 0) == nil)
        let channel = FadeChannel()
        let first = channel.order(.out(milliseconds: 1000))
        #expect(channel.state(of: first) == .pending)
        channel.report(serial: first, .falling)
        #expect(channel.state(of: first) == .falling)
        let second = channel.order(.fromSilence(milliseconds: 1000))
        #expect(second != first)
        #expect(channel.state(of: first) == .superseded, "replaced as soon as a newer one is asked for")
        #expect(channel.state(of: second) == .pending)
        channel.report(serial: second, .rising)
        #expect(channel.state(of: second) == .rising)
    }
}
