import Controls
import FermataCore
import Logging
import MPDProtocol
import Player
import StateDatabase

/// The alarms' driver: the alarms as stored (`AlarmStorage`, the source of truth; this keeps a copy), one
/// `AlarmClock` value that decides at each tick which fire (judging the wall clock by the monotonic one), and the
/// firing itself (`AlarmFiring`). Every change is written durably before it is answered; a firing is noted before it
/// plays, so neither a restart nor a clock set back plays it twice.
///
/// An actor: the protocol's `alarms`/`alarm_*`, the web page and the timers' tick (`TimersService`) call it.
public actor AlarmService {
    private var alarms: [Alarm] = []
    private var clock = AlarmClock()
    /// The monotonic time of the last tick that looked at the alarms (they are looked at once a second).
    private var lastLook: UInt64?
    let storage: AlarmStorage
    let zone: any LocalTimeZone
    let read: @Sendable () -> AlarmClock.Reading
    let firing: AlarmFiring
    let logger: Logger
    /// Tells clients the alarms changed.
    private let announce: @Sendable () -> Void

    public init(storage: AlarmStorage, firing: AlarmFiring, logger: Logger, announce: @escaping @Sendable () -> Void,
                zone: any LocalTimeZone = SystemTimeZone(),
                read: @escaping @Sendable () -> AlarmClock.Reading = { SystemTimeZone.reading() }) {
        self.storage = storage
        self.firing = firing
        self.logger = logger
        self.announce = announce
        self.zone = zone
        self.read = read
    }

    /// Reads the alarms back from the database.
    public func start() async {
        do {
            let (stored, unreadable) = try await storage.load()
            alarms = stored
            if unreadable > 0 { logger.warning("alarms: \(unreadable) stored alarms could not be read and are ignored") }
            if !alarms.isEmpty {
                logger.info("alarms: \(alarms.count) (\(alarms.filter(\.enabled).count) on); next \(nextText ?? "none")")
            }
        } catch {
            logger.error("alarms: cannot read them (\(error)); none will fire until they can be read")
        }
    }

    /// The alarms by id, each with its next firing.
    public func reports() -> [AlarmReport] {
        let now = read().wallMilliseconds / 1000
        return alarms.map { alarm in
            let next = alarm.nextFiring(after: now, in: zone)
            return AlarmReport(alarm: alarm, next: next, nextText: next.map { LocalTime.text(of: $0, in: zone, offset: true) })
        }
    }

    /// Adds, removes or switches an alarm, durably; an added alarm's id.
    public func edit(_ edit: AlarmEdit) async throws -> Int64? {
        switch edit {
        case let .add(alarm):
            if case let .target(.action(name)) = alarm.source, KeyAction(parsing: name) == nil {
                throw MPDError(.argument, "\"\(name)\" is no action (play, play-pause, volume+5, …)")
            }
            let stored: Alarm
            do {
                stored = try await storage.add(alarm, at: read().wallMilliseconds / 1000)
            } catch let refusal as AlarmStorage.Refusal {
                throw MPDError(.argument, refusal.description)
            }
            alarms.append(stored)
            let next = reports().first { $0.alarm.id == stored.id }?.nextText ?? "never"
            logger.notice("alarms: alarm \(stored.id) added: \(Self.words(stored)); next \(next)")
            announce()
            return stored.id
        case let .remove(id):
            guard try await storage.remove(id: id) else { throw MPDError(.noExist, "no alarm \(id)") }
            alarms.removeAll { $0.id == id }
            logger.notice("alarms: alarm \(id) removed")
        case let .enable(id, on):
            guard try await storage.setEnabled(id: id, on) else { throw MPDError(.noExist, "no alarm \(id)") }
            if let index = alarms.firstIndex(where: { $0.id == id }) { alarms[index].enabled = on }
            logger.notice("alarms: alarm \(id) \(on ? "on" : "off")")
        }
        announce()
        return nil
    }

    /// One look at both clocks (once a second at most): fires what is due, logs what was skipped or missed.
    public func tick(monotonic now: UInt64) async {
        if let lastLook, now >= lastLook, now - lastLook < 1_000_000_000 { return }
        lastLook = now
        for event in clock.tick(read(), alarms: alarms, in: zone) {
            switch event {
            case let .clockJumped(milliseconds):
                logger.notice("alarms: the wall clock moved \(milliseconds / 1000) s \(milliseconds > 0 ? "ahead of" : "back from") the monotonic clock (set by NTP or by hand)")
            case let .skippedByClockJump(id, at):
                logger.notice("alarms: alarm \(id)'s \(LocalTime.text(of: at, in: zone)) was jumped over by the clock: not played")
            case let .missed(id, at):
                logger.warning("alarms: alarm \(id)'s \(LocalTime.text(of: at, in: zone)) came too late to play (the daemon was held up)")
            case let .fire(id, at):
                guard let index = alarms.firstIndex(where: { $0.id == id }) else { continue }
                await fire(index, at: at)
            }
        }
    }

    /// Notes the firing (durably: a restart or a clock set back does not play it again; a one-off alarm is off
    /// afterwards), then plays it.
    private func fire(_ index: Int, at: Int64) async {
        let alarm = alarms[index]
        var once = false
        if case .once = alarm.repeats { once = true }
        do {
            try await storage.markFired(id: alarm.id, at: at, disable: once)
        } catch {
            logger.error("alarms: alarm \(alarm.id)'s firing could not be noted (\(error)); playing it anyway")
        }
        if let now = alarms.firstIndex(where: { $0.id == alarm.id }) {
            alarms[now].lastFired = at
            if once { alarms[now].enabled = false }
        }
        logger.notice("alarms: alarm \(alarm.id) (\(LocalTime.text(of: at, in: zone))): \(Self.words(alarm))")
        announce()
        await firing.play(alarm)
    }

    /// When the next enabled alarm fires, in local words.
    private var nextText: String? {
        let now = read().wallMilliseconds / 1000
        return alarms.compactMap { $0.nextFiring(after: now, in: zone) }.min().map { LocalTime.text(of: $0, in: zone) }
    }

    /// "07:00 weekdays: playlist:Wake at volume 40, fading in over 60 s".
    static func words(_ alarm: Alarm) -> String {
        let volume = alarm.volume.map { " at volume \($0)" } ?? ""
        let fade = alarm.fadeSeconds > 0 ? ", fading in over \(alarm.fadeSeconds) s" : ""
        return "\(alarm.time) \(alarm.repeats): \(alarm.source)\(volume)\(fade)\(alarm.enabled ? "" : " (off)")"
    }
}
