import Foundation
import TestSupport
import Testing

/// Cards and the volume limits through the real fermatad: `cardread` does what a reader's card does (the kernel-lab
/// test `EvdevKernelTests.realDaemonCardReader` types the same ids on a virtual USB reader), and the ceiling holds
/// on every client path — MPD `setvol` and `volume`, `mpc`, the `fermata` CLI.
@Suite(.serialized) struct CardsE2ETests {
    static let config = """
        [audio]
        volume_max = 60

        [cards]
        again = "pause"

        [card-0001234567]
        play = "folder:Beta/Second"
        volume_max = 30

        [card-42]
        play = "album:First Album"

        [card-7]
        play = "action:stop"

        [card-8]
        play = "piece:Beta/Second/02 Dos.flac"
        tempo = 80
        loop = "0.5-1.5"
        """

    @Test func volumeMaxHoldsOnEveryClientPath() async throws {
        try await Daemon.with(config: Self.config) { daemon in
            try await daemon.ok("setvol 90")
            #expect(try await daemon.status()["volume"] == "60", "MPD setvol")
            try await daemon.ok("setvol 20")
            try await daemon.ok("volume +70")
            #expect(try await daemon.status()["volume"] == "60", "MPD volume")
            _ = try await daemon.mpc("volume", "95")
            #expect(try await daemon.status()["volume"] == "60", "mpc volume")
            let cli = try await daemon.fermata("volume", "100")
            #expect(cli.status == 0 && cli.output.contains("volume 60"), "\(cli)")
        }
    }

