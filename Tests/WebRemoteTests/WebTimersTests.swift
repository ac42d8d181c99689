import FermataCore
import Foundation
import Testing
@testable import WebRemote

/// The timers on the page: the `sleep` control and a new alarm as the page sends it, every value checked before it
/// reaches the backend (a 400 saying what is wrong, never a trap).
@Suite struct WebTimersTests {
    @Test func theSleepControl() throws {
        #expect(try PlayerRoutes.command("sleep", 1800) == .sleep(1800))
        #expect(try PlayerRoutes.command("sleep", 0) == .sleep(nil), "0 turns it off")
        for bad in [-1, 86_401, 30.5, .nan, .infinity, 1e300] {
            #expect(throws: WebFailure.self, "\(bad)") { _ = try PlayerRoutes.command("sleep", bad) }
        }
        #expect(throws: WebFailure.self) { _ = try PlayerRoutes.command("sleep", nil) }
    }

    static func alarm(_ json: String) throws -> FermataCore.Alarm {
        try JSONDecoder().decode(TimerRoutes.AlarmInput.self, from: Data(json.utf8)).checked()
    }

    @Test func aNewAlarm() throws {
        let alarm = try Self.alarm(#"{"time": "07:00", "repeat": "weekdays", "play": "playlist:Wake", "volume": 40, "fade": 60}"#)
        #expect(alarm.time.description == "07:00" && alarm.repeats == .days(AlarmRepeat.mondayToFriday))
        #expect(alarm.source == .target(.playlist("Wake")) && alarm.volume == 40 && alarm.fadeSeconds == 60)
        let plain = try Self.alarm(#"{"time": "6:30", "repeat": "2026-12-24", "play": "https://radio.example/live"}"#)
        #expect(plain.volume == nil && plain.fadeSeconds == Alarm.defaultFadeSeconds)
        #expect(plain.repeats == .once(CivilDate(year: 2026, month: 12, day: 24)!))
    }

    @Test(arguments: [
        #"{"time": "25:00", "repeat": "daily", "play": "playlist:Wake"}"#,
        #"{"time": "07:00", "repeat": "sometimes", "play": "playlist:Wake"}"#,
        #"{"time": "07:00", "repeat": "daily", "play": "Wake"}"#,
        #"{"time": "07:00", "repeat": "daily", "play": "playlist:Wake", "volume": 101}"#,
        #"{"time": "07:00", "repeat": "daily", "play": "playlist:Wake", "volume": -1}"#,
        #"{"time": "07:00", "repeat": "daily", "play": "playlist:Wake", "fade": 3601}"#,
        #"{"time": "07:00", "repeat": "daily", "play": "playlist:Wake", "fade": -1}"#,
    ])
    func badAlarmsAreRefused(_ json: String) {
        #expect(throws: WebFailure.self) { _ = try Self.alarm(json) }
    }

    /// A number too large for `Int` never reaches the check: the decoder refuses it (the route answers 400).
    @Test func hugeNumbersAreRefusedByTheDecoder() {
        #expect(throws: (any Error).self) {
            _ = try Self.alarm(#"{"time": "07:00", "repeat": "daily", "play": "playlist:Wake", "volume": 1e300}"#)
        }
    }
}
