import Foundation
import TestSupport
import Testing

/// The real `fermata` CLI against the real `fermatad` over its Unix socket (`--socket`): exact output of `status`
/// (stopped, paused at a known second, playing inside an A-B loop) and `queue list`, transport and volume, and the
/// documented exit statuses (0 done, 1 refused by fermatad, 3 unreachable; bad usage is ArgumentParser's 64).
@Suite(.serialized, .timeLimit(.minutes(10)))
struct CLITests {
    typealias M = MusicFixture
    static let modes = "volume   100  repeat off  random off  consume off\n"
    static let list = """
            1  Alpha Band - One  0:01
            2  Alpha Band - Two  0:01
            3  Beta - Uno  0:02
            4  Beta - Dos  0:02
            5  Beta - Tres  0:00

        """

    @Test func statusStoppedAndQueueEditing() async throws {
        try await Daemon.with { daemon async throws in
            let empty = try await daemon.fermata("status")
            #expect(empty.status == 0 && empty.output == "stopped  queue: 0 songs\n" + Self.modes, "\(empty)")
            #expect(try await daemon.fermata("queue", "list").output == "")

            #expect(try await daemon.fermata("queue", "add", "Alpha Band", "Beta").status == 0)
            #expect(try await daemon.queue() == M.tracks.map(\.path))
            #expect(try await daemon.fermata("queue", "list").output == Self.list)
            #expect(try await daemon.fermata("queue").output == Self.list, "list is the default")
            #expect(try await daemon.fermata("status").output == "stopped  queue: 5 songs\n" + Self.modes)

            #expect(try await daemon.fermata("queue", "move", "1", "3").status == 0)
            #expect(try await daemon.queue() == [M.two.path, M.uno.path, M.one.path, M.dos.path, M.tres.path])
            #expect(try await daemon.fermata("queue", "rm", "5", "1").status == 0)
            #expect(try await daemon.queue() == [M.uno.path, M.one.path, M.dos.path])
            #expect(try await daemon.fermata("queue", "list").output
                == "    1  Beta - Uno  0:02\n    2  Alpha Band - One  0:01\n    3  Beta - Dos  0:02\n")
            let beta = [M.uno, M.dos, M.tres].map { $0.path + "\n" }.joined()
            #expect(try await daemon.fermata("search", "beta").output == beta)
            #expect(try await daemon.fermata("queue", "shuffle", "on").status == 0)
            #expect(try await daemon.status()["random"] == "1")
            #expect(try await daemon.fermata("queue", "shuffle", "off").status == 0)
            #expect(try await daemon.status()["random"] == "0")
            #expect(try await daemon.fermata("queue", "clear").status == 0)
            #expect(try await daemon.queue() == [])
        }
    }

    @Test func statusPausedAtAKnownSecondAndTransport() async throws {
        try await Daemon.with { daemon async throws in
            #expect(try await daemon.fermata("queue", "add", "Alpha Band", "Beta").status == 0)
            try await daemon.ok("repeat 1")
            try await daemon.ok("single 1")  // hold the current song
            #expect(try await daemon.fermata("play", "3").status == 0)
            #expect(try await daemon.status { $0["state"] == "play" }["song"] == "2")
            _ = try await daemon.pause(afterSeekingTo: 1.2)
            let status = try await daemon.fermata("status")
            #expect(status.status == 0 && status.output == """
                paused  3/5  Beta - Uno
                time     0:01 / 0:02
                volume   100  repeat track  random off  consume off

                """, "\(status)")
            let list = try await daemon.fermata("queue", "list").output.lines
            #expect(list.count == 5 && list[2] == ">   3  Beta - Uno  0:02", "\(list)")

            let json = try await daemon.fermata("status", "--json")
            let object = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any], "\(json)")
            #expect(object["state"] as? String == "pause" && object["position"] as? Int == 3)
            #expect(object["title"] as? String == "Uno" && object["repeat"] as? String == "track")
            #expect((1.2..<2).contains(object["elapsed"] as? Double ?? 0), "\(object)")

            #expect(try await daemon.fermata("pause").status == 0)
            #expect(try await daemon.status { $0["state"] == "play" }["state"] == "play")
            #expect(try await daemon.fermata("next").status == 0)
            #expect(try await daemon.status { $0["song"] == "3" }["song"] == "3")
            #expect(try await daemon.fermata("prev").status == 0)
            #expect(try await daemon.status { $0["song"] == "2" }["song"] == "2")
            #expect(try await daemon.fermata("seek", "1").status == 0)
            let sought = try await daemon.status { Double($0["elapsed"] ?? "") ?? 0 >= 1 }
            #expect((Double(sought["elapsed"] ?? "") ?? 0) >= 1, "\(sought)")
            #expect(try await daemon.fermata("stop").status == 0)
            #expect(try await daemon.status()["state"] == "stop")
            let stopped = try await daemon.fermata("status").output.lines
            #expect(stopped.first?.hasPrefix("stopped  ") == true, "\(stopped)")
        }
    }

    @Test func volume() async throws {
        try await Daemon.with { daemon async throws in
            let set = try await daemon.fermata("volume", "40")
            #expect(set.status == 0 && set.output == "volume 40\n", "\(set)")
            #expect(try await daemon.status()["volume"] == "40")
            #expect(try await daemon.fermata("volume", "+5").output == "volume 45\n")
            // A negative step, with the `--` a shell user types before it (it used to be taken as a TIME word).
            #expect(try await daemon.fermata("volume", "--", "-10").output == "volume 35\n")
            #expect(try await daemon.fermata("volume", "+10").output == "volume 45\n")
            #expect(try await daemon.fermata("volume").output == "volume 45\n")
            #expect(try await daemon.fermata("status").output.contains("volume   45  "))
        }
    }

    /// `doctor` with no configuration file said "configuration /etc/fermata/fermata.toml is valid"; a bad file is
    /// named with its line and exit status 4.
    @Test func doctorSaysWhetherAConfigurationFileIsUsed() async throws {
        try await Daemon.with { daemon async throws in
            let dir = try TemporaryDirectory()
            let missing = try await daemon.fermata("doctor", "--config", dir.file("none.toml"))
            #expect(missing.output.contains("ok    no configuration file at \(dir.file("none.toml")): the built-in defaults are used"),
                    "\(missing)")
            #expect(missing.output.contains("ok    fermatad answers on its control socket"), "\(missing)")
            try "[audio]\nvolume = 500\n".write(toFile: dir.file("bad.toml"), atomically: true, encoding: .utf8)
            let bad = try await daemon.fermata("doctor", "--config", dir.file("bad.toml"))
            #expect(bad.status == 4)
            #expect(bad.output.contains("FIX   configuration: \(dir.file("bad.toml")):2: audio.volume: must be between 0 and 100"),
                    "\(bad)")
        }
    }

    /// `fermata web password` with the password on a pipe (as a script gives it): the owner's and the guest's are set
    /// through the socket, and a removed one is gone. It trapped ("Can't read a value from a parsable argument
    /// definition") on a ConnectionOptions made by hand.
    @Test func webPasswordsFromAPipe() async throws {
        try await Daemon.with { daemon async throws in
            let socket = daemon.socketPath
            func web(_ arguments: [String], input: String?) async throws -> ProgramResult {
                try await onThread {
                    try ProgramResult.run(Programs.built("fermata"), ["web", "password"] + arguments + ["--socket", socket],
                                          environment: Programs.environment, input: input.map { Data($0.utf8) })
                }
            }
            let owner = try await web([], input: "owner-secret-1\n")
            #expect(owner.status == 0 && owner.output.contains("the owner's web password is set"), "\(owner)")
            let guest = try await web(["--guest"], input: "guest-secret-1\n")
            #expect(guest.status == 0 && guest.output.contains("the guest's web password is set"), "\(guest)")
            let short = try await web([], input: "short\n")
            #expect(short.status != 0 && short.stderr.contains("8"), "too short: \(short)")
            let removed = try await web(["--guest", "--remove"], input: nil)
            #expect(removed.status == 0 && removed.output.contains("the guest's web password is removed"), "\(removed)")
        }
    }

    @Test func loopShowsInStatus() async throws {
        try await Daemon.with { daemon async throws in
            try await daemon.ok("add \"\(M.uno.path)\"")
            let started = try await daemon.command("command_list_begin\nplay 0\npause 1\ncommand_list_end")
            #expect(started.isOK)
            #expect(try await daemon.fermata("loop", "set", "0.2", "0.4").status == 0)
            #expect(try await daemon.fermata("pause").status == 0)  // resume: from near 0 into the loop, for ever
            _ = try await daemon.status { (Double($0["elapsed"] ?? "") ?? 0) >= 0.2 }
            let looping = try await daemon.fermata("status")
            #expect(looping.output == """
                playing  1/1  Beta - Uno
                time     0:00 / 0:02
                volume   100  repeat off  random off  consume off
                loop     0:00.200 - 0:00.400

                """, "\(looping)")
            #expect(try await daemon.ok("loop_status")["loop_start"] != nil)
            // A signed step: `-100` used to be refused as an unknown option.
            #expect(try await daemon.fermata("loop", "nudge", "b", "-100").status == 0)
            #expect(try await daemon.ok("loop_status")["loop_end"].flatMap(Double.init).map { abs($0 - 0.3) < 0.001 } == true)
            #expect(try await daemon.fermata("loop", "clear").status == 0)
            #expect(try await daemon.ok("loop_status")["loop_start"] == nil)
            #expect(try await daemon.fermata("status").output.contains("loop") == false)
            try await daemon.ok("stop")
        }
    }

    @Test func errorMessagesAndExitStatuses() async throws {
        try await Daemon.with { daemon async throws in
            let missing = daemon.state + "/nobody.sock"
            let fermata = Programs.built("fermata")
            let unreachable = try await onThread { try Programs.run(fermata, ["status", "--socket", missing]) }
            #expect(unreachable.status == 3 && unreachable.output.isEmpty, "\(unreachable)")
            let reason = "fermata: cannot reach fermatad: \(missing): No such file or directory"
            #expect(unreachable.stderr.hasPrefix(reason), "\(unreachable)")

            let refused = try await daemon.fermata("queue", "rm", "99")
            #expect(refused.status == 1 && refused.stderr == "fermata: delete: Bad song index\n", "\(refused)")
            let noFile = try await daemon.fermata("queue", "add", "nosuch")
            #expect(noFile.status == 1 && noFile.stderr == "fermata: add: No such directory\n", "\(noFile)")
            let notPlaying = try await daemon.fermata("loop", "set", "0.2", "0.4")
            #expect(notPlaying.status == 1 && notPlaying.stderr == "fermata: loop_set: Not playing\n", "\(notPlaying)")
            #expect(try await daemon.queue() == [])

            // ArgumentParser exits with EX_USAGE (64) for bad usage, not the 2 FermataCommand's help promises.
            for words in [["queue", "rm", "abc"], ["bogus"], ["volume", "loud"], ["seek", "x"], ["loop", "zz"],
                          ["queue", "shuffle", "maybe"]] {
                let usage = try await daemon.fermata(arguments: words)
                #expect(usage.status == 64 && usage.stderr.hasPrefix("Error: "), "\(words): \(usage)")
            }
        }
    }

    /// `fermata volume -N` and `fermata seek -N` are documented (`+N / -N`); ArgumentParser must not take `-10` for
    /// an option.
    @Test func relativeValuesWithAMinusSign() async throws {
        try await Daemon.with { daemon async throws in
            try await daemon.ok("setvol 50")
            let down = try await daemon.fermata("volume", "-10")
            #expect(down.status == 0 && down.output == "volume 40\n", "\(down)")
            try await daemon.ok("add \"\(M.uno.path)\"")
            try await daemon.ok("play 0")
            let back = try await daemon.fermata("seek", "-1")
            #expect(back.status == 0, "\(back)")
            try await daemon.ok("stop")
        }
    }
}
