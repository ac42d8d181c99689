import FermataCore
import MPDProtocol
import MPDTestSupport
import Testing

/// Hostile numbers (NaN, ±inf, 1e308, ±Int64.max, -1, 0, empty, huge strings) in every numeric argument: each is
/// refused where it is parsed with MPD's wording, nothing out of range reaches the backend, and the session keeps
/// answering. Issue 13: `seekcur 1e300`, `loop_set 0 1e300`, `tempo +9223372036854775807`… used to kill the daemon.
@Suite struct HostileArgumentTests {
    static let int64Max = "9223372036854775807"
    static let int64Min = "-9223372036854775808"
    static let hugeDigits = String(repeating: "9", count: 5_000)

    /// A driver with the whole sample library queued, playing position 1 (id 2).
    func playing() async -> SessionDriver {
        var driver = SessionDriver()
        _ = await driver.send("add /\nplay 1")
        return driver
    }

    /// Sends each command and expects its ACK (`nil`: `OK`); the session still answers `ping` afterwards and the
    /// backend received no action out of the protocol's bounds.
    func expect(_ cases: [(String, String?)], sourceLocation: SourceLocation = #_sourceLocation) async {
        var driver = await playing()
        for (command, message) in cases {
            let name = String(command.prefix { $0 != " " })
            let expected = message.map { "ACK [2@0] {\(name)} \($0)\n" } ?? "OK\n"
            #expect(await driver.send(command) == expected, "\(command.prefix(80))", sourceLocation: sourceLocation)
            #expect(await driver.send("ping") == "OK\n", sourceLocation: sourceLocation)
        }
        for action in await driver.backend.performed {
            #expect(Self.isInBounds(action), "\(action)", sourceLocation: sourceLocation)
        }
    }

    /// Whether an action's numbers are inside what the protocol promises the player.
    static func isInBounds(_ action: ControlAction) -> Bool {
        switch action {
        case let .seek(seconds): seconds.isFinite && seconds >= 0 && seconds <= ArgumentParser.maxSeconds
        case let .seekBy(seconds): seconds.isFinite && abs(seconds) <= ArgumentParser.maxSignedSeconds
        case let .setLoop(start, end, count):
            start.isFinite && end.isFinite && start >= 0 && end <= ArgumentParser.maxSeconds && (count ?? 0) >= 0
        case let .loopNudge(_, milliseconds): abs(milliseconds) <= ArgumentParser.maxMilliseconds
        case let .setTempo(percent): (50...150).contains(percent)
        case let .changeTempo(delta): (-100...100).contains(delta)
        case let .setTranspose(cents): Transposition.range.contains(cents)
        case let .setBeat(beat?): beat.problem == nil
        case let .metronome(plan?): plan.problem == nil
        case let .loopLastBars(bars, beats): (1...64).contains(bars) && (1...16).contains(beats)
        case let .setVolume(volume): (0...100).contains(volume)
        case let .changeVolume(delta): (-100...100).contains(delta)
        case let .countIn(plan?): plan.problem == nil
        case let .speedTrainer(plan?): plan.problem == nil
        default: true
        }
    }

    @Test func seekcur() async {
        await expect([
            ("seekcur 1e300", "Number too large: 1e300"),
            ("seekcur +1e300", "Number too large: +1e300"),
            ("seekcur -1e300", "Number too large: -1e300"),
            ("seekcur 1e308", "Number too large: 1e308"),
            ("seekcur inf", "Number too large: inf"),
            ("seekcur +inf", "Number too large: +inf"),
            ("seekcur -inf", "Number too large: -inf"),
            ("seekcur nan", "Float expected: nan"),
            ("seekcur -nan", "Float expected: -nan"),
            ("seekcur \"\"", "Float expected: "),
            ("seekcur \(Self.int64Max)", "Number too large: \(Self.int64Max)"),
            ("seekcur +\(Self.int64Max)", "Number too large: +\(Self.int64Max)"),
            ("seekcur \(Self.int64Min)", "Number too large: \(Self.int64Min)"),
            ("seekcur \(Self.hugeDigits)", "Number too large: \(Self.hugeDigits)"),
            ("seekcur 4294967.296", "Number too large: 4294967.296"),
            ("seekcur 0", nil),
            ("seekcur -1", nil),
            ("seekcur +2147483.647", nil),
            ("seekcur 4294967.295", nil),
        ])
    }

