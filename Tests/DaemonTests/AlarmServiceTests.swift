@testable import Daemon
import FermataCore
import Foundation
import MPDProtocol
import StateDatabase
import Testing
import TestSupport

/// Alarms through the daemon's own service, backend and player, on the test's clocks: what a firing does (the queue,
/// the volume, the fade-in, the sleep timer off), that it is noted durably and never plays twice — after a restart,
/// after the clock is set back — and that a wall clock set forward over it (a Pi learning the time at boot) plays
/// nothing.
@Suite(.serialized) struct AlarmServiceTests {
    /// Monday 30 November 2026 07:00 UTC.
    static let seven = CivilDate(year: 2026, month: 11, day: 30)!.daysSinceEpoch * 86_400 + 7 * 3600
    static let daily = AlarmRepeat.days(AlarmRepeat.everyDay)

    static func wake(volume: Int? = 35, fade: Int = 2, repeats: AlarmRepeat = daily, source: String = "folder:wake") -> Alarm {
        Alarm(time: AlarmTime(hour: 7, minute: 0)!, repeats: repeats, source: AlarmSource(parsing: source)!,
              volume: volume, fadeSeconds: fade)
    }

    /// Ticks `service` once a second of both clocks for `seconds`.
    static func tick(_ service: AlarmService, _ rig: TimersRig, seconds: Int) async {
        for _ in 0..<seconds {
            rig.clock.advance(1)
            await service.tick(monotonic: rig.clock.monotonic)
        }
    }

    @Test func anAlarmPlaysItsSourceAtItsVolumeFadingInAndTurnsTheSleepTimerOff() async throws {
        let rig = try await TimersRig()
        defer { rig.stop() }
        let sleep = rig.sleepService()
        let alarms = rig.alarmService(sleep: sleep, zone: FixedZone())
        await alarms.start()
        try await rig.player.perform(.setVolume(80))
        let id = try #require(try await alarms.edit(.add(Self.wake())))
        rig.clock.setWall(Self.seven - 3)
        await alarms.tick(monotonic: rig.clock.monotonic)
        _ = await sleep.set(seconds: 3600)
        await Self.tick(alarms, rig, seconds: 2)
        #expect(try await rig.queue().isEmpty, "06:59:59: nothing yet")
        await Self.tick(alarms, rig, seconds: 1)
        #expect(try await rig.queue() == ["wake/1.flac"])
        let status = await rig.player.status()
        #expect(status.state == .playing)
        #expect(status.volume == 35, "the alarm's volume, shown at once")
        #expect(await sleep.remaining() == nil, "an alarm turns the sleep timer off")
        let report = try #require(await alarms.reports().first)
        #expect(report.alarm.id == id && report.alarm.lastFired == Self.seven)
        #expect(report.next == Self.seven + 86_400)
        let stored = try await AlarmStorage(database: rig.database).load().alarms
        #expect(stored.first?.lastFired == Self.seven, "noted durably")
        // The newest fade asked of the output is a fade in (rising, or done), not the sleep timer's way down.
        let fade = rig.engine.newestFade
        #expect(fade > 0)
        #expect([.pending, .rising, .done].contains(rig.engine.fadeState(of: fade)), "\(rig.engine.fadeState(of: fade))")
    }

    /// A radio station wakes the household: the alarm queues the stream's URL (not fetched before it plays, as MPD's
    /// `add` does) and plays it.
    @Test func anAlarmCanPlayAStream() async throws {
        let rig = try await TimersRig()
        defer { rig.stop() }
        let alarms = rig.alarmService(sleep: rig.sleepService(), zone: FixedZone())
        await alarms.start()
        let url = "http://127.0.0.1:9/radio.mp3"
        _ = try #require(try await alarms.edit(.add(Self.wake(source: url))))
        rig.clock.setWall(Self.seven - 1)
        await alarms.tick(monotonic: rig.clock.monotonic)
        await Self.tick(alarms, rig, seconds: 1)
        #expect(try await rig.queue() == [url])
        #expect(await rig.player.status().volume == 35)
    }

    /// After the firing: a restart (a new service over the same database) and a clock set back through 07:00 again
    /// play nothing.
    @Test func neverTwiceAcrossARestartOrAClockSetBack() async throws {
        let rig = try await TimersRig()
        defer { rig.stop() }
        let sleep = rig.sleepService()
        let first = rig.alarmService(sleep: sleep, zone: FixedZone())
        await first.start()
        _ = try await first.edit(.add(Self.wake()))
        rig.clock.setWall(Self.seven - 1)
        await first.tick(monotonic: rig.clock.monotonic)
        await Self.tick(first, rig, seconds: 2)
        #expect(try await rig.queue() == ["wake/1.flac"])
        try await rig.backend.perform(.stop)
        try await rig.backend.editQueue(.clear)
        // The restart: its first look at 07:00:30, then the clock is set back ten minutes and runs through 07:00.
        let second = rig.alarmService(sleep: sleep, zone: FixedZone())
        await second.start()
        rig.clock.advance(28)
        await second.tick(monotonic: rig.clock.monotonic)
        rig.clock.setWall(Self.seven - 600)
        await Self.tick(second, rig, seconds: 660)
        #expect(try await rig.queue().isEmpty, "played once")
        #expect(await rig.player.status().state == .stopped)
    }

