@testable import Daemon
@testable import Engine
import FermataCore
import Recording
import Testing

/// The clock lines a take is placed by, across xruns: an output underrun (the heard position stands still while the
/// device plays silence) and a capture overrun (the frames the device lost are not counted). Readings every 20 ms, as
/// the recording service takes them, on exact lines; a pass heard 0.8 s after the xrun must land on its capture frame,
/// and the take being recorded across the xrun is cut.
@Suite struct TakeClocksTests {
    static let rate = 48_000
    /// The capture's frame count runs 1 000 frames ahead of the output's heard frame at the same instant.
    static let captureOffset: Int64 = 1000

    /// Feeds readings from `from` to `to` seconds (every 20 ms): the heard frame `heard(t)` at output epoch
    /// `epoch.output` and `xruns`, the capture frame `captured(t)` at capture epoch `epoch.capture`; the reasons to cut.
    static func feed(_ clocks: inout TakeClocks, from: Double, to: Double, epoch: (output: Int, capture: Int),
                     xruns: Int, heard: (Double) -> Int64, captured: (Double) -> Int64) -> [String] {
        var cuts: [String] = []
        var t = from
        while t < to - 1e-9 {
            let ns = UInt64((t * 1e9).rounded())
            let out = HeardClockReading(ringPosition: Int(heard(t)) * 4, bytesPerFrame: 4, sampleRate: rate,
                                        nanoseconds: ns, epoch: epoch.output, xruns: xruns)
            let cap = CaptureClockReading(frame: captured(t), nanoseconds: ns, epoch: epoch.capture)
            if let cut = clocks.sample(heard: out, capture: cap) { cuts.append(cut) }
            t += 0.02
        }
        return cuts
    }

    static func mark(frame: Int64, epoch: Int) -> HeardMark {
        HeardMark(kind: .seam, entryID: 1, pass: 2, ringPosition: Int(frame) * 4, bytesPerFrame: 4, sourceFrame: 0,
                  sourceRate: rate, rateRatio: 1, epoch: epoch)
    }

    static func frames(_ seconds: Double) -> Int64 { Int64((seconds * Double(rate)).rounded()) }

    @Test func aCaptureOverrunRestartsTheCaptureLineAndCutsTheTake() {
        var clocks = TakeClocks(outputRate: Self.rate, captureRate: Self.rate, latencyFrames: 0)
        let heard = { (t: Double) in Self.frames(t) }
        // 2 s on one line; then the capture thread is 120 ms late: the device's 40 ms buffer fills, the rest (80 ms,
        // 3 840 frames) is lost in the overrun, and the count goes on from what the buffer held — behind the time,
        // never back (no reading meanwhile: the thread was not running).
        var cuts = Self.feed(&clocks, from: 10, to: 12, epoch: (1, 0), xruns: 0, heard: heard,
                             captured: { Self.frames($0) + Self.captureOffset })
        #expect(cuts.isEmpty)
        let lost: Int64 = 3840
        cuts = Self.feed(&clocks, from: 12.1, to: 13, epoch: (1, 1), xruns: 0, heard: heard,
                         captured: { Self.frames($0) + Self.captureOffset - lost })
        #expect(cuts == ["the capture ran over (an xrun): frames were lost"], "once, at the first reading after it")
        // A pass heard at 12.8 s: its sound is taken in at the capture's count then (which no longer includes the
        // lost frames). On one line through both sides of the overrun it was 435 frames (9 ms) off.
        let at = Self.frames(12.8)
        let placed = clocks.captureFrame(for: Self.mark(frame: at, epoch: 1))
        #expect(placed.map { abs($0 - (at + Self.captureOffset - lost)) <= 1 } == true, "\(placed.map(String.init) ?? "nil")")
    }

    @Test func anOutputUnderrunRestartsTheOutputLineAndCutsTheTake() {
        var clocks = TakeClocks(outputRate: Self.rate, captureRate: Self.rate, latencyFrames: 240)
        let captured = { (t: Double) in Self.frames(t) + Self.captureOffset }
        var cuts = Self.feed(&clocks, from: 10, to: 12, epoch: (1, 0), xruns: 0, heard: { Self.frames($0) },
                             captured: captured)
        #expect(cuts.isEmpty)
        // The device plays 50 ms of silence: the heard frame stands still, then goes on 2 400 frames behind the time
        // (recovered: a new epoch, one more xrun).
        let silence = Self.frames(0.05)
        cuts = Self.feed(&clocks, from: 12, to: 12.05, epoch: (1, 0), xruns: 0, heard: { _ in Self.frames(12) },
                         captured: captured)
        #expect(cuts.isEmpty, "not known until the write that recovers")
        cuts = Self.feed(&clocks, from: 12.06, to: 12.1, epoch: (2, 0), xruns: 1, heard: { Self.frames($0) - silence },
                         captured: captured)
        #expect(cuts == ["the output ran under (an xrun): the music stopped for a moment"])
        #expect(clocks.captureFrame(for: Self.mark(frame: Self.frames(12.05), epoch: 2)) == nil,
                "fewer than a dozen readings on the new line")
        _ = Self.feed(&clocks, from: 12.1, to: 13, epoch: (2, 0), xruns: 1, heard: { Self.frames($0) - silence },
                      captured: captured)
        // A frame heard at 12.8 s (its ring frame 2 400 behind): the capture's frame at 12.8 s plus the round trip.
        let placed = clocks.captureFrame(for: Self.mark(frame: Self.frames(12.8) - silence, epoch: 2))
        let expected = Self.frames(12.8) + Self.captureOffset + 240
        #expect(placed.map { abs($0 - expected) <= 1 } == true, "\(placed.map(String.init) ?? "nil") for \(expected)")
        #expect(clocks.captureFrame(for: Self.mark(frame: Self.frames(11), epoch: 1)) == nil, "a mark of the old line")
    }
}
