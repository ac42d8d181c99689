import AudioCore
import FermataCore
import Foundation
import HTTPTypes
import Hummingbird
import MPDProtocol

/// The session, the status and the controls: `/api/session`, `/api/login`, `/api/logout`, `/api/status`,
/// `/api/control`, `/api/events`. A control is the action a button does (`ControlAction`), through the same MPD
/// backend the MPD port uses, so it is saved before it is answered and every MPD client sees it at once; `sleep`
/// sets the sleep timer (seconds, 0: off).
///
/// A value; its handlers run on the requests' tasks.
struct PlayerRoutes: Sendable {
    let api: WebAPI

    /// What a guest may do: play, pause, skip and the volume (within the cap the player enforces on every path).
    static let guestActions: Set<String> = ["play", "pause", "toggle", "next", "previous", "volume", "volume_by"]

    func register(on router: Router<WebContext>) {
        router.get("/api/session") { _, context in try await session(context) }
        router.post("/api/login") { request, context in try await login(request, context) }
        router.post("/api/logout") { request, _ in
            if let cookie = WebGate.sessionCookie(request) { await api.access.logout(cookie: cookie) }
            var response = WebAPI.noContent
            response.headers[.setCookie] = WebGate.clearedCookie
            return response
        }
        router.get("/api/status") { _, _ in api.json(try await WebReadings(backend: api.backend).status()) }
        router.post("/api/control") { request, context in try await control(request, context) }
        router.get("/api/events") { _, context in try await events(context) }
    }

    // MARK: session

    private func session(_ context: WebContext) async throws -> Response {
        let set = await api.access.passwordsSet()
        return api.json(WebJSON.Session(role: context.role?.rawValue ?? "none", loginRequired: !context.isLoopback,
                                        passwordSet: set.owner || set.guest, version: FermataVersion.number))
    }

    private struct Login: Decodable {
        let password: String
    }

    private func login(_ request: Request, _ context: WebContext) async throws -> Response {
        let body = try await api.body(request, context, as: Login.self)
        guard body.password.utf8.count <= 1024 else { throw WebFailure.bad("the password is longer than 1024 bytes") }
        do {
            let (cookie, role) = try await api.access.login(password: body.password, peer: context.peer)
            var response = api.json(WebJSON.Session(role: role.rawValue, loginRequired: !context.isLoopback,
                                                    passwordSet: true, version: FermataVersion.number))
            response.headers[.setCookie] = WebGate.sessionCookieHeader(cookie)
            return response
        } catch WebAccess.LoginRefusal.noPassword {
            throw WebFailure(.serviceUnavailable, "no password is set: run `fermata web password` on the box")
        } catch WebAccess.LoginRefusal.wrongPassword {
            throw WebFailure(.unauthorized, "wrong password")
        }
    }

    // MARK: control

    private struct Control: Decodable {
        let action: String
        let value: Double?
    }

    private func control(_ request: Request, _ context: WebContext) async throws -> Response {
        let body = try await api.body(request, context, as: Control.self)
        if context.role == .guest, !Self.guestActions.contains(body.action) {
            throw WebFailure(.forbidden, "a guest may play, pause, skip and change the volume")
        }
        if let value = body.value, !value.isFinite { throw WebFailure.bad("value must be a finite number") }
        try await WebAPI.calling {
            switch try Self.command(body.action, body.value) {
            case let .action(action): try await api.mpd.perform(action)
            case let .option(option): try await api.mpd.setOption(option)
            case .saveSection: _ = try await api.mpd.editSections(.saveLoop(name: nil))
            case let .sleep(seconds):
                let request: SleepTimerRequest = seconds.map { .set(seconds: $0) } ?? .cancel
                _ = try await api.mpd.sleepTimer(request)
            }
        }
        return WebAPI.noContent
    }

    /// What a control does.
    enum Command: Equatable {
        case action(ControlAction)
        case option(PlayerOption)
        case saveSection
        /// The sleep timer: seconds from now, or nil (0 on the page): off.
        case sleep(Int?)
    }

