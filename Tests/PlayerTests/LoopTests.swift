import AudioCore
import AudioOutput
import Engine
import FermataCore
import Foundation
import Player
import TestSupport
import Testing

/// A–B loops on captured PCM: lead-in to B, then N passes of A..B with an exact equal-power seam, then the rest.
@Suite struct LoopTests {
    /// The expected capture, computed independently of the engine's code (gains at frame centres, Double maths,
    /// rounding half away from zero, clamping to 16 bits).
    static func expected(_ source: [Int32], channels: Int, a: Int, b: Int, fade: Int, passes: Int) -> [Int32] {
        var out = Array(source[0..<(b * channels)])
        for _ in 0..<passes {
            for i in 0..<fade {
                let angle = Double.pi / 2 * (Double(i) + 0.5) / Double(fade)
                for c in 0..<channels {
                    let tailIndex = (b + i) * channels + c
                    let tail = tailIndex < source.count ? Double(source[tailIndex]) : 0
                    let head = Double(source[(a + i) * channels + c])
                    let mixed = (tail * cos(angle) + head * sin(angle)).rounded()
                    out.append(Int32(max(-32768, min(32767, mixed))))
                }
            }
            out += source[((a + fade) * channels)..<(b * channels)]
        }
        out += source[(b * channels)...]
        return out
    }

    func runLoop(a: Int, b: Int, crossfadeMs: Int, passes: Int) async throws {
        var harness = try CaptureHarness()
        harness.config.loopCrossfadeMilliseconds = crossfadeMs
        let signal = TestSignal.sweep(frames: 60_000, channels: 2, bits: 16, seed: 11)
        let path = harness.directory.file("loop.flac")
        try FLACFixture.write(path: path, samples: signal, channels: 2, bitsPerSample: 16, sampleRate: 44_100)
        let (bytes, _) = try await harness.play([path]) { player, ids in
            try await player.setLoop(entry: ids[0], LoopRegion(start: Int64(a), end: Int64(b), repeatCount: passes))
        }
        let fade = min(44_100 * crossfadeMs / 1000, (b - a) / 2)
        let want = Self.expected(signal, channels: 2, a: a, b: b, fade: fade, passes: passes)
        let got = int16Samples(bytes)
        #expect(got.count == want.count)
        #expect(firstDifference(got, want) == nil)
    }

    @Test func regionInsideOneFLACBlockWithCrossfade() async throws {
        try await runLoop(a: 1_000, b: 3_000, crossfadeMs: 5, passes: 4)
    }

    @Test func regionAcrossBlockBoundariesWithCrossfade() async throws {
        try await runLoop(a: 3_000, b: 20_123, crossfadeMs: 5, passes: 3)
    }

    @Test func hardCutLoopIsSampleAccurate() async throws {
        try await runLoop(a: 4_095, b: 8_193, crossfadeMs: 0, passes: 5)
    }

    @Test func seamFramesAreReallyMixed() {
        // Guards the reference itself: with a fade the seam differs from a hard cut.
        let source = (0..<4000).map { Int32(($0 * 37) % 20000 - 10000) }
        let hard = Self.expected(source, channels: 1, a: 100, b: 1000, fade: 0, passes: 1)
        let soft = Self.expected(source, channels: 1, a: 100, b: 1000, fade: 50, passes: 1)
        #expect(hard.count == soft.count)
        #expect(hard != soft)
    }
}