    /// A Pi that booted at the time it last shut down (Sunday evening), then NTP sets Monday 09:00: Monday's 07:00
    /// was jumped over and plays nothing; Tuesday's plays.
    @Test func aClockSetForwardOverTheAlarmPlaysNothing() async throws {
        let rig = try await TimersRig()
        defer { rig.stop() }
        let alarms = rig.alarmService(sleep: rig.sleepService(), zone: FixedZone())
        await alarms.start()
        _ = try await alarms.edit(.add(Self.wake()))
        rig.clock.setWall(Self.seven - 10 * 3600)
        await alarms.tick(monotonic: rig.clock.monotonic)
        await Self.tick(alarms, rig, seconds: 5)
        rig.clock.setWall(Self.seven + 2 * 3600)
        await Self.tick(alarms, rig, seconds: 5)
        #expect(try await rig.queue().isEmpty)
        #expect(await rig.player.status().state == .stopped)
        #expect(try await AlarmStorage(database: rig.database).load().alarms.first?.lastFired == nil)
        rig.clock.setWall(Self.seven + 86_400 - 2)
        // Ticks in step with the monotonic clock from here (setWall above counts as one more jump, forward by a day
        // less two hours: it skips nothing, as no firing lies between).
        await Self.tick(alarms, rig, seconds: 3)
        #expect(try await rig.queue() == ["wake/1.flac"], "Tuesday's plays")
    }

    /// A one-off alarm is off once it has played, and stays off after a restart; a source with no songs changes
    /// nothing at all (queue, volume, transport).
    @Test func aOneOffSwitchesItselfOffAndAnEmptySourceChangesNothing() async throws {
        let rig = try await TimersRig()
        defer { rig.stop() }
        let sleep = rig.sleepService()
        let alarms = rig.alarmService(sleep: sleep, zone: FixedZone())
        await alarms.start()
        _ = try await alarms.edit(.add(Self.wake(repeats: .once(CivilDate(year: 2026, month: 11, day: 30)!))))
        _ = try await alarms.edit(.add(Self.wake(volume: 10, source: "playlist:Missing")))
        try await rig.player.perform(.setVolume(70))
        rig.clock.setWall(Self.seven - 1)
        await alarms.tick(monotonic: rig.clock.monotonic)
        await Self.tick(alarms, rig, seconds: 2)
        #expect(try await rig.queue() == ["wake/1.flac"])
        #expect(await rig.player.status().volume == 35, "the one-off's volume; the empty one's (10) never applied")
        let restarted = rig.alarmService(sleep: sleep, zone: FixedZone())
        await restarted.start()
        let reports = await restarted.reports()
        #expect(reports.map(\.alarm.enabled) == [false, true])
        #expect(reports.first?.next == nil, "a one-off that played has no next firing")
    }

    @Test func editsAreCheckedAndDurable() async throws {
        let rig = try await TimersRig()
        defer { rig.stop() }
        let alarms = rig.alarmService(sleep: rig.sleepService(), zone: FixedZone())
        await alarms.start()
        await #expect(throws: MPDError.self) { _ = try await alarms.edit(.add(Self.wake(source: "action:dance"))) }
        await #expect(throws: MPDError.self) { _ = try await alarms.edit(.add(Self.wake(volume: 101))) }
        await #expect(throws: MPDError.self) { _ = try await alarms.edit(.remove(id: 5)) }
        await #expect(throws: MPDError.self) { _ = try await alarms.edit(.enable(id: 5, false)) }
        let id = try #require(try await alarms.edit(.add(Self.wake(source: "action:play"))))
        _ = try await alarms.edit(.enable(id: id, false))
        #expect(try await AlarmStorage(database: rig.database).load().alarms.map(\.enabled) == [false])
        for _ in 1..<Alarm.maxCount { _ = try await alarms.edit(.add(Self.wake())) }
        await #expect(throws: MPDError.self) { _ = try await alarms.edit(.add(Self.wake())) }
        _ = try await alarms.edit(.remove(id: id))
        #expect(try await AlarmStorage(database: rig.database).load().alarms.count == Alarm.maxCount - 1)
    }
}
