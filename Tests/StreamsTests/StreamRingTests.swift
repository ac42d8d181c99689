import AudioCore
import Testing
@testable import Streams

/// The PCM between a stream's thread and the decoder thread: the consumer may go back as far as the history it
/// kept, never further, and the producer never overwrites that history.
@Suite struct StreamRingTests {
    static let format = AudioFormat(sampleRate: 1000, channels: 1, encoding: .s16)

    static func write(_ ring: StreamRing, from first: Int, count: Int) {
        let samples = (first..<first + count).map { Int16(truncatingIfNeeded: $0) }
        samples.withUnsafeBytes { ring.write($0) }
    }

    static func read(_ ring: StreamRing, at position: Int, frames: Int) -> [Int16] {
        var out = [Int16](repeating: -1, count: frames)
        let bytes = out.withUnsafeMutableBytes { ring.read(from: position, into: $0.baseAddress!, count: $0.count) }
        return Array(out.prefix(bytes / 2))
    }

    @Test func historyIsKeptAndBounded() {
        // 1 s buffered ahead, 0.5 s of history, at 1000 frames a second.
        let ring = StreamRing(format: Self.format, settings: StreamSettings(bufferMilliseconds: 1000, historyMilliseconds: 500))
        #expect(ring.historyBytes == 1000)
        var written = 0
        // Fill, read, release as a consumer would, far past the ring's size.
        var position = 0
        for _ in 0..<50 {
            let room = ring.freeBytes / 2
            Self.write(ring, from: written, count: room)
            written += room
            let got = Self.read(ring, at: position, frames: 700)
            #expect(got == (position / 2..<position / 2 + got.count).map { Int16(truncatingIfNeeded: $0) })
            position += got.count * 2
            ring.consumer(at: position)
        }
        // Back 0.5 s: still there, intact, even after the producer filled all it may.
        Self.write(ring, from: written, count: ring.freeBytes / 2)
        let back = position - 1000
        #expect(ring.seekable.contains(back))
        #expect(Self.read(ring, at: back, frames: 500) == (back / 2..<back / 2 + 500).map { Int16(truncatingIfNeeded: $0) })
        // Further back than the history: not offered.
        #expect(!ring.seekable.contains(back - 2))
        #expect(ring.seekable.upperBound == ring.aheadFrames(consumed: 0) * 2)
    }

    @Test func aSlowStreamIsGivenUpOnlyWhileItsBufferIsLow() throws {
        let start = ContinuousClock.now
        var pace = StreamPace(rate: 1000, bufferFrames: 4000, now: start)
        // Half real time, buffer empty: the third window throws.
        for window in 1...2 {
            try pace.check(producedFrames: 5000, bufferedFrames: 0, now: start + .seconds(10 * window))
        }
        #expect(throws: StreamError.network("the stream arrives at 50 % of real time")) {
            try pace.check(producedFrames: 5000, bufferedFrames: 0, now: start + .seconds(30))
        }
        // A paused listener: the buffer is full, nothing arrives, nothing is wrong.
        var paused = StreamPace(rate: 1000, bufferFrames: 4000, now: start)
        for window in 1...10 {
            try paused.check(producedFrames: 0, bufferedFrames: 4000, now: start + .seconds(10 * window))
        }
        // Real time: fine for ever.
        var healthy = StreamPace(rate: 1000, bufferFrames: 4000, now: start)
        for window in 1...10 {
            try healthy.check(producedFrames: 10_000, bufferedFrames: 0, now: start + .seconds(10 * window))
        }
    }

    @Test func networkTextIsSafeToShow() {
        #expect(NetworkText.clean("a\r\nb\tc\u{0}d") == "a  b c d")
        #expect(NetworkText.clean(String(repeating: "é", count: 1000), limit: 10).count == 10)
        #expect(NetworkText.decode([0x43, 0x61, 0x66, 0xE9]) == "Café")
        #expect(NetworkText.decode(Array("Café".utf8)) == "Café")
    }
}
