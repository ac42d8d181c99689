import FermataCore
import MPDProtocol
import MPDTestSupport
import Testing

/// Recording's commands: `record`, `takes`, `takedelete`, `playtake`, `audiolatency` — their answers, and every bad
/// argument refused with MPD's argument error before the backend is asked (nothing changed).
@Suite struct RecordCommandTests {
    static let take = TakeReport(id: 7, path: "Alpha/one.flac", loopStartMilliseconds: 12_500, loopEndMilliseconds: 20_000,
                                 pass: 3, tempoPercent: 85, recordedAt: 1_764_572_400, seconds: 8.824, bytes: 512_000)

    @Test func recordTurnsOnAndOffAndReports() async {
        var driver = SessionDriver()
        #expect(await driver.send("record") == """
            record_device: test-capture
            record: 0
            record_phase: off
            record_latency_ms: 12.500
            takes: 0
            OK

            """)
        #expect(await driver.send("record on").contains("\nrecord: 1\nrecord_phase: waiting\n"))
        #expect(await driver.send("record 0").contains("\nrecord: 0\n"))
        for bad in ["yes", "2", "-1", "", "onn"] {
            #expect(await driver.send("record \"\(bad)\"").hasPrefix("ACK [2@0] {record} record takes on or off"), "\(bad)")
        }
        #expect(await driver.send("record on off").hasPrefix("ACK [2@0] {record} too many arguments"))
        #expect(await driver.send("record").contains("\nrecord: 0\n"), "nothing changed")
    }

    @Test func takesListDeleteAndPlay() async throws {
        var driver = SessionDriver()
        await driver.backend.setTakes([Self.take])
        #expect(await driver.send("takes") == """
            take: 7
            file: Alpha/one.flac
            loop_start: 12.500
            loop_end: 20.000
            pass: 3
            tempo: 85.000
            date: 2025-12-01T07:00:00Z
            duration: 8.824
            bytes: 512000
            OK

            """)
        #expect(await driver.send("takes Beta/two.flac") == "OK\n")
        #expect(await driver.send("playtake 7") == "OK\n")
        #expect(await driver.send("playtake 7 alternate 3") == "OK\n")
        #expect(await driver.send("playtake 7 alternate") == "OK\n")
        #expect(await driver.send("playtake 7 balance") == "OK\n")
        #expect(await driver.send("playtake 7 balance 0") == "OK\n")
        #expect(await driver.send("playtake 7 balance 100 5") == "OK\n")
        #expect(await driver.backend.playedTakes == ["7 alone", "7 alternate 3", "7 alternate 2", "7 balance 50 2",
                                                     "7 balance 0 2", "7 balance 100 5"])
        #expect(await driver.send("playtake 8").hasPrefix("ACK [50@0] {playtake} no take 8"))
        #expect(await driver.send("takedelete 8").hasPrefix("ACK [50@0] {takedelete} no take 8"))
        #expect(await driver.send("takedelete 7") == "OK\n")
        #expect(await driver.send("takes") == "OK\n")
    }

    @Test func badTakeArgumentsAreRefusedBeforeTheBackend() async {
        var driver = SessionDriver()
        await driver.backend.setTakes([Self.take])
        let bad = [
            "takedelete 0", "takedelete -7", "takedelete 7.5", "takedelete x", "takedelete 99999999999999999999",
            "playtake 0", "playtake 7 loud", "playtake 7 alternate 0", "playtake 7 alternate 51",
            "playtake 7 alternate -2", "playtake 7 alone 3", "playtake 7 alternate nan", "playtake 7 alternate 2 2",
            "playtake 7 balance 101", "playtake 7 balance -1", "playtake 7 balance 50 0", "playtake 7 balance 50 51",
            "playtake 7 balance 12.5", "playtake 7 balance loud",
            "audiolatency 7999", "audiolatency 384001", "audiolatency -48000", "audiolatency fast",
        ]
        for line in bad {
            let answer = await driver.send(line)
            #expect(answer.hasPrefix("ACK [2@0] {"), "\(line): \(answer)")
        }
        #expect(await driver.backend.playedTakes.isEmpty)
        #expect(await driver.backend.takeList.count == 1, "nothing deleted")
    }

    @Test func audioLatencyAnswersTheRoundTrip() async {
        var driver = SessionDriver()
        #expect(await driver.send("audiolatency") == "latency_ms: 12.500\nlatency_frames: 600\nrate: 48000\nOK\n")
        #expect(await driver.send("audiolatency 44100").hasSuffix("rate: 44100\nOK\n"))
    }
}
