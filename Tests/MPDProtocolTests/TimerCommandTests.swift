import FermataCore
import MPDProtocol
import MPDTestSupport
import Synchronization
import Testing

/// The timers' commands: `sleep_timer`, the `sleep:` line of `status`, and the alarms — every number range-checked,
/// every bad argument refused with MPD's argument error and nothing changed.
@Suite struct TimerCommandTests {
    @Test func sleepTimerSetsReadsAndTurnsOff() async throws {
        var driver = SessionDriver()
        #expect(await driver.send("sleep_timer") == "OK\n", "none running: nothing but OK")
        #expect(await !driver.send("status").contains("sleep:"))
        #expect(await driver.send("sleep_timer 1800") == "sleep: 1800\nOK\n")
        #expect(await driver.send("status").contains("\nsleep: 1800\n"))
        #expect(await driver.send("sleep_timer") == "sleep: 1800\nOK\n")
        #expect(await driver.send("sleep_timer off") == "OK\n")
        #expect(await !driver.send("status").contains("sleep:"))
        _ = await driver.send("sleep_timer 60")
        #expect(await driver.send("sleep_timer 0") == "OK\n", "0 is off too")
        #expect(try await driver.backend.status().sleepSeconds == nil)
    }

    @Test func sleepTimerRefusesWhatIsOutOfRange() async {
        var driver = SessionDriver()
        _ = await driver.send("sleep_timer 600")
        for bad in ["-1", "86401", "99999999999999999999", "30m", "nan", "1e3", ""] {
            let answer = await driver.send("sleep_timer \"\(bad)\"")
            #expect(answer.hasPrefix("ACK [2@0] {sleep_timer}"), "\(bad): \(answer)")
        }
        #expect(await driver.send("sleep_timer 1 2").hasPrefix("ACK [2@0] {sleep_timer} too many arguments"))
        #expect(await driver.send("sleep_timer") == "sleep: 600\nOK\n", "nothing changed")
    }

    @Test func alarmsAddListSwitchRemove() async throws {
        var driver = SessionDriver()
        #expect(await driver.send("alarms") == "OK\n")
        #expect(await driver.send("alarm_add 7:00 weekdays playlist:Wake 40 60") == "alarm: 1\nOK\n")
        #expect(await driver.send("alarm_add 06:30 2026-12-24 \"folder:Christmas songs\" keep") == "alarm: 2\nOK\n")
        #expect(await driver.send("alarm_add 22:00 sat,sun https://radio.example/live") == "alarm: 3\nOK\n")
        #expect(await driver.send("alarm_enable 2 0") == "OK\n")
        #expect(await driver.send("alarms") == """
            alarm: 1
            time: 07:00
            repeat: weekdays
            play: playlist:Wake
            volume: 40
            fade: 60
            enabled: 1
            next: 1764572400
            next_local: 2026-12-01 07:00+00:00
            alarm: 2
            time: 06:30
            repeat: 2026-12-24
            play: folder:Christmas songs
            fade: 30
            enabled: 0
            alarm: 3
            time: 22:00
            repeat: weekends
            play: https://radio.example/live
            fade: 30
            enabled: 1
            next: 1764572400
            next_local: 2026-12-01 07:00+00:00
            OK

            """)
        #expect(await driver.send("alarm_remove 2") == "OK\n")
        #expect(await driver.send("alarm_remove 2").hasPrefix("ACK [50@0] {alarm_remove} no alarm 2"))
        #expect(try await driver.backend.alarms().map(\.alarm.id) == [1, 3])
    }

    @Test func badAlarmsAreRefusedAndNothingIsAdded() async throws {
        var driver = SessionDriver()
        let bad = [
            "alarm_add 24:00 daily playlist:Wake", "alarm_add 7 daily playlist:Wake", "alarm_add 07:00 everyday playlist:Wake",
            "alarm_add 07:00 2026-02-30 playlist:Wake", "alarm_add 07:00 daily Wake", "alarm_add 07:00 daily playlist:",
            "alarm_add 07:00 daily playlist:Wake 101", "alarm_add 07:00 daily playlist:Wake -1",
            "alarm_add 07:00 daily playlist:Wake 40 3601", "alarm_add 07:00 daily playlist:Wake 40 -5",
            "alarm_add 07:00 daily playlist:Wake 99999999999999999999", "alarm_add 07:00 daily \"http://a b\"",
            "alarm_enable 1 2", "alarm_enable x 1", "alarm_remove 0", "alarm_remove -3", "alarm_remove 99999999999",
        ]
        for line in bad {
            let answer = await driver.send(line)
            #expect(answer.hasPrefix("ACK [2@0]"), "\(line): \(answer)")
        }
        #expect(await driver.send("alarm_add 07:00").hasPrefix("ACK [2@0] {alarm_add} too few arguments"))
        #expect(try await driver.backend.alarms().isEmpty)
    }

    /// Changing a timer is something the page and `idle` clients hear of (`options`).
    @Test func changesAreAnnounced() async {
        var driver = SessionDriver()
        let heard = Heard()
        let subscription = driver.backend.idle.subscribe { heard.add($0) }
        defer { subscription.cancel() }
        _ = await driver.send("sleep_timer 60")
        _ = await driver.send("alarm_add 07:00 daily playlist:Wake")
        _ = await driver.send("sleep_timer 99999")
        #expect(heard.sets == [.options, .options], "two changes, the refused one none")
    }

    final class Heard: Sendable {
        private let box = Mutex<[IdleSet]>([])
        func add(_ set: IdleSet) { box.withLock { $0.append(set) } }
        var sets: [IdleSet] { box.withLock { $0 } }
    }
}