    @Test func aCardPlaysPausesAndCapsAndAnUnknownCardChangesNothing() async throws {
        try await Daemon.with(config: Self.config) { daemon in
            try await daemon.ok("setvol 50")
            // The folder is 5 s of music: repeat keeps it playing however slowly a loaded machine runs the test.
            try await daemon.ok("repeat 1")
            // From a stopped box with an empty queue.
            try await daemon.ok("cardread 0001234567")
            let playing = try await daemon.status { $0["state"] == "play" }
            #expect(playing["volume"] == "30", "the card's cap lowers the volume at once")
            #expect(try await daemon.queue() == ["Beta/Second/01 Uno.flac", "Beta/Second/02 Dos.flac",
                                                 "Beta/Second/03 Tres.flac"])
            try await daemon.ok("setvol 55")
            #expect(try await daemon.status()["volume"] == "30", "the card's cap holds for clients")
            // The same card again: pause, then play on.
            try await daemon.ok("cardread 0001234567")
            #expect(try await daemon.status { $0["state"] == "pause" }["state"] == "pause")
            try await daemon.ok("cardread 0001234567")
            #expect(try await daemon.status { $0["state"] == "play" }["state"] == "play")
            // A card bound to nothing: nothing changes, and it is reported.
            let before = try await daemon.queue()
            try await daemon.ok("cardread 999")
            #expect(try await daemon.status()["state"] == "play")
            #expect(try await daemon.queue() == before)
            let cards = try await daemon.ok("cards")
            #expect(cards["unknown_card"] == "999", "\(cards)")
            #expect(cards["active_card"] == "0001234567")
            #expect(daemon.log.contains("cards: unknown card 999"), "\(daemon.log)")
            // Learnt, it works; an action card stops.
            try await daemon.ok("cardlearn \"action:stop\"")
            try await daemon.ok("cardread 999")
            #expect(try await daemon.status { $0["state"] == "stop" }["state"] == "stop")
            // Another card's music replaces the queue and lifts the first card's cap (to volume_max).
            try await daemon.ok("cardread 42")
            #expect(try await daemon.status { $0["state"] == "play" }["state"] == "play")
            #expect(try await daemon.queue() == ["Alpha Band/First Album/01 One.flac", "Alpha Band/First Album/02 Two.flac"])
            try await daemon.ok("setvol 55")
            #expect(try await daemon.status()["volume"] == "55")
            try await daemon.ok("setvol 99")
            #expect(try await daemon.status()["volume"] == "60")
        }
    }

    /// An unknown card read, then assigned (as the web page's "Assign…" does): it is no longer listed as unknown; one
    /// read after it stays listed until it is bound too, by `cardlearn`.
    @Test func anAssignedCardIsNoLongerUnknown() async throws {
        try await Daemon.with(config: Self.config) { daemon in
            try await daemon.ok("cardread 555")
            #expect(try await daemon.ok("cards")["unknown_card"] == "555")
            try await daemon.ok("cardassign 444 \"album:First Album\"")
            #expect(try await daemon.ok("cards")["unknown_card"] == "555", "another card's binding leaves it unknown")
            try await daemon.ok("cardassign 555 \"album:First Album\"")
            let cards = try await daemon.ok("cards")
            #expect(cards["unknown_card"] == nil, "\(cards)")
            try await daemon.ok("cardread 556")
            try await daemon.ok("cardlearn \"action:stop\"")
            #expect(try await daemon.ok("cards")["unknown_card"] == nil)
        }
    }

    /// A practice piece: the card plays the one file at the card's tempo, looping its A–B.
    @Test func aPieceCardPlaysAtItsTempoWithItsLoop() async throws {
        try await Daemon.with(config: Self.config) { daemon in
            try await daemon.ok("cardread 8")
            var loop = try await daemon.ok("loop_status")
            // Waited for by progress (Patience: a hang detector), not a number of polls.
            _ = try await Patience.wait {
                loop = try await daemon.ok("loop_status")
                return loop["loop_start"] != nil
            }
            #expect(try await daemon.queue() == ["Beta/Second/02 Dos.flac"])
            #expect(loop["loop_start"].flatMap(Double.init).map { abs($0 - 0.5) < 0.01 } == true, "\(loop)")
            #expect(loop["loop_end"].flatMap(Double.init).map { abs($0 - 1.5) < 0.01 } == true, "\(loop)")
            #expect(loop["tempo"] == "80", "\(loop)")
        }
    }

    @Test func theCLIListsAssignsAndForgetsCardsAndRefusesBadInput() async throws {
        try await Daemon.with(config: Self.config) { daemon in
            let assigned = try await daemon.fermata("card", "assign", "abc123", "playlist:Stories", "--volume-max", "25")
            #expect(assigned.status == 0, "\(assigned)")
            let list = try await daemon.fermata("card", "list")
            #expect(list.output.contains("ABC123  playlist:Stories, volume at most 25  (assigned)"), "\(list)")
            #expect(list.output.contains("0001234567  folder:Beta/Second, volume at most 30"), "\(list)")
            // A playlist that does not exist: the card changes nothing.
            try await daemon.ok("cardread ABC123")
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await daemon.status()["state"] == "stop")
            #expect(try await daemon.queue().isEmpty)
            #expect(try await daemon.fermata("card", "forget", "abc123").status == 0)
            let forgetConfigured = try await daemon.fermata("card", "forget", "7")
            #expect(forgetConfigured.status == 1 && forgetConfigured.stderr.contains("configuration file"), "\(forgetConfigured)")
            for bad in [["card", "assign", "12 3", "album:A"], ["card", "assign", "12", "radio:x"],
                        ["card", "assign", "12", "album:A", "--volume-max", "101"]] {
                let refused = try await daemon.fermata(arguments: bad)
                #expect(refused.status == 64, "\(bad): \(refused)")
            }
            let learnNothing = try await daemon.command("cardlearn \"album:A\"")
            #expect(learnNothing.ack?.contains("no unknown card") == true, "\(learnNothing)")
            let badAction = try await daemon.command("cardassign 5 \"action:fly\"")
            #expect(badAction.ack?.contains("is no action") == true, "\(badAction)")
        }
    }
}