    @Test func seekAndSeekid() async {
        await expect([
            ("seek 0 1e308", "Number too large: 1e308"),
            ("seek 0 inf", "Number too large: inf"),
            ("seek 0 nan", "Float expected: nan"),
            ("seek 0 -1", "Negative value not allowed: -1"),
            ("seek 0 -inf", "Negative value not allowed: -inf"),
            ("seek 0 \"\"", "Float expected: "),
            ("seek \(Self.int64Max) 5", "Number too large: \(Self.int64Max)"),
            ("seek \(Self.int64Min) 5", "Number too large: \(Self.int64Min)"),
            ("seek -1 5", "Number too large: -1"),
            ("seek \"\" 5", "Integer expected: "),
            ("seekid 1 1e300", "Number too large: 1e300"),
            ("seekid 1 \(Self.hugeDigits)", "Number too large: \(Self.hugeDigits)"),
            ("seekid \(Self.int64Max) 1", "Number too large: \(Self.int64Max)"),
            ("seekid -1 1", "Number too large: -1"),
            ("seek 0 0", nil),
            ("seekid 1 0", nil),
        ])
    }

    @Test func loopSetAndNudge() async {
        await expect([
            ("loop_set 0 1e300", "Number too large: 1e300"),
            ("loop_set 1e300 1e301", "Number too large: 1e300"),
            ("loop_set 0 inf", "Number too large: inf"),
            ("loop_set nan 5", "Float expected: nan"),
            ("loop_set -1 5", "Negative value not allowed: -1"),
            ("loop_set 0 5 -1", "Number too large: -1"),
            ("loop_set 0 5 \(Self.int64Max)", "Number too large: \(Self.int64Max)"),
            ("loop_nudge a \(Self.int64Max)", "Number too large: \(Self.int64Max)"),
            ("loop_nudge b \(Self.int64Min)", "Number too large: \(Self.int64Min)"),
            ("loop_nudge a 2147483648", "Number too large: 2147483648"),
            ("loop_nudge a 1e3", "Integer expected: 1e3"),
            ("loop_nudge a \"\"", "Integer expected: "),
            ("loop_set 1 2 0", nil),
            ("loop_nudge a 0", nil),
            ("loop_nudge b -2147483647", nil),
        ])
    }

