import FermataCore
import Testing

/// Durations as people type them for the timers, and what is refused without trapping.
@Suite struct TimerDurationTests {
    @Test func unitsAndBareNumbers() {
        #expect(TimerDuration.seconds("90s") == 90)
        #expect(TimerDuration.seconds("30m") == 1800)
        #expect(TimerDuration.seconds("1h") == 3600)
        #expect(TimerDuration.seconds("1h30m") == 5400)
        #expect(TimerDuration.seconds("2h5m10s") == 7510)
        #expect(TimerDuration.seconds("30") == 1800, "the CLI's bare number is minutes")
        #expect(TimerDuration.seconds("30", bareUnit: 1) == 30, "the protocol's is seconds")
        #expect(TimerDuration.seconds("24h") == 86_400)
    }

    @Test func refusedWithoutTrapping() {
        for text in ["", "0", "0m", "m", "30x", "-5m", "+5m", "1h30", "30m1h", "1m1m", "25h", "86401s", "1441",
                     "99999999999999999999", "999999h", "1.5h", "30 m", "٣٠m"] {
            #expect(TimerDuration.seconds(text) == nil, "\(text)")
        }
    }

    @Test func printedBack() {
        #expect(TimerDuration.text(seconds: 45) == "45s")
        #expect(TimerDuration.text(seconds: 1798) == "29m 58s")
        #expect(TimerDuration.text(seconds: 5400) == "1h 30m")
        #expect(TimerDuration.text(seconds: 7200) == "2h")
        #expect(TimerDuration.text(seconds: 0) == "0s")
    }
}
