import AudioCore
import FermataCore
import Foundation
@testable import Recording
import TestSupport
import Testing

/// The recording's state machine with no device: each pass of the loop heard becomes one take, from the capture frame
/// where the pass is heard to begin, for exactly the pass's length at its tempo (the region over the tempo's rate
/// ratio); a pass one frame early shortens the take before it, a pass cut short (a jump, a stop, another loop, clocks
/// not known yet) abandons it; a boundary of another track or mid-region starts nothing. Then the plan's orders given
/// to the real writer over alsa-lib's `file` capture: each take holds exactly its pass's frames.
@Suite struct RecordingPlanTests {
    /// One second of a 44.1 kHz track, from 1 s to 2 s, played at 80 %: each pass lasts 44 100 / 0.8 = 55 125 frames.
    static let loop = RecordingPlan.Loop(entry: 4, path: "Alpha/one.flac", region: LoopRegion(start: 44_100, end: 88_200),
                                         sourceRate: 44_100, tempoPercent: 80)

    static func seam(pass: Int, at frame: Int64?, entry: EntryID = 4) -> RecordingPlan.Boundary {
        .init(kind: .seam, entry: entry, pass: pass, sourceFrame: 44_100, rateRatio: 0.8, captureFrame: frame)
    }

    @Test func eachPassHeardIsOneTakeOfThePassLength() throws {
        var plan = RecordingPlan(nextID: 10)
        #expect(plan.loopChanged(Self.loop, captureFrameNow: 0).isEmpty)
        let start = RecordingPlan.Boundary(kind: .start, entry: 4, pass: 1, sourceFrame: 44_100, rateRatio: 0.8,
                                           captureFrame: 1_000)
        guard case let .record(first)? = plan.heard(start).first else { Issue.record("no take for pass 1"); return }
        #expect(first.id == 10 && first.pass == 1 && first.start == 1_000 && first.end == 56_125)
        #expect(first.loop.tempoPercent == 80 && first.loop.startMilliseconds == 1_000 && first.loop.endMilliseconds == 2_000)
        // Pass 2 heard one frame after pass 1's computed end: pass 1 is whole, pass 2 begins where it is heard.
        plan.captureReached(56_125)
        let second = plan.heard(Self.seam(pass: 2, at: 56_126))
        #expect(second == [.record(.init(id: 11, loop: Self.loop, pass: 2, tempoPercent: 80, start: 56_126, end: 111_251))])
        // Pass 3 heard one frame early: pass 2 is shortened to it, not lost.
        let third = plan.heard(Self.seam(pass: 3, at: 111_250))
        #expect(third == [.shorten(id: 11, end: 111_250),
                          .record(.init(id: 12, loop: Self.loop, pass: 3, tempoPercent: 80, start: 111_250, end: 166_375))])
        #expect(plan.nextID == 13)
    }

    /// The step trainer raises the tempo at the seam, before the player's status says so: the take's tempo and length
    /// are its pass's own (the mark's rate ratio), not the status read a tick earlier.
    @Test func aStepTrainerPassIsTakenAtItsOwnTempo() {
        var plan = RecordingPlan(nextID: 1)
        var loop = Self.loop
        loop.deviceRate = 48_000
        _ = plan.loopChanged(loop, captureFrameNow: 0)
        // 85 % of a 44.1 kHz track on a 48 kHz output: 0.85 × 44 100 / 48 000 source frames per output frame.
        let ratio = 0.85 * 44_100 / 48_000
        let actions = plan.heard(.init(kind: .seam, entry: 4, pass: 5, sourceFrame: 44_100, rateRatio: ratio,
                                       captureFrame: 0))
        guard case let .record(take)? = actions.first else { Issue.record("no take"); return }
        #expect(take.tempoPercent == 85 && take.pass == 5, "\(take)")
        #expect(take.end == Int64((44_100 / ratio).rounded()), "a pass at 85 % on the 48 kHz output")
    }

    @Test func aPassCutShortIsAbandoned() {
        var plan = RecordingPlan(nextID: 1)
        _ = plan.loopChanged(Self.loop, captureFrameNow: 0)
        _ = plan.heard(Self.seam(pass: 1, at: 0))
        // A seek inside the region, half-way through the pass: the take is abandoned and nothing starts there.
        let jump = RecordingPlan.Boundary(kind: .jump, entry: 4, pass: 1, sourceFrame: 60_000, rateRatio: 0.8,
                                          captureFrame: 20_000)
        #expect(plan.heard(jump) == [.abandon(id: 1, reason: "the pass was cut short")])
        #expect(plan.open == nil)
        // A pause mid-pass.
        _ = plan.heard(Self.seam(pass: 2, at: 30_000))
        #expect(plan.interrupted(captureFrameNow: 40_000, reason: "playback paused or stopped")
                == [.abandon(id: 2, reason: "playback paused or stopped")])
        // Another loop mid-pass; the tempo alone changing keeps the take.
        _ = plan.heard(Self.seam(pass: 3, at: 50_000))
        var faster = Self.loop
        faster.tempoPercent = 85
        #expect(plan.loopChanged(faster, captureFrameNow: 60_000).isEmpty)
        #expect(plan.open?.id == 3)
        var other = Self.loop
        other.region = LoopRegion(start: 0, end: 44_100)
        #expect(plan.loopChanged(other, captureFrameNow: 70_000) == [.abandon(id: 3, reason: "the loop changed")])
        // Clocks not known yet: no take, the one open abandoned.
        _ = plan.heard(Self.seam(pass: 1, at: 80_000))
        #expect(plan.heard(Self.seam(pass: 2, at: nil)) == [.abandon(id: 4, reason: "the clocks were not known yet")])
    }

    @Test func boundariesOfOtherTracksOrMidRegionStartNothing() {
        var plan = RecordingPlan(nextID: 1)
        #expect(plan.heard(Self.seam(pass: 1, at: 0)).isEmpty, "no loop: no take")
        _ = plan.loopChanged(Self.loop, captureFrameNow: 0)
        #expect(plan.heard(Self.seam(pass: 1, at: 0, entry: 5)).isEmpty, "another entry")
        let midway = RecordingPlan.Boundary(kind: .start, entry: 4, pass: 1, sourceFrame: 50_000, rateRatio: 0.8,
                                            captureFrame: 0)
        #expect(plan.heard(midway).isEmpty, "a start inside the region is not a pass")
        let countIn = RecordingPlan.Boundary(kind: .seam, entry: 4, pass: 1, sourceFrame: 44_100, rateRatio: 0,
                                             captureFrame: 0)
        #expect(plan.heard(countIn).isEmpty, "a count-in holding the position")
        #expect(plan.nextID == 1)
    }

    /// The plan's orders to the real writer: the passes' takes hold exactly their frames of the capture.
    @Test(.timeLimit(.minutes(10))) func thePlansTakesAreWrittenWhole() async throws {
        let rig = try TakeWriterTests.Rig(frames: 200_000)
        var plan = RecordingPlan(nextID: 1)
        _ = plan.loopChanged(Self.loop, captureFrameNow: 0)
        var orders: [(id: Int64, start: Int, end: Int)] = []
        for action in plan.heard(Self.seam(pass: 1, at: 2_000)) + plan.heard(Self.seam(pass: 2, at: 57_125)) {
            if case let .record(take) = action { orders.append((take.id, Int(take.start), Int(take.end))) }
        }
        #expect(orders.map(\.id) == [1, 2])
        let outcomes = await TakeWriterTests.record(rig, takes: orders, ringSeconds: 8)
        #expect(outcomes == [.committed(id: 1, frames: 55_125, format: TakeWriterTests.format),
                             .committed(id: 2, frames: 55_125, format: TakeWriterTests.format)])
        #expect(try TakeWriterTests.decode(rig.folder.takePath(1)) == Array(rig.source[4_000..<114_250]))
        #expect(try TakeWriterTests.decode(rig.folder.takePath(2)) == Array(rig.source[114_250..<224_500]))
    }
}
