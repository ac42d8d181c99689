import FermataCore
import Foundation
import Hummingbird
import MPDProtocol

/// Recording yourself on the page: `/api/recording` (what recording does; on or off), `/api/takes` (the takes, of one
/// track with `path`), `/api/takes/{id}` (delete), `/api/takes/{id}/play` (alone, or alternating with the original).
/// Each is the MPD backend's call the port's `record`, `takes`, `takedelete` and `playtake` make, so the page and an
/// MPD client are the same call; every value is checked here before it reaches the backend, which checks it again.
/// Owner only: `WebGate` answers a guest 403 (these paths are not the guest's).
///
/// A value; its handlers run on the requests' tasks.
struct RecordingRoutes: Sendable {
    let api: WebAPI

    /// Take ids as `takedelete` and `playtake` take them.
    static let ids = 1...Int(Int32.max)

    func register(on router: Router<WebContext>) {
        router.get("/api/recording") { _, _ in
            api.json(WebJSON.Recording(try await Self.calling { try await api.mpd.recording(nil) }))
        }
        router.post("/api/recording") { request, context in
            let on = try await api.body(request, context, as: Switch.self).on
            return api.json(WebJSON.Recording(try await Self.calling { try await api.mpd.recording(on) }))
        }
        router.get("/api/takes") { request, _ in
            let path = try Self.path(request.uri.queryParameters["path"].map(String.init))
            let (offset, limit) = try WebAPI.page(request)
            let takes = try await Self.calling { try await api.mpd.takes(path: path) }
            return api.json(WebJSON.Takes(total: takes.count, offset: offset,
                                          takes: takes.dropFirst(offset).prefix(limit).map(WebJSON.Take.init)))
        }
        router.delete("/api/takes/:id") { _, context in
            let id = try WebAPI.parameter(context, "id", in: Self.ids)
            try await Self.calling { try await api.mpd.deleteTake(id: Int64(id)) }
            return WebAPI.noContent
        }
        router.post("/api/takes/:id/play") { request, context in
            let id = try WebAPI.parameter(context, "id", in: Self.ids)
            let playback = try (try await api.optionalBody(request, context, as: PlayInput.self) ?? PlayInput()).checked()
            try await Self.calling { try await api.mpd.playTake(id: Int64(id), playback) }
            return WebAPI.noContent
        }
    }

    struct Switch: Decodable {
        let on: Bool
    }

    /// How the page asks a take to be played: `mode` (`alone`, the default, `alternate` or `balance`); for
    /// `alternate` and `balance`, `rounds` (1–50, 2 by default); for `balance`, `take` (the take's share, 0–100 %, 50 by
    /// default). Numbers are checked here, so that NaN, a fraction or a huge value is a 400 that says so.
    struct PlayInput: Decodable {
        var mode: String?
        var rounds: Double?
        var take: Double?

        /// The playback asked for, or a 400 saying what is wrong.
        func checked() throws -> TakePlayback {
            var mode = TakePlayback.Mode.alone
            if let text = self.mode {
                guard let parsed = TakePlayback.Mode(rawValue: text) else { throw WebFailure.bad(TakePlayback.expected) }
                mode = parsed
            }
            if rounds != nil, mode == .alone { throw WebFailure.bad("only alternate and balance take a number of rounds") }
            if take != nil, mode != .balance { throw WebFailure.bad("only balance takes the take's share") }
            let rounds = try Self.whole(self.rounds, "rounds", in: TakePlayback.rounds) ?? TakePlayback.defaultRounds
            switch mode {
            case .alone: return .alone
            case .alternate: return .alternate(rounds: rounds)
            case .balance:
                let percent = try Self.whole(take, "take", in: TakePlayback.percents) ?? TakePlayback.defaultPercent
                return .balance(takePercent: percent, rounds: rounds)
            }
        }

        static func whole(_ value: Double?, _ name: String, in bounds: ClosedRange<Int>) throws -> Int? {
            guard let value else { return nil }
            guard value.isFinite, value == value.rounded(), Double(bounds.lowerBound) <= value,
                  value <= Double(bounds.upperBound) else {
                throw WebFailure.bad("\(name) must be a whole number from \(bounds.lowerBound) to \(bounds.upperBound)")
            }
            return Int(value)
        }
    }

    /// The `path` query parameter (a track's path as `takes` names it; absent: every take): at most 4096 bytes, not
    /// empty, no control characters — else a 400 that says so.
    static func path(_ value: String?) throws -> String? {
        guard let path = value else { return nil }
        guard path.utf8.count <= 4096 else { throw WebFailure.bad("path is longer than 4096 bytes") }
        guard !path.isEmpty, !path.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw WebFailure.bad("path must be a track's path, without control characters")
        }
        return path
    }

    /// `WebAPI.calling`, with recording's own refusals (`[5]`: no capture device, no recording on this box) as a
    /// 409 that says why, where another unknown error would be a 500.
    @discardableResult
    static func calling<T>(_ body: () async throws -> T) async throws -> T {
        try await WebAPI.calling {
            do {
                return try await body()
            } catch let error as MPDError where error.code == .unknown {
                throw WebFailure.refused(error.message)
            }
        }
    }
}

extension WebJSON {
    /// What recording does (`record`'s answer).
    struct Recording: Encodable {
        /// `record.device` (empty: none configured).
        var device: String
        var on: Bool
        /// `off`, `waiting`, `capturing` or `measuring`.
        var phase: String
        var rate: Int?
        var latencyMs: Double?
        /// The last problem, in words.
        var error: String?
        var takes: Int

        init(_ report: RecordReport) {
            device = report.device
            on = report.on
            phase = report.phase
            rate = report.rate
            latencyMs = report.latencyMilliseconds
            error = report.lastError
            takes = report.takes
        }
    }

    /// One take as `takes` lists it: the track, the loop (seconds), the pass, the tempo, when (Unix seconds) and its
    /// length.
    struct Take: Encodable {
        var id: Int64
        var file: String
        var loopStart: Double
        var loopEnd: Double
        var pass: Int
        var tempo: Double
        var date: Int64
        var length: Double
        var bytes: Int64

        init(_ take: TakeReport) {
            id = take.id
            file = take.path
            loopStart = Double(take.loopStartMilliseconds) / 1000
            loopEnd = Double(take.loopEndMilliseconds) / 1000
            pass = take.pass
            tempo = take.tempoPercent
            date = take.recordedAt
            length = take.seconds
            bytes = take.bytes
        }
    }

    struct Takes: Encodable {
        var total: Int
        var offset: Int
        var takes: [Take]
    }
}