    @Test func tempoSpeedTrainerAndCountIn() async {
        let tempo = "tempo must be a percentage (50-150) or +N/-N"
        let transpose = "transpose takes semitones from -12.5 to +12.5 (at most two decimals)"
        let bpm = "count-in tempo must be 20-400 BPM"
        await expect([
            ("tempo +\(Self.int64Max)", tempo),
            ("tempo \(Self.int64Max)", tempo),
            ("tempo \(Self.int64Min)", tempo),
            ("tempo +101", tempo),
            ("tempo -101", tempo),
            ("tempo 151", tempo),
            ("tempo 49", tempo),
            ("tempo 0", tempo),
            ("tempo \"\"", tempo),
            ("tempo nan", tempo),
            ("tempo \(Self.hugeDigits)", tempo),
            ("tempo +100", nil),
            ("tempo -100", nil),
            ("tempo 150", nil),
            ("transpose \(Self.int64Max)", transpose),
            ("transpose \(Self.int64Min)", transpose),
            ("transpose \(Self.hugeDigits)", transpose),
            ("transpose 12.51", transpose),
            ("transpose -13", transpose),
            ("transpose 0.001", transpose),
            ("transpose nan", transpose),
            ("transpose inf", transpose),
            ("transpose 1e1", transpose),
            ("transpose \"\"", transpose),
            ("transpose -12.5", nil),
            ("transpose +7", nil),
            ("transpose 0.15", nil),
            ("bpm nan", "a beat must be 20-400 BPM"),
            ("bpm 1e308", "a beat must be 20-400 BPM"),
            ("bpm 19.99", "a beat must be 20-400 BPM"),
            ("bpm fast", "bpm N [OFFSET] (20-400) or off"),
            ("bpm 92.5", nil),
            ("loop_last 2 bars", nil),
            ("loop_last 0 bars", "loop_last takes 1 to 64 bars"),
            ("loop_last \(Self.int64Max) bars", "Number too large: \(Self.int64Max)"),
            ("loop_last 2 bars 0", "a bar has 1 to 16 beats"),
            ("loop_last 2 bars \(Self.int64Min)", "Number too large: \(Self.int64Min)"),
            ("loop_last 2 beats", "loop_last [SECONDS], or loop_last N bars [BEATS]"),
            ("bpm 120 0.25", nil),
            ("bpm 120 61", "the first beat falls 0 to 60 seconds into the track"),
            ("bpm 120 -1", "the first beat falls 0 to 60 seconds into the track"),
            ("bpm 120 nan", "the first beat falls 0 to 60 seconds into the track"),
            ("bpm off", nil),
            ("metronome on", nil),
            ("metronome on 3 0.5", nil),
            ("metronome on 0", "a bar has 1 to 16 beats"),
            ("metronome on 4 0", "the click's level is 0.05 to 1"),
            ("metronome on 4 nan", "the click's level is 0.05 to 1"),
            ("metronome loud", "metronome [on [BEATS [LEVEL]]|off]"),
            ("metronome off", nil),
            ("tap_tempo", nil),
            ("count_in 4 nan", bpm),
            ("count_in 4 inf", bpm),
            ("count_in 4 -inf", bpm),
            ("count_in 4 1e308", bpm),
            ("count_in 4 -1", bpm),
            ("count_in 4 0", bpm),
            ("count_in \(Self.int64Max)", "Number too large: \(Self.int64Max)"),
            ("count_in -1", "count-in beats must be 1-16"),
            ("count_in 4 400", nil),
            // A word out of place was ignored (OK, and the count-in set without it).
            ("count_in 4 100 bogus", "count_in BEATS [BPM|tag] [each], or off"),
            ("count_in 4 each 100", "count_in BEATS [BPM|tag] [each], or off"),
            ("count_in 4 each each", "count_in BEATS [BPM|tag] [each], or off"),
            ("count_in 4 tag each", nil),
            ("count_in 4 each", nil),
            ("speed_trainer 70 5 \(Self.int64Max) 100", "Number too large: \(Self.int64Max)"),
            ("speed_trainer \(Self.int64Max) 5 2 100", "tempos must be 50-150 %"),
            ("speed_trainer 70 \(Self.int64Min) 2 100", "step 1-50 %, every 1 to 1000 passes"),
            ("speed_trainer 70 5 0 100", "step 1-50 %, every 1 to 1000 passes"),
            ("speed_trainer 70 5 -1 100", "step 1-50 %, every 1 to 1000 passes"),
            ("speed_trainer nan 5 2 100", "tempos must be 50-150 %"),
            ("speed_trainer 70 5 2147483647 150", "step 1-50 %, every 1 to 1000 passes"),
            ("speed_trainer 70 5 1000 150 fallback", nil),
            ("speed_trainer 70 5 2 100 sideways", "speed_trainer START STEP EVERY TARGET [fallback], off, or again"),
            ("section_trainer 0 70 5 2 100", "sections count from 1"),
            ("section_trainer \(Self.int64Max) off", "Number too large: \(Self.int64Max)"),
        ])
    }

    @Test func volumeCrossfadeAndBinarylimit() async {
        await expect([
            ("setvol \(Self.int64Max)", "Number too large: \(Self.int64Max)"),
            ("setvol -1", "Number too large: -1"),
            ("setvol 101", "Number too large: 101"),
            ("setvol \"\"", "Integer expected: "),
            ("volume \(Self.int64Min)", "Number too large: \(Self.int64Min)"),
            ("volume +101", "Number too large: +101"),
            ("crossfade -1", "Number too large: -1"),
            ("crossfade 1e308", "Integer expected: 1e308"),
            ("crossfade \(Self.int64Max)", "Number too large: \(Self.int64Max)"),
            ("binarylimit \(Self.int64Max)", "Number too large: \(Self.int64Max)"),
            ("binarylimit -1", "Number too large: -1"),
            ("binarylimit 0", "Value too small"),
            ("setvol 0", nil),
            ("volume -100", nil),
            ("crossfade 0", nil),
        ])
    }

