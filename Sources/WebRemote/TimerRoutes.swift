import FermataCore
import Foundation
import Hummingbird
import MPDProtocol

/// The household timers on the page: `/api/alarms` (list each with its next firing, add), `/api/alarms/{id}` (switch
/// on or off, remove). The sleep timer is a control (`/api/control` with `sleep`) and in the status (`sleep`). Every
/// value is checked here before it reaches the backend, which checks it again.
///
/// A value; its handlers run on the requests' tasks.
struct TimerRoutes: Sendable {
    let api: WebAPI

    func register(on router: Router<WebContext>) {
        router.get("/api/alarms") { _, _ in
            let reports = try await WebAPI.calling { try await api.mpd.alarms() }
            return api.json(WebJSON.Alarms(alarms: reports.map(WebJSON.Alarm.init)))
        }
        router.post("/api/alarms") { request, context in
            let alarm = try await api.body(request, context, as: AlarmInput.self).checked()
            let id = try await WebAPI.calling { try await api.mpd.editAlarms(.add(alarm)) }
            return api.json(WebJSON.Created(id: id ?? 0), status: .created)
        }
        router.post("/api/alarms/:id") { request, context in
            let id = try WebAPI.parameter(context, "id", in: 1...Int(Int32.max))
            let enabled = try await api.body(request, context, as: Switch.self).enabled
            try await WebAPI.calling { try await api.mpd.editAlarms(.enable(id: Int64(id), enabled)) }
            return WebAPI.noContent
        }
        router.delete("/api/alarms/:id") { _, context in
            let id = try WebAPI.parameter(context, "id", in: 1...Int(Int32.max))
            try await WebAPI.calling { try await api.mpd.editAlarms(.remove(id: Int64(id))) }
            return WebAPI.noContent
        }
    }

    /// A new alarm as the page sends it.
    struct AlarmInput: Decodable {
        let time: String
        let `repeat`: String
        let play: String
        let volume: Int?
        let fade: Int?

        /// The alarm, or a 400 saying what is wrong.
        func checked() throws -> FermataCore.Alarm {
            guard time.utf8.count <= 8, let at = AlarmTime(parsing: time) else { throw WebFailure.bad("time is HH:MM") }
            guard `repeat`.utf8.count <= 64, let repeats = AlarmRepeat(parsing: `repeat`) else {
                throw WebFailure.bad(AlarmRepeat.expected)
            }
            guard let source = AlarmSource(parsing: play) else { throw WebFailure.bad(AlarmSource.expected) }
            if let volume, !(0...100).contains(volume) { throw WebFailure.bad("volume is 0 to 100") }
            let fade = fade ?? FermataCore.Alarm.defaultFadeSeconds
            guard FermataCore.Alarm.fadeSeconds.contains(fade) else { throw WebFailure.bad("fade is 0 to 3600 seconds") }
            return FermataCore.Alarm(time: at, repeats: repeats, source: source, volume: volume, fadeSeconds: fade)
        }
    }

    struct Switch: Decodable {
        let enabled: Bool
    }
}

extension WebJSON {
    struct Alarms: Encodable {
        var alarms: [Alarm]
    }

    /// One alarm as the page shows it; `next` in Unix seconds and `nextLocal` in the box's local time.
    struct Alarm: Encodable {
        var id: Int64
        var time: String
        var `repeat`: String
        var play: String
        var volume: Int?
        var fade: Int
        var enabled: Bool
        var next: Int64?
        var nextLocal: String?

        init(_ report: AlarmReport) {
            id = report.alarm.id
            time = report.alarm.time.description
            `repeat` = report.alarm.repeats.description
            play = report.alarm.source.description
            volume = report.alarm.volume
            fade = report.alarm.fadeSeconds
            enabled = report.alarm.enabled
            next = report.next
            nextLocal = report.nextText
        }
    }

    struct Created: Encodable {
        var id: Int64
    }
}
