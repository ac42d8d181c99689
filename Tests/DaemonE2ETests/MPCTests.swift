import Foundation
import Synchronization
import Testing
import TestSupport

/// The real `mpc` (0.34, Debian) against the real `fermatad`: every mpc verb that maps to a command fermatad
/// implements, with mpc's exact output where it is deterministic and every change read back over the protocol.
/// Commands mpc 0.34 has no verb for are in `MPCTests+Protocol.swift`, sent over a raw connection.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct MPCTests {
    typealias M = MusicFixture
    static let modesOff = "volume:100%   repeat: off   random: off   single: off   consume: off\n"

    @Test func freshDaemonStatusStatsVersionOutputs() async throws {
        try await Daemon.with { daemon async throws in
            #expect(try await daemon.mpc("status").output == Self.modesOff)
            #expect(try await daemon.mpc().output == Self.modesOff)
            #expect(try await daemon.mpc("current").output == "")
            #expect(try await daemon.mpc("version").output == "mpd version: 0.24.0\n")
            #expect(try await daemon.mpc("outputs").output == "Output 1 (null) is enabled\n")
            let stats = try await daemon.mpc("stats")
            #expect(stats.status == 0)
            #expect(stats.output.matches(#"""
                Artists:      2
                Albums:       2
                Songs:        5

                Play Time:    0 days, 0:00:00
                Uptime:       0 days, 0:0\d:\d\d
                DB Updated:   \w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}
                DB Play Time: 0 days, 0:00:07

                """#), "\(stats.output)")
            #expect(!stats.output.contains("1970"), "the database has a scan time")
        }
    }

    @Test func queueEditing() async throws {
        try await Daemon.with { daemon async throws in
            #expect(try await daemon.mpc("add", "Alpha Band").status == 0)
            #expect(try await daemon.mpc("add", M.uno.path).status == 0)
            #expect(try await daemon.queue() == [M.one.path, M.two.path, M.uno.path])
            #expect(try await daemon.mpc("playlist").output == "Alpha Band - One\nAlpha Band - Two\nBeta - Uno\n")

            #expect(try await daemon.mpc("move", "1", "3").status == 0)
            #expect(try await daemon.queue() == [M.two.path, M.uno.path, M.one.path])
            #expect(try await daemon.mpc("playlist").output == "Alpha Band - Two\nBeta - Uno\nAlpha Band - One\n")

            #expect(try await daemon.mpc("del", "2").status == 0)
            #expect(try await daemon.queue() == [M.two.path, M.one.path])

            // Nothing current: mpc inserts at the top.
            #expect(try await daemon.mpc("insert", M.dos.path).status == 0)
            #expect(try await daemon.queue() == [M.dos.path, M.two.path, M.one.path])

            #expect(try await daemon.mpc("add", "Beta").status == 0)
            let before = try await daemon.queue()
            let version = try await daemon.status()["playlist"]
            #expect(try await daemon.mpc("shuffle").status == 0)
            let after = try await daemon.queue()
            #expect(after.sorted() == before.sorted() && after.count == 6)
            #expect(try await daemon.status()["playlist"] != version, "shuffle is a queue change")

            let cleared = try await daemon.mpc("clear")
            #expect(cleared.output == "volume:100%   repeat: off   random: off   single: off   consume: off\n")
            #expect(try await daemon.queue() == [])
            #expect(try await daemon.status()["playlistlength"] == "0")
        }
    }

    @Test func transport() async throws {
        try await Daemon.with { daemon async throws in
            #expect(try await daemon.mpc("add", "Alpha Band", "Beta").status == 0)
            // repeat + single hold the current song, so it is still current when the next command reads it.
            #expect(try await daemon.mpc("repeat", "on").status == 0)
            #expect(try await daemon.mpc("single", "on").status == 0)
            let held = "volume:100%   repeat: on    random: off   single: on    consume: off"

            let play = try await daemon.mpc("play", "3").output.lines
            #expect(play.count == 3 && play[0] == "Beta - Uno" && play[2] == held, "\(play)")
            #expect(play.count == 3 && play[1].matches(#"\[playing\] #3/5 +0:0[0-2]/0:02 \(\d+%\)"#), "\(play)")
            #expect(try await daemon.status()["state"] == "play")
            #expect(try await daemon.mpc("current").output == "Beta - Uno\n")
            #expect(try await daemon.mpc("queued").output == "Beta - Uno\n", "repeat + single: the same song again")

            let paused = try await daemon.mpc("pause").output.lines
            #expect(paused.count == 3 && paused[1].hasPrefix("[paused]  #3/5 "), "\(paused)")
            #expect(try await daemon.status()["state"] == "pause")
            let toggled = try await daemon.mpc("toggle").output.lines
            #expect(toggled.count == 3 && toggled[1].hasPrefix("[playing] #3/5 "), "\(toggled)")
            #expect(try await daemon.status()["state"] == "play")

            #expect(try await daemon.mpc("seek", "0:01").status == 0)
            let sought = try await daemon.status { Double($0["elapsed"] ?? "") ?? 0 >= 1 }
            #expect(sought["song"] == "2" && (Double(sought["elapsed"] ?? "") ?? 0) >= 1, "\(sought)")
            // Paused, then sought while paused: a loaded machine may take more than the second that is left of the
            // song between a seek and a pause (CI under load paused at 0:02).
            _ = try await daemon.pause(afterSeekingTo: 1.2)
            let frozen = try await daemon.mpc("status").output.lines
            #expect(frozen.count == 3 && frozen[1].matches(#"\[paused\]  #3/5   0:01/0:02 \(\d+%\)"#), "\(frozen)")
            try await daemon.ok("pause 0")

            #expect(try await daemon.mpc("next").status == 0)
            #expect(try await daemon.status { $0["song"] == "3" }["songid"] == "4")
            #expect(try await daemon.mpc("current").output == "Beta - Dos\n")
            #expect(try await daemon.mpc("prev").status == 0)
            #expect(try await daemon.status { $0["song"] == "2" }["songid"] == "3")

            #expect(try await daemon.mpc("stop").output == held + "\n")
            #expect(try await daemon.status()["state"] == "stop")
            #expect(try await daemon.mpc("play").status == 0)
            #expect(try await daemon.status { $0["state"] == "play" }["songid"] == "3")
            #expect(try await daemon.mpc("crop").status == 0)
            #expect(try await daemon.queue() == [M.uno.path])
            #expect(try await daemon.mpc("stop").status == 0)
        }
    }

    @Test func volumeModesAndReplayGain() async throws {
        try await Daemon.with { daemon async throws in
            #expect(try await daemon.mpc("volume", "40").output.hasPrefix("volume: 40%   repeat: off"))
            #expect(try await daemon.ok("getvol")["volume"] == "40")
            #expect(try await daemon.mpc("volume", "+5").status == 0)
            #expect(try await daemon.mpc("volume", "--", "-10").status == 0)
            #expect(try await daemon.mpc("volume").output == "volume: 35%\n")
            #expect(try await daemon.status()["volume"] == "35")

            for mode in ["repeat", "random", "single", "consume"] {
                #expect(try await daemon.mpc(mode, "on").status == 0)
            }
            #expect(try await daemon.mpc().output
                == "volume: 35%   repeat: on    random: on    single: on    consume: on \n")
            let on = try await daemon.status()
            #expect([on["repeat"], on["random"], on["single"], on["consume"]] == ["1", "1", "1", "1"])
            for mode in ["repeat", "random", "single", "consume"] {
                #expect(try await daemon.mpc(mode, "off").status == 0)
            }
            let off = try await daemon.status()
            #expect([off["repeat"], off["random"], off["single"], off["consume"]] == ["0", "0", "0", "0"])
            let once = try await daemon.mpc("single", "once")
            #expect(once.status == 0 && once.output.hasSuffix("single: once  consume: off\n"), "\(once)")
            #expect(try await daemon.mpc("single", "off").status == 0)

            #expect(try await daemon.mpc("crossfade").output == "crossfade: 0\n")
            #expect(try await daemon.mpc("crossfade", "0").status == 0)
            let fade = try await daemon.mpc("crossfade", "3")
            #expect(fade.status == 1 && fade.stderr == "MPD error: Fermata plays gaplessly; crossfade is always 0\n")
            #expect(try await daemon.status()["xfade"] ?? "0" == "0")

            for mode in ["track", "album", "off"] {
                #expect(try await daemon.mpc("replaygain", mode).status == 0)
                #expect(try await daemon.mpc("replaygain").output == "replay_gain_mode: \(mode)\n")
                #expect(try await daemon.ok("replay_gain_status")["replay_gain_mode"] == mode)
            }
        }
    }

    /// `mpc idle playlist` returns once another client changes the queue (changes are repeated until it does, as
    /// there is no telling from outside when mpc has sent `idle`).
    @Test func idleWakesOnAQueueChange() async throws {
        try await Daemon.with { daemon async throws in
            let done = Atomic(false)
            let idle = Task {
                defer { done.store(true, ordering: .releasing) }
                return try await daemon.mpc("idle", "playlist")
            }
            // Until mpc has started, sent `idle` and been woken: the bound is a hang detector (100 adds, about 10 s,
            // were a bound on mpc's start, which a loaded machine can overrun).
            var adds = 0
            let deadline = ContinuousClock.now + Patience.stall
            while !done.load(ordering: .acquiring) && ContinuousClock.now < deadline {
                try await daemon.ok("add \"\(M.tres.path)\"")
                adds += 1
                try await Task.sleep(for: .milliseconds(100))
            }
            let result = try await idle.value
            #expect(result.status == 0 && result.output == "playlist\n", "\(result)")
            #expect(try await daemon.queue().count == adds)
        }
    }

    @Test func outputs() async throws {
        try await Daemon.with { daemon async throws in
            #expect(try await daemon.mpc("disable", "1").output == "Output 1 (null) is disabled\n")
            #expect(try await daemon.ok("outputs")["outputenabled"] == "0")
            #expect(try await daemon.mpc("outputs").output == "Output 1 (null) is disabled\n")
            #expect(try await daemon.mpc("enable", "null").output == "Output 1 (null) is enabled\n")
            #expect(try await daemon.ok("outputs")["outputenabled"] == "1")
            #expect(try await daemon.mpc("toggleoutput", "1").output == "Output 1 (null) is disabled\n")
            #expect(try await daemon.ok("outputs")["outputenabled"] == "0")
            #expect(try await daemon.mpc("toggleoutput", "1").output == "Output 1 (null) is enabled\n")
            let missing = try await daemon.mpc("enable", "2")
            #expect(missing.status != 0, "\(missing)")
            #expect(try await daemon.ok("outputs").all("outputid") == ["0"])
        }
    }
}