    @Test func positionsRangesAndVersions() async {
        await expect([
            ("playlistinfo 0:\(Self.int64Max)", "Number too large: 0:\(Self.int64Max)"),
            ("playlistinfo \(Self.int64Max):", "Number too large: \(Self.int64Max):"),
            ("playlistinfo 5:1", "Malformed range: 5:1"),
            ("playlistinfo -5:", "Number is negative: -5:"),
            ("playlistinfo 1:-5", "Number is negative: 1:-5"),
            ("playlistinfo :", "Integer or range expected: :"),
            ("playlistinfo \"\"", "Integer or range expected: "),
            ("playlistinfo 1:2:3", "Integer or range expected: 1:2:3"),
            ("playlistinfo 1e3", "Integer or range expected: 1e3"),
            ("delete \(Self.hugeDigits)", "Number too large: \(Self.hugeDigits)"),
            ("plchanges -x", "Integer expected: -x"),
            ("plchanges -4294967296", "Number too large: -4294967296"),
            ("plchanges 4294967296", "Number too large: 4294967296"),
            ("plchanges \"\"", "Integer expected: "),
            ("plchanges 0 0:\(Self.int64Max)", "Number too large: 0:\(Self.int64Max)"),
            ("plchangesposid \(Self.int64Max)", "Number too large: \(Self.int64Max)"),
            ("add loose.wav +\(Self.int64Max)", "Number too large: +\(Self.int64Max)"),
            ("add loose.wav \(Self.int64Min)", "Number too large: \(Self.int64Min)"),
            ("add loose.wav -\(Self.hugeDigits)", "Number too large: -\(Self.hugeDigits)"),
            ("add loose.wav +", "Bad position: +"),
            ("add loose.wav +-1", "Bad position: +-1"),
            ("move 0 +\(Self.int64Max)", "Number too large: +\(Self.int64Max)"),
            ("find any x window 0:\(Self.int64Max)", "Number too large: 0:\(Self.int64Max)"),
            ("searchadd any x position +\(Self.int64Max)", "Number too large: +\(Self.int64Max)"),
            ("albumart Bach/Goldberg \(Self.int64Max)", "Number too large: \(Self.int64Max)"),
            ("albumart Bach/Goldberg -1", "Number too large: -1"),
            ("playlistadd p loose.wav \(Self.int64Max)", "Number too large: \(Self.int64Max)"),
            ("playlistinfo 5:2147483647", nil),
            ("plchanges 4294967295 0:0", nil),  // newer than the queue: all of it, in an empty window
            ("plchanges -1 0:0", nil),
            ("add loose.wav +2147483647", "Bad song index"),
        ])
    }

    @Test func argumentParserBounds() throws {
        #expect(ArgumentParser.maxSeconds == 4_294_967.295)
        #expect(ArgumentParser.maxSignedSeconds == 2_147_483.647)
        #expect(try ArgumentParser.seconds("0") == 0)
        #expect(try ArgumentParser.signedSeconds("-2147483.647") == -2_147_483.647)
        #expect(try ArgumentParser.range("0:") == PositionRange(start: 0, end: nil))
        #expect(try ArgumentParser.range("-1") == .all)
        #expect(try ArgumentParser.range("+3") == .single(3))
        #expect(try ArgumentParser.insertPosition("-0") == .beforeCurrent(0))
        #expect(try ArgumentParser.version("0") == 0)
        #expect(throws: MPDError.badArgument("Float expected: NaN")) { try ArgumentParser.signedSeconds("NaN") }
        #expect(throws: MPDError.badArgument("Number too large: infinity")) {
            try ArgumentParser.finite("infinity")
        }
    }
}
