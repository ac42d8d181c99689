import Foundation
import Testing
import TestSupport

/// MPD's `swap` and `swapid` against the real daemon: clients that reorder the queue with them (python-mpd2's
/// `swap`, a drag-and-drop in some phone apps) got "unknown command". The playing entry plays on from where it
/// stands now, `plchangesposid` reports both moved entries, and the order is saved before the answer.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct QueueSwapTests {
    typealias M = MusicFixture

    @Test func swapAndSwapidReorderTheQueueWhilePlaying() async throws {
        try await Daemon.with { daemon async throws in
            for track in [M.uno, M.two, M.one] { try await daemon.ok("add \"\(track.path)\"") }
            let ids = try await daemon.ok("playlistinfo").all("Id")
            // The first entry repeats for as long as the test takes (a loaded machine must not let it end).
            try await daemon.ok("repeat 1")
            try await daemon.ok("single 1")
            try await daemon.ok("play 0")
            let before = try await daemon.status()["playlist"].flatMap(Int.init) ?? -1

            try await daemon.ok("swap 0 2")
            #expect(try await daemon.queue() == [M.one.path, M.two.path, M.uno.path])
            // The playing entry (id of position 0 before) is now at position 2 and still playing.
            let status = try await daemon.status()
            #expect(status["songid"] == ids[0] && status["song"] == "2" && status["state"] == "play", "\(status)")
            let changes = try await daemon.ok("plchangesposid \(before)")
            #expect(changes.all("cpos") == ["0", "2"] && changes.all("Id") == [ids[2], ids[0]], "\(changes)")

            try await daemon.ok("swapid \(ids[1]) \(ids[2])")
            #expect(try await daemon.queue() == [M.two.path, M.one.path, M.uno.path])

            let refused = [
                ("swap 0 3", "ACK [2@0] {swap} Bad song index"),
                ("swapid \(ids[0]) 999", "ACK [50@0] {swapid} No such song"),
                ("swap 0", "ACK [2@0] {swap} wrong number of arguments for \"swap\""),
            ]
            for (line, ack) in refused { #expect(try await daemon.command(line).ack == ack, "\(line)") }
            #expect(try await daemon.queue() == [M.two.path, M.one.path, M.uno.path], "a refused swap changes nothing")
            try await daemon.ok("stop")
        }
    }
}
