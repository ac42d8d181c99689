import Foundation
import Testing
import TestSupport

/// Practice sections through the real daemon: added, saved from the loop, listed, played by number, by name and by
/// next; the CLI's list; bad input refused with a reason; the time spent in a section reported under its name by
/// `practice`, `fermata practice` and `fermata practice --csv`.
@Suite struct SectionsE2ETests {
    /// The seconds `practice` reports in the loop region named `section` (0 when there is none yet).
    static func seconds(in section: String, _ report: MPDReply) -> Double {
        guard let at = report.pairs.firstIndex(where: { $0.key == "section" && $0.value == section }),
              let line = report.pairs[at...].first(where: { $0.key == "seconds" }) else { return 0 }
        return Double(line.value) ?? 0
    }

    /// Polls `practice` (every 100 ms) until `section` holds `seconds` of practice (at most `Patience.stall`, a hang
    /// detector: the seconds are played in real time, but the daemon's recorder and this poll can both wait for a
    /// core on a loaded machine).
    static func practise(_ section: String, seconds: Double, _ daemon: Daemon) async throws {
        let deadline = ContinuousClock.now + Patience.stall
        while Self.seconds(in: section, try await daemon.ok("practice")) < seconds, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test func sectionsThroughTheProtocolAndTheCLI() async throws {
        try await Daemon.with { daemon async throws in
            try await daemon.ok("add \"\(MusicFixture.uno.path)\"")
            try await daemon.ok("repeat 1")
            try await daemon.ok("single 1")  // repeat + single: the track plays for ever
            try await daemon.ok("play 0")
            _ = try await daemon.status { $0["state"] == "play" && (Double($0["elapsed"] ?? "") ?? 0) > 0.05 }

            try await daemon.ok("section_add intro 0.2 0.6 2")
            try await daemon.ok("section_add \"the solo\" 1.0 1.5 forever 80")
            try await daemon.ok("loop_set 0.7 0.9 3")
            try await daemon.ok("section_save bridge")
            let sections = try await daemon.ok("sections")
            #expect(sections.all("section") == ["intro", "the solo", "bridge"], "\(sections)")
            #expect(sections.all("start") == ["0.200", "1.000", "0.700"] && sections.all("passes") == ["2", "4"])
            #expect(sections["active_section"] == "3", "the loop is the section just saved from it")

            try await daemon.ok("section_play 2")
            var loop = try await daemon.ok("loop_status")
            #expect(loop["loop_start"] == "1.000" && loop["loop_end"] == "1.500" && loop["tempo"] == "80", "\(loop)")
            try await daemon.ok("section_next")
            loop = try await daemon.ok("loop_status")
            #expect(loop["loop_start"] == "0.700" && loop["loop_end"] == "0.900", "\(loop)")
            try await daemon.ok("section_play intro")
            #expect(try await daemon.ok("sections")["active_section"] == "1")
            try await daemon.ok("section_previous")
            #expect(try await daemon.ok("sections")["active_section"] == "3", "before the first, the last")

            for (line, reason) in [("section_play 9", "no section 9"), ("section_add x 2 1", "later end"),
                                   ("section_delete 0", "sections count from 1"), ("section_play coda", "no section named"),
                                   ("section_add y 1 2 0", "1 to 1000 times"), ("section_add z 1 2 3 151", "50-150")] {
                let reply = try await daemon.command(line)
                #expect(reply.ack?.contains(reason) == true, "\(line): \(reply)")
            }
            let cli = try await daemon.fermata("section")
            #expect(cli.status == 0 && cli.output.contains("▶ 3. bridge  0.700-0.900 s  ×4  100 %"), "\(cli)")
            #expect(cli.output.contains("  2. the solo  1.000-1.500 s  for ever  80 %"), "\(cli)")
            let bad = try await daemon.fermata("section", "add", "x", "2", "1")
            #expect(bad.status == 64, "\(bad)")

            // Practice in the bridge until the statistics hold 1.5 s of it (a condition, not a fixed wait).
            try await Self.practise("bridge", seconds: 1.5, daemon)
            try await daemon.ok("stop")
            let report = try await daemon.ok("practice")
            // Most practised first: the bridge; the moments in the others count under their names too.
            #expect(report.all("section").first == "bridge", "\(report)")
            #expect(Set(report.all("section")) == ["bridge", "intro", "the solo"], "\(report)")
            let text = try await daemon.fermata("practice")
            #expect(text.output.contains("bridge (loop 0:00.700-0:00.900)"), "\(text)")
            let csv = try await daemon.fermata("practice", "--csv", "--days", "1")
            #expect(csv.output.hasPrefix("day,file,title,artist,section,loop_start,loop_end,seconds\n"), "\(csv)")
            #expect(csv.output.contains(",Uno,Beta,bridge,0.700,0.900,"), "\(csv)")

            // A stopped box after `clear` and `add` plays a section of the track `play` would start (issue 35: it
            // was refused, "this track has no sections": no entry was current for the sections to be given to).
            try await daemon.ok("clear")
            try await daemon.ok("add \"\(MusicFixture.uno.path)\"")
            try await daemon.ok("section_play intro")
            loop = try await daemon.ok("loop_status")
            #expect(loop["loop_start"] == "0.200" && loop["loop_end"] == "0.600", "\(loop)")
            #expect(try await daemon.ok("status")["state"] == "play")
            try await daemon.ok("clear")
            try await daemon.ok("add \"\(MusicFixture.uno.path)\"")
            let played = try await daemon.fermata("section", "play", "the solo")
            #expect(played.status == 0, "\(played)")
            loop = try await daemon.ok("loop_status")
            #expect(loop["loop_start"] == "1.000" && loop["tempo"] == "80", "\(loop)")
        }
    }

    /// Sections queued as entries of their own, saved in a stored playlist by name and loaded back (as edited since),
    /// with MPD's `Range:`; `rangeid` as MPD has it (the entry playing refused); the CLI's `section queue`.
    @Test func queuedSectionsAndStoredPlaylists() async throws {
        try await Daemon.with { daemon async throws in
            let uno = MusicFixture.uno.path
            try await daemon.ok("add \"\(uno)\"")
            // repeat + single: the short track plays for ever (a loaded machine once let it end before the pause).
            try await daemon.ok("repeat 1")
            try await daemon.ok("single 1")
            try await daemon.ok("play 0")
            _ = try await daemon.status { $0["state"] == "play" }
            try await daemon.ok("pause 1")
            try await daemon.ok("section_add intro 0.2 0.6 2")
            try await daemon.ok("section_add \"the solo\" 1.0 1.5 4 80")

            let solo = try await daemon.ok("section_queue \"\(uno)\" \"the solo\"")["Id"]
            #expect(solo != nil)
            let cli = try await daemon.fermata("section", "queue", "intro")
            #expect(cli.status == 0 && cli.output.contains("queued intro of \(uno)"), "\(cli)")
            var info = try await daemon.ok("playlistinfo")
            #expect(info.all("file") == [uno, uno, uno])
            #expect(info.all("Range") == ["1.000-1.500", "0.200-0.600"], "\(info)")
            #expect(info.all("Section") == ["the solo", "intro"] && info.all("Passes") == ["4", "2"], "\(info)")
            #expect(info.all("Tempo") == ["80"], "\(info)")
            let listing = try await daemon.fermata("queue")
            #expect(listing.output.contains("[the solo ×4 80 %]") && listing.output.contains("[intro ×2]"), "\(listing)")

            // MPD's rangeid: the entry playing is refused; another entry takes a range, `:` takes it away.
            let current = try await daemon.ok("currentsong")["Id"] ?? ""
            let refused = try await daemon.command("rangeid \(current) 1:2")
            #expect(refused.ack?.contains("Cannot edit the current song") == true, "\(refused)")
            for bad in ["2:1", "x:", "-1:2", "1", "nan:", "1e3:"] {
                let reply = try await daemon.command("rangeid \(solo ?? "") \(bad)")
                #expect(reply.ack?.contains("Bad range") == true, "rangeid \(bad): \(reply)")
            }

            try await daemon.ok("save set")
            let listed = try await daemon.ok("listplaylistinfo set")
            #expect(listed.all("Range") == ["1.000-1.500", "0.200-0.600"], "\(listed)")
            // The section edited after the playlist was saved: the playlist plays it as it is now.
            try await daemon.ok("section_add \"the solo\" 1.1 1.7 3")
            try await daemon.ok("clear")
            try await daemon.ok("load set")
            info = try await daemon.ok("playlistinfo")
            #expect(info.all("Range") == ["1.100-1.700", "0.200-0.600"], "\(info)")
            #expect(info.all("Passes") == ["3", "2"] && info.all("Tempo").isEmpty, "\(info)")
            let entries = info.all("Id")
            // The whole track, the solo, the intro: the solo whole again, the first from 0.5 s to its end.
            try await daemon.ok("rangeid \(entries[1]) :")
            #expect(try await daemon.ok("playlistinfo").all("Range") == ["0.200-0.600"])
            try await daemon.ok("rangeid \(entries[0]) 0.5:")
            #expect(try await daemon.ok("playlistinfo").all("Range") == ["0.500-", "0.200-0.600"])

            // Practice on a queued section counts under its name (the intro, 0.2-0.6 s twice, for ever under repeat
            // single), with no loop set by the listener.
            try await daemon.ok("playid \(entries[2])")
            try await Self.practise("intro", seconds: 0.5, daemon)
            let status = try await daemon.ok("status")
            #expect(Double(status["elapsed"] ?? "") ?? 0 >= 0.2, "a queued section plays from its start: \(status)")
            try await daemon.ok("stop")
            #expect(Self.seconds(in: "intro", try await daemon.ok("practice")) >= 0.5)
        }
    }
}