    /// The command for `action` with `value`, every number range-checked before it is converted (nothing traps).
    static func command(_ action: String, _ value: Double?) throws -> Command {
        func number(_ range: ClosedRange<Double>, default fallback: Double? = nil) throws -> Double {
            guard let v = value ?? fallback else { throw WebFailure.bad("\(action) needs a value") }
            guard range.contains(v) else {
                throw WebFailure.bad("\(action) takes \(range.lowerBound.formatted()) to \(range.upperBound.formatted())")
            }
            return v
        }
        func whole(_ range: ClosedRange<Int>, default fallback: Int? = nil) throws -> Int {
            let v = try number(Double(range.lowerBound)...Double(range.upperBound), default: fallback.map(Double.init))
            guard v.rounded() == v else { throw WebFailure.bad("\(action) takes a whole number") }
            return Int(v)
        }
        switch action {
        case "play": return .action(.play)
        case "pause": return .action(.pause)
        case "toggle": return .action(.playPause)
        case "stop": return .action(.stop)
        case "next": return .action(.next)
        case "previous": return .action(.previous)
        case "seek": return .action(.seek(seconds: try number(0...86_400)))
        case "seek_by": return .action(.seekBy(seconds: try number(-86_400...86_400)))
        case "volume": return .action(.setVolume(try whole(0...100)))
        case "volume_by": return .action(.changeVolume(by: try whole(-100...100)))
        case "loop_a": return .action(.loopSetA)
        case "loop_b": return .action(.loopSetB)
        case "loop_clear": return .action(.loopClear)
        case "again": return .action(.loopLast(seconds: try number(0.5...600, default: 8)))
        case "again_bars": return .action(.loopLastBars(try whole(1...64, default: 2), beatsPerBar: 4))
        case "section_next": return .action(.playSection(.next))
        case "section_previous": return .action(.playSection(.previous))
        case "section_play": return .action(.playSection(.index(try whole(1...PracticeSection.maxPerTrack) - 1)))
        case "section_save": return .saveSection
        case "tempo": return .action(.setTempo(percent: try whole(50...150)))
        case "tempo_by": return .action(.changeTempo(by: try whole(-100...100)))
        case "transpose":
            return .action(.setTranspose(cents: Int((try number(-12.5...12.5) * 100).rounded())))
        case "transpose_by":
            return .action(.changeTranspose(by: Int((try number(-25...25) * 100).rounded())))
        case "metronome": return .action(.toggleMetronome)
        case "trainer": return .action(.toggleTrainer)
        case "trainer_again": return .action(.trainerAgain)
        case "count_in":
            let beats = try whole(0...16, default: 4)
            return .action(.countIn(beats == 0 ? nil : CountInPlan(beats: beats)))
        case "tap": return .action(.tapTempo(atNanoseconds: MonotonicClock.nanoseconds()))
        case "repeat": return .action(.setRepeat(try whole(0...1) == 1 ? .queue : .off))
        case "single": return .action(.setSingle(try whole(0...1) == 1))
        case "random": return .option(.random(try whole(0...1) == 1))
        case "consume": return .option(.consume(try whole(0...1) == 1))
        case "sleep":
            let seconds = try whole(0...TimerDuration.sleepSeconds.upperBound)
            return .sleep(seconds == 0 ? nil : seconds)
        default: throw WebFailure.bad("unknown action \(action)")
        }
    }

    // MARK: events

    /// The page's event stream; it ends when the page closes its connection (a reload, a closed or hidden tab), so
    /// its slot is free for the next page at once.
    private func events(_ context: WebContext) async throws -> Response {
        guard let (id, frames) = await api.events.subscribe() else {
            throw WebFailure(.tooManyRequests, "too many pages are following the box (at most \(WebEvents.maxStreams))")
        }
        let events = api.events
        await PeerCloseWatcher.whenClosed(context.channel) { events.unsubscribe(id) }
        let headers: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-store",
                                   HTTPField.Name("X-Accel-Buffering")!: "no"]
        return Response(status: .ok, headers: headers, body: .init { writer in
            defer { events.unsubscribe(id) }
            for await frame in frames { try await writer.write(ByteBuffer(string: frame)) }
            try await writer.finish(nil)
        })
    }
}