/// The loop pass the listener hears is counted where they hear it (the output thread's seam marks, not the decoder's
/// seams, which run ahead): `status().loopPass` goes 1, 2, 3 as the seams are heard, each seam is a `.player` change
/// (the page's and `idle`'s cue), and it starts from 1 again with the next entry (issue 36: the music-stand page shows
/// the section's pass).
@Suite struct HeardPassTests {
    @Test func theHeardPassCountsSeamsAsTheyAreHeard() async throws {
        // The second entry is long: the poll below may be starved for seconds (a CI-like run's poll came back after
        // a 4 s second entry had played out and the queue had ended: passes [3, 1], then stopped).
        let rig = try await TransportTests.Rig(seconds: [4, 60])
        let player = rig.player
        // A 1 s loop (0.5-1.5 s) played three times, in real time over the paced null output.
        try await player.setLoop(entry: rig.ids[0], LoopRegion(start: 22_050, end: 66_150, repeatCount: 2))
        try await player.perform(.playEntry(rig.ids[0]))
        var seen: [Int] = []
        var longestGap = Duration.zero, last = ContinuousClock.now
        var statuses: [String] = []  // each change of the status's entry, state, pass or whole second: for a failure
        let finished = try await Patience.wait {
            let now = ContinuousClock.now
            longestGap = max(longestGap, now - last)
            last = now
            let status = await player.status()
            if let pass = status.loopPass, seen.last != pass { seen.append(pass) }
            let line = "\(status.state) entry \(status.entryID.map(String.init) ?? "-") pass \(status.loopPass.map(String.init) ?? "-") "
                + "at \(Int(status.elapsed)) s loop \(status.loop.map { "\($0.start)..<\($0.end)" } ?? "none")"
            if statuses.last != line { statuses.append(line) }
            return status.entryID == rig.ids[1]
        }
        #expect(finished, "the second entry was reached; the statuses seen: \(statuses.suffix(30)), engine \(rig.engine.position())")
        #expect(!seen.isEmpty && seen == seen.sorted() && Set(seen).count == seen.count && seen.allSatisfy { (1...3).contains($0) },
                "passes heard in order, none past 3: \(seen)")
        // A poll starved for longer than a pass may miss one, the last too (a loaded CI machine did: the next entry
        // had begun when the poll came back); otherwise each is seen. The engine's own test
        // (`theSeamIsToldOnceHeard`) holds the seams exactly whatever the load.
        if longestGap < .milliseconds(900) { #expect(seen == [1, 2, 3], "\(seen)") }
        let after = await player.status()
        #expect(after.loopPass == nil, "no loop on the next entry: no pass")
        await rig.finish()
    }

    /// The engine tells of a seam when it is heard, after publishing the position: whoever the event wakes (the
    /// player, then the page or an idle client reading the status) reads the new pass. It told when the seam was
    /// written, a device buffer earlier (half a second here), and a prompt reader read the old pass. Read however
    /// late (a loaded machine), the position only moves on: at each event it is that pass or a later one.
    @Test func theSeamIsToldOnceHeard() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("t.flac")
        try FLACFixture.write(path: path, samples: TestSignal.sweep(frames: 4 * 44_100, channels: 2, bits: 16, seed: 1),
                              channels: 2, bitsPerSample: 16, sampleRate: 44_100)
        var config = EngineConfig()
        config.realtimePriority = nil
        config.periodMilliseconds = 25
        config.periods = 20  // a 500 ms device buffer
        let engine = PlaybackEngine(sink: PacedNullSink(), config: config)
        let item = PlayableItem(entryID: 1, path: path)
        engine.setLoop(entry: 1, LoopRegion(start: 22_050, end: 66_150, repeatCount: 2))
        _ = engine.start(item)
        var told: [(pass: Int, read: Int, frame: Int64, state: PlayState)] = []
        for await event in engine.events {
            switch event {
            case .decodingStarted: engine.setUpcoming(after: 1, nil)
            case let .passHeard(_, pass):
                let position = engine.position()
                told.append((pass, position.pass, position.sourceFrame, position.state))
            case .ended: break
            default: continue
            }
            if case .ended = event { break }
        }
        engine.shutdown()
        #expect(told.map(\.pass) == [2, 3], "\(told)")
        // Read late, the position is that pass or a later one — or already past the loop (the track plays on after
        // it, or has ended: no pass, 1), which a starved test read (a CI run read both events after the loop). The
        // defect read the pass before while the loop was still playing: inside the loop's frames.
        let pastTheLoop = { (read: (pass: Int, read: Int, frame: Int64, state: PlayState)) in
            read.read == 1 && (read.frame >= 66_150 || read.state != .playing)
        }
        #expect(told.allSatisfy { $0.read >= $0.pass || pastTheLoop($0) }, "the position read at each seam's event: \(told)")
    }
}
