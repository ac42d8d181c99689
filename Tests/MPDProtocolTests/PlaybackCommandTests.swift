import FermataCore
import MPDProtocol
import MPDTestSupport
import Testing

@Suite struct PlaybackCommandTests {
    /// A driver with the whole sample library queued.
    func queued() async -> SessionDriver {
        var driver = SessionDriver()
        _ = await driver.send("add /")
        return driver
    }

    @Test func statusWhenStopped() async {
        var driver = SessionDriver()
        #expect(
            await driver.send("status") == """
                volume: 100
                repeat: 0
                random: 0
                single: 0
                consume: 0
                partition: default
                playlist: 1
                playlistlength: 0
                mixrampdb: 0
                state: stop
                OK

                """)
    }

    @Test func statusWhilePlaying() async {
        var driver = await queued()
        _ = await driver.send("play 1\nseekcur 12.5")
        #expect(
            await driver.send("status") == """
                volume: 100
                repeat: 0
                random: 0
                single: 0
                consume: 0
                partition: default
                playlist: 2
                playlistlength: 5
                mixrampdb: 0
                state: play
                song: 1
                songid: 2
                time: 13:240
                elapsed: 12.500
                bitrate: 1000
                duration: 240.250
                audio: 44100:16:2
                nextsong: 2
                nextsongid: 3
                OK

                """)
    }

    @Test func transportMapsToControlActions() async {
        var driver = await queued()
        let output = await driver.send(
            """
            play 2
            pause
            pause 0
            pause 1
            playid 1
            next
            previous
            seek 3 20
            seekid 3 5
            seekcur +3
            seekcur -1.5
            stop
            play
            """)
        #expect(output == String(repeating: "OK\n", count: 13))
        #expect(
            await driver.backend.performed == [
                .playEntry(3), .togglePause, .resume, .pause, .playEntry(1), .skipPlaying(forward: true),
                .skipPlaying(forward: false),
                .seekEntry(4, seconds: 20), .seekEntry(3, seconds: 5), .seekBy(seconds: 3), .seekBy(seconds: -1.5),
                .stop, .play,
            ])
    }

    /// MPD plays the song `next`/`previous` lead to even when paused (issue 16): one action that plays what it skips
    /// to (issue 35: it was status, skip, status, resume). At the end of the queue `next` stops, and stays stopped.
    @Test func nextAndPreviousWhilePausedPlay() async throws {
        var driver = await queued()
        #expect(await driver.send("play 1\npause 1\nnext") == "OK\nOK\nOK\n")
        var status = try await driver.backend.status()
        #expect(status.player.state == .playing && status.songPosition == 2)
        #expect(await driver.send("pause 1\nprevious") == "OK\nOK\n")
        status = try await driver.backend.status()
        #expect(status.player.state == .playing && status.songPosition == 1)
        #expect(await driver.send("play 4\npause 1\nnext") == "OK\nOK\nOK\n")
        #expect(try await driver.backend.status().player.state == .stopped)
        #expect(await driver.backend.performed.suffix(3) == [.playEntry(5), .pause, .skipPlaying(forward: true)])
    }

    /// MPD's `PlayNext`/`PlayPrevious` refuse a stopped player (`PlaylistError::NotPlaying`).
    @Test func nextAndPreviousWhileStoppedAreNotPlaying() async {
        var driver = await queued()
        #expect(await driver.send("next") == "ACK [55@0] {next} Not playing\n")
        #expect(await driver.send("play 1\nstop\nprevious") == "OK\nOK\nACK [55@0] {previous} Not playing\n")
        #expect(await driver.backend.performed == [.playEntry(2), .stop])
    }

    /// MPD's `PlayPosition`/`PlayId`: `play` of an empty queue does nothing; a negative position other than -1 is
    /// `Bad song index`, such an id `No such song`.
    @Test func playOfAnEmptyQueueAndNegativeArguments() async {
        var driver = SessionDriver()
        #expect(await driver.send("play\nplay -1\nplayid") == "OK\nOK\nOK\n")
        #expect(await driver.send("play -2") == "ACK [2@0] {play} Bad song index\n")
        #expect(await driver.send("playid -2") == "ACK [50@0] {playid} No such song\n")
        #expect(await driver.backend.performed.isEmpty)
    }

    @Test func badPositionsAndIds() async {
        var driver = await queued()
        #expect(await driver.send("play 5") == "ACK [2@0] {play} Bad song index\n")
        #expect(await driver.send("playid 77") == "ACK [50@0] {playid} No such song\n")
        #expect(await driver.send("seek 9 1") == "ACK [2@0] {seek} Bad song index\n")
        #expect(await driver.send("seekcur x") == "ACK [2@0] {seekcur} Float expected: x\n")
        #expect(await driver.send("play -1") == "OK\n")
    }

    @Test func volumeCommands() async {
        var driver = SessionDriver()
        #expect(
            await driver.send("setvol 30\nvolume +5\ngetvol\nvolume -40\ngetvol")
                == "OK\nOK\nvolume: 35\nOK\nOK\nvolume: 0\nOK\n")
        #expect(await driver.send("setvol 101") == "ACK [2@0] {setvol} Number too large: 101\n")
    }

    /// MPD's repeat/single pair and Fermata's RepeatMode + single, both directions.
    @Test(arguments: [
        ("repeat 1", RepeatMode.queue, false, "repeat: 1", "single: 0"),
        ("single 1", RepeatMode.off, true, "repeat: 0", "single: 1"),
        ("repeat 1\nsingle 1", RepeatMode.track, false, "repeat: 1", "single: 1"),
        ("single 1\nrepeat 1", RepeatMode.track, false, "repeat: 1", "single: 1"),
        ("repeat 1\nsingle 1\nrepeat 0", RepeatMode.off, true, "repeat: 0", "single: 1"),
        ("repeat 1\nsingle 1\nsingle 0", RepeatMode.queue, false, "repeat: 1", "single: 0"),
    ])
    func repeatAndSingleMapping(
        commands: String, mode: RepeatMode, single: Bool, repeatLine: String, singleLine: String
    ) async throws {
        var driver = SessionDriver()
        _ = await driver.send(commands)
        let status = try await driver.backend.status()
        #expect(status.player.repeatMode == mode && status.player.single == single)
        let text = await driver.send("status")
        #expect(text.contains(repeatLine + "\n") && text.contains(singleLine + "\n"))
    }

    /// `single oneshot` reads back as `oneshot`; `repeat` keeps it (as MPD), `single 0|1` replaces it.
    @Test func singleOneshotIsReportedKeptByRepeatAndReplacedBySingle() async {
        var driver = SessionDriver()
        #expect(await driver.send("single oneshot") == "OK\n")
        #expect(await driver.send("status").contains("\nsingle: oneshot\n"))
        #expect(await driver.send("repeat 1\nstatus").contains("\nrepeat: 1\nrandom: 0\nsingle: oneshot\n"))
        #expect(await driver.send("repeat 0\nstatus").contains("\nrepeat: 0\nrandom: 0\nsingle: oneshot\n"))
        #expect(await driver.send("single 1\nstatus").contains("\nsingle: 1\n"))
        #expect(await driver.send("single oneshot\nsingle 0\nstatus").contains("\nsingle: 0\n"))
    }

    @Test func optionsAndReplayGain() async throws {
        var driver = SessionDriver()
        #expect(
            await driver.send("random 1\nconsume 1\ncrossfade 3\nreplay_gain_mode album\nreplay_gain_status")
                == "OK\nOK\nOK\nOK\nreplay_gain_mode: album\nOK\n")
        let status = await driver.send("status")
        #expect(status.contains("random: 1\n") && status.contains("consume: 1\n") && status.contains("xfade: 3\n"))
        #expect(
            await driver.send("replay_gain_mode loud") == "ACK [2@0] {replay_gain_mode} Unrecognized replay gain mode\n"
        )
    }

    @Test func currentsongAndStats() async {
        var driver = await queued()
        #expect(await driver.send("currentsong") == "OK\n")
        _ = await driver.send("play 4")
        #expect(
            await driver.send("currentsong") == """
                file: loose.wav
                Last-Modified: 2023-11-14T22:46:44Z
                Format: 44100:16:1
                Artist: Unknown
                Album: Singles
                AlbumArtist: Unknown
                Title: Loose
                Track: 1
                Time: 10
                duration: 10.000
                Pos: 4
                Id: 5
                OK

                """)
        #expect(
            await driver.send("stats") == """
                uptime: 100
                playtime: 0
                artists: 3
                albums: 4
                songs: 5
                db_playtime: 900
                db_update: 1700000000
                OK

                """)
    }

    @Test func fermataLoopCommands() async {
        var driver = await queued()
        _ = await driver.send("play 0\nseekcur 2")
        #expect(
            await driver.send("loop_a\nseekcur 4\nloop_b\nloop_status")
                == "OK\nOK\nOK\nloop_start: 2.000\nloop_end: 4.000\ntempo: 100\ntranspose: 0\nOK\n")
        #expect(await driver.send("loop_nudge b -500\nloop_status") == "OK\nloop_start: 2.000\nloop_end: 3.500\ntempo: 100\ntranspose: 0\nOK\n")
        #expect(
            await driver.send("loop_set 1 2.5 3\nloop_status")
                == "OK\nloop_start: 1.000\nloop_end: 2.500\nloop_repeat: 3\ntempo: 100\ntranspose: 0\nOK\n")
        #expect(await driver.send("loop_nudge c 1") == "ACK [2@0] {loop_nudge} loop end must be \"a\" or \"b\"\n")
        #expect(await driver.send("loop_clear\nloop_status\nloop_cycle") == "OK\ntempo: 100\ntranspose: 0\nOK\nOK\n")
        #expect(await driver.backend.performed.suffix(2) == [.loopClear, .loopCycle])
    }

    @Test func tempoAndSpeedTrainerCommands() async {
        var driver = await queued()
        #expect(await driver.send("tempo") == "tempo: 100\nOK\n")
        #expect(await driver.send("tempo 80\ntempo") == "OK\ntempo: 80\nOK\n")
        #expect(await driver.send("tempo -10\ntempo +5") == "OK\nOK\n")
        #expect(await driver.backend.performed.suffix(3) == [.setTempo(percent: 80), .changeTempo(by: -10), .changeTempo(by: 5)])
        #expect(await driver.send("tempo fast") == "ACK [2@0] {tempo} tempo must be a percentage (50-150) or +N/-N\n")
        #expect(await driver.send("speed_trainer 70 5 2 100\nspeed_trainer off") == "OK\nOK\n")
        let plan = SpeedTrainerPlan(startPercent: 70, stepPercent: 5, everyPasses: 2, ceilingPercent: 100)
        #expect(await driver.backend.performed.suffix(2) == [.speedTrainer(plan), .speedTrainer(nil)])
        #expect(await driver.send("speed_trainer again") == "ACK [2@0] {speed_trainer} no step trainer is running\n")
        #expect(await driver.send("speed_trainer 70 5 2 100 fallback\nspeed_trainer again") == "OK\nOK\n")
        var fallback = plan
        fallback.fallsBack = true
        #expect(await driver.backend.performed.suffix(2) == [.speedTrainer(fallback), .trainerAgain])
        #expect(await driver.send("speed_trainer 90 5 2 80") == "ACK [2@0] {speed_trainer} the ceiling must not be below the start\n")
        #expect(await driver.send("speed_trainer 70 5") == "ACK [2@0] {speed_trainer} speed_trainer START STEP EVERY TARGET [fallback], off, or again\n")
    }

    @Test func countInCommand() async {
        var driver = await queued()
        #expect(await driver.send("count_in 4 120 each\ncount_in 2\ncount_in 3 tag\ncount_in off") == "OK\nOK\nOK\nOK\n")
        #expect(await driver.backend.performed.suffix(4) == [
            .countIn(CountInPlan(beats: 4, bpm: 120, beforeEachPass: true)), .countIn(CountInPlan(beats: 2)),
            .countIn(CountInPlan(beats: 3)), .countIn(nil),
        ])
        #expect(await driver.send("count_in 40") == "ACK [2@0] {count_in} count-in beats must be 1-16\n")
        #expect(await driver.send("count_in 4 fast") == "ACK [2@0] {count_in} count_in BEATS [BPM|tag] [each], or off\n")
    }

    @Test func announceCommands() async {
        var driver = await queued()
        #expect(await driver.send("announce\nannounce \"Bar 42\"\nannounce_mode before tracks\nannounce_mode over")
                == "OK\nOK\nOK\nOK\n")
        #expect(await driver.backend.performed.suffix(4) == [
            .announce(nil), .announce("Bar 42"), .setAnnouncements(duck: false, onTrackChange: true),
            .setAnnouncements(duck: true, onTrackChange: false),
        ])
        #expect(await driver.send("announce_mode loud") == "ACK [2@0] {announce_mode} announce_mode over|before [tracks]\n")
        // Found by the arm64 fuzz run: 8 KB of text kept eSpeak busy past the answer timeout. At most 300 characters.
        let before = await driver.backend.performed.count
        #expect(await driver.send("announce " + String(repeating: "x", count: 301))
                == "ACK [2@0] {announce} announcement text is limited to 300 characters (got 301)\n")
        #expect(await driver.backend.performed.count == before, "refused before reaching the player")
        #expect(await driver.send("announce " + String(repeating: "x", count: 300)) == "OK\n")
    }
}
