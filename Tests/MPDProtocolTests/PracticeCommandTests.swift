import FermataCore
import MPDProtocol
import MPDTestSupport
import Testing

/// `practice`: the period's total, then one group per track and one per loop region, MPD-style.
@Suite struct PracticeCommandTests {
    @Test func todayIsTheDefault() async {
        var driver = SessionDriver()
        #expect(await driver.send("practice") == """
            period: today
            from: 2025-03-12
            to: 2025-03-12
            total: 130.500
            file: Beta/Second/01 Uno.flac
            Title: Uno
            Artist: Beta
            seconds: 100.250
            file: Beta/Second/01 Uno.flac
            loop_start: 1.500
            loop_end: 3.250
            seconds: 40.000
            file: x.flac
            seconds: 30.250
            OK

            """)
    }

    @Test func weeksAndDays() async {
        var driver = SessionDriver()
        #expect(await driver.send("practice week").hasPrefix("period: week\nfrom: 2025-03-10\nto: 2025-03-16\n"))
        #expect(await driver.send("practice week 2025-03-12").hasPrefix("period: week 2025-03-12\n"))
        #expect(await driver.send("practice day 2025-03-01").hasPrefix("period: 2025-03-01\nfrom: 2025-03-01\n"))
    }

    @Test func badPeriodsAreRefused() async {
        var driver = SessionDriver()
        #expect(await driver.send("practice month").hasPrefix("ACK [2@0] {practice}"))
        #expect(await driver.send("practice day 2025-13-01").hasPrefix("ACK [2@0] {practice}"))
        #expect(await driver.send("practice day yesterday").hasPrefix("ACK [2@0] {practice}"))
    }
}
