import Foundation
import Testing
import TestSupport

/// A clumsy seek: paused, `mpc seek 0:30` on a 2 s track, then `mpc play`. The daemon moved to the next song and
/// showed it playing at 0:00 for ever while its real-time output thread spun at 100 % of a core: a drop while paused
/// left the null output paused, and nothing unpaused it (ALSA's drop + prepare leaves a device unpaused, which the
/// engine relies on; the null output now does the same).
@Suite(.serialized, .timeLimit(.minutes(10)))
struct SeekPastTheEndTests {
    typealias M = MusicFixture

    @Test func aSeekPastTheEndWhilePausedPlaysOnAfterResume() async throws {
        try await Daemon.with { daemon async throws in
            for track in [M.uno, M.dos] { try await daemon.ok("add \"\(track.path)\"") }
            try await daemon.ok("repeat 1")  // something always plays, however long a busy machine takes
            try await daemon.ok("play 0")
            _ = try await daemon.status { (Double($0["elapsed"] ?? "") ?? 0) > 0.2 }
            try await daemon.ok("pause 1")
            try await daemon.ok("seek 0 30")
            try await daemon.ok("play")
            // Heard and moving: past 0.5 s and inside a 2-s track (the requested 30 s, shown until the engine hears
            // the start, is not progress).
            func moving(_ reply: MPDReply) -> Bool {
                reply["state"] == "play" && (0.5..<2.0).contains(Double(reply["elapsed"] ?? "") ?? 0)
            }
            let reply = try await daemon.status(until: moving)
            #expect(moving(reply), "frozen after the seek past the end: \(reply)")
            try await daemon.ok("stop")
        }
    }
}
