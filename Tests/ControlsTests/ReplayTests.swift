@testable import Controls
import FermataCore
import Testing

/// Recorded edge sequences with bounce, replayed through debounce, gestures, chords and the encoder decoder of the
/// generic 40-pin profile; the exact actions and their times are asserted. Debounce is 10 ms, so a button's level
/// counts 10 ms after its last bounce.
@Suite struct ReplayTests {
    let keymap: Keymap

    init() throws {
        keymap = Keymap(try Replay.profile("generic-40pin").controls)
    }

    typealias T = Replay.Timed

    @Test func bouncyTapOfAButtonWithALongPressFiresOnceOnRelease() {
        // Last bounce of the release at 1 121 235 470 ns.
        #expect(Replay.actions(RecordedButtonEdges.playTap, keymap: keymap) == [T(.togglePause, 1_131_235_470)])
    }

    @Test func quickDoubleTapIsTwoPresses() {
        // 55 ms down, 65 ms up, 60 ms down, with bounce and v1-style repeated levels.
        #expect(Replay.actions(RecordedButtonEdges.playDoubleTap, keymap: keymap)
            == [T(.togglePause, 1_066_434_925), T(.togglePause, 1_192_458_947)])
    }

    @Test func longPressFiresWhileHeldAndNothingOnRelease() {
        // Stable down at 1 012 335 838 ns; long press 600 ms later.
        #expect(Replay.actions(RecordedButtonEdges.playLongPress, keymap: keymap) == [T(.announce, 1_612_335_838)])
    }

    @Test func holdRepeatsTheSeekAndATapSkips() {
        // Stable down at 1 010 559 384 ns: repeats at +400, +600, +800, +1000 ms; released at about +1060 ms.
        #expect(Replay.actions(RecordedButtonEdges.nextHoldThenTap, keymap: keymap) == [
            T(.seek(seconds: 10), 1_410_559_384), T(.seek(seconds: 10), 1_610_559_384),
            T(.seek(seconds: 10), 1_810_559_384), T(.seek(seconds: 10), 2_010_559_384), T(.next, 2_453_052_187),
        ])
    }

    @Test func loopButtonSetsASetsBThenALongPressClears() {
        #expect(Replay.actions(RecordedButtonEdges.loopTapTapLong, keymap: keymap).map(\.action)
            == [.loopCycle, .loopCycle, .loopClear])
    }

    @Test func chordFiresInsteadOfEitherButton() {
        let events = Replay.events(RecordedButtonEdges.chordNextPrevious, keymap: keymap)
        #expect(events.compactMap(\.action) == [.stop])
        #expect(events.contains(.chord("stop", at: 1_046_794_026)))
        #expect(!events.contains { if case .gesture = $0 { true } else { false } })
    }

    @Test func slowTurnsWithBouncingContactsCountEachDetentOnce() {
        #expect(Replay.actions(RecordedEncoderEdges.encoderSlow, keymap: keymap) == [
            T(.volume(2), 1_027_000_000), T(.volume(2), 1_213_000_000), T(.volume(2), 1_399_000_000),
            T(.volume(-2), 1_585_000_000), T(.volume(-2), 1_771_000_000),
        ])
    }

    @Test func fastSpinAcceleratesAfterTheFirstDetentInEachDirection() {
        // 8 ms per detent against a 60 ms window: 60 / 8 = 7, capped at 4 → volume ±8 per detent.
        let actions = Replay.actions(RecordedEncoderEdges.encoderFastSpin, keymap: keymap)
        // Built from typed pieces: as one `+` chain of literals and closures, Swift 6.2 gave up type-checking it.
        let detent: UInt64 = 8_000_000
        let upStart: UInt64 = 1_006_000_000
        let downStart: UInt64 = 1_502_000_000
        let fastUp: [T] = (1...11).map { (n: Int) -> T in T(.volume(8), upStart + UInt64(n) * detent) }
        let fastDown: [T] = (1...11).map { (n: Int) -> T in T(.volume(-8), downStart + UInt64(n) * detent) }
        var expected: [T] = [T(.volume(2), upStart)]
        expected.append(contentsOf: fastUp)
        expected.append(T(.volume(-2), downStart))
        expected.append(contentsOf: fastDown)
        #expect(actions == expected)
    }

    @Test func lostEdgesInASpinDropThoseDetentsButNeverReverse() {
        // Two detents lost one contact's pulse (its two edges coalesced into no change): 6 of 8 count, none backwards.
        let actions = Replay.actions(RecordedEncoderEdges.encoderSpinLostEdges, keymap: keymap).map(\.action)
        #expect(actions == [.volume(2), .volume(8), .volume(8), .volume(8), .volume(8), .volume(8)])
    }

    @Test func spinRecordedInTheKernelLabWithEdgesOutOfOrderCountsEveryDetent() {
        let actions = Replay.actions(RecordedEncoderEdges.kernelLabSpinOutOfOrder, keymap: keymap).map(\.action)
        #expect(actions.filter { if case let .volume(v) = $0 { v < 0 } else { false } }.count == 5)
        #expect(actions.filter { if case let .volume(v) = $0 { v > 0 } else { false } }.count == 5)
        #expect(actions.count == 10)
    }

    @Test func kernelDebouncedEdgesPassStraightThrough() {
        // With the v2 API the kernel has already debounced: one clean edge each way, no extra delay.
        let clean = "1000000000 GPIO27 1\n1080000000 GPIO27 0\n1200000000 GPIO27 1\n1250000000 GPIO27 0"
        #expect(Replay.actions(clean, keymap: keymap, userDebounce: false)
            == [T(.togglePause, 1_080_000_000), T(.togglePause, 1_250_000_000)])
    }

    @Test func doublePressWhenConfigured() throws {
        let map = Keymap(try Replay.profile("generic-40pin", overrides: """
            [button-mode]
            double = "announce"
            """).controls)
        let taps = "1000000000 GPIO13 1\n1060000000 GPIO13 0\n1150000000 GPIO13 1\n1210000000 GPIO13 0\n"
            + "3000000000 GPIO13 1\n3070000000 GPIO13 0"
        // The double fires on the second press; the single tap waits for the 300 ms window after its release.
        #expect(Replay.actions(taps, keymap: map) == [T(.announce, 1_160_000_000), T(.repeatCycle, 3_380_000_000)])
    }

    /// A tap-tempo button tapped four times on a 120 BPM beat, with contact bounce: each tap is timed by the kernel's
    /// edge timestamps (its debounced press, 10 ms after the last bounce), and the taps give 120 BPM within one.
    @Test func tapTempoButtonFourPressesHalfASecondApartGive120() throws {
        let map = Keymap(try Replay.profile("generic-40pin", overrides: """
            [button-tap]
            line = "GPIO4"
            press = "tap-tempo"
            """).controls)
        var edges = ""
        for (tap, bounces) in [(0, [310_000, 920_000]), (1, [1_410_000]), (2, [450_000, 700_000, 2_300_000]), (3, [])] {
            let down = 1_000_000_000 + UInt64(tap) * 500_000_000
            edges += "\(down) GPIO4 1\n"
            for (index, offset) in bounces.enumerated() { edges += "\(down + UInt64(offset)) GPIO4 \(index % 2 == 0 ? 0 : 1)\n" }
            if bounces.count % 2 == 1 { edges += "\(down + UInt64(bounces.last!) + 200_000) GPIO4 1\n" }
            edges += "\(down + 80_000_000) GPIO4 0\n"
        }
        let actions = Replay.actions(edges, keymap: map)
        #expect(actions.map(\.action) == Array(repeating: .tapTempo, count: 4))
        var taps = TapTempo()
        var bpm: Double?
        for timed in actions {
            guard case let .tapTempo(at)? = timed.action.controlAction(currentRepeat: .off, at: timed.at) else {
                Issue.record("\(timed) is not a tap")
                continue
            }
            bpm = taps.tap(atNanoseconds: at)
        }
        #expect(abs((bpm ?? 0) - 120) < 1, "\(bpm ?? 0) BPM from \(actions)")
    }

    @Test func holdForShutdownWithLongPressOnRelease() throws {
        let map = Keymap(try Replay.profile("generic-40pin", overrides: """
            [button-play]
            hold = "shutdown"
            """).controls)
        let longThenHold = "1000000000 GPIO17 1\n2000000000 GPIO17 0\n5000000000 GPIO17 1\n9000000000 GPIO17 0"
        // Released between 600 ms and 3 s: long press on release. Held past 3 s: shutdown while held.
        #expect(Replay.actions(longThenHold, keymap: map)
            == [T(.announce, 2_010_000_000), T(.shutdown, 8_010_000_000)])
    }

    @Test func replayIsDeterministicWhateverTheWakeUps() {
        // Advancing time in small steps (a GPIO thread woken often) gives the same result as one jump.
        var engine = ControlEngine(keymap: keymap, userDebounce: true)
        var actions: [KeyAction] = []
        let line = keymap.lines.firstIndex { $0.ref == .name("GPIO5") }!
        for (time, level) in [(UInt64(1_000_000_000), true), (UInt64(1_900_000_000), false)] {
            var now = time - 50_000_000
            while now < time {
                actions += engine.advance(to: now).compactMap(\.action)
                now += 1_000_000
            }
            actions += engine.edge(line: line, level: level, at: time).compactMap(\.action)
        }
        while let due = engine.deadline { actions += engine.advance(to: due).compactMap(\.action) }
        #expect(actions == Array(repeating: .seek(seconds: 10), count: 3))
    }
}
