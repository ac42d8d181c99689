import FermataCore
import Foundation
import Hummingbird
import MPDProtocol

/// The household's and the box's pages: `/api/cards` (list, bind, learn from the next swipe, forget), `/api/box` (the
/// version, what `fermata doctor` says, outputs, volume limits, the library and its scan), `/api/outputs/{id}`,
/// `/api/scan`.
///
/// A value; its handlers run on the requests' tasks.
struct BoxRoutes: Sendable {
    let api: WebAPI

    func register(on router: Router<WebContext>) {
        router.get("/api/cards") { _, _ in
            let report = try await WebAPI.calling { try await api.mpd.cards() }
            return api.json(WebJSON.Cards(
                cards: report.cards.map {
                    WebJSON.Card(id: $0.id, target: $0.target.description, volumeMax: $0.volumeMax,
                                 origin: $0.origin == "assigned" ? "assigned" : "configured")
                },
                unknown: report.unknown.map { [$0.id] } ?? [], learning: await api.backend.cardLearning()))
        }
        router.post("/api/cards") { request, context in
            let body = try await api.body(request, context, as: CardInput.self)
            let (id, target, cap) = try body.checked()
            try await WebAPI.calling { try await api.mpd.editCards(.assign(id: id, target: target, volumeMax: cap)) }
            return WebAPI.noContent
        }
        router.post("/api/cards/learn") { request, context in
            let body = try await api.body(request, context, as: Learn.self)
            guard CardTarget(parsing: body.target) != nil else { throw WebFailure.bad(CardTarget.expected) }
            if let cap = body.volumeMax, !(0...100).contains(cap) { throw WebFailure.bad("volume_max is 0 to 100") }
            try await WebAPI.calling { try await api.backend.learnNextCard(target: body.target, volumeMax: body.volumeMax) }
            return Response(status: .accepted, headers: [.cacheControl: "no-store"])
        }
        router.post("/api/cards/learn/cancel") { _, _ in
            try await api.backend.stopLearningCard()
            return WebAPI.noContent
        }
        router.delete("/api/cards/:id") { _, context in
            guard let raw = context.parameters.get("id"), let id = CardBinding.normalized(raw) else {
                throw WebFailure.bad("a card id is 1 to \(CardBinding.maxIDLength) digits or letters A-F")
            }
            try await WebAPI.calling { try await api.mpd.editCards(.forget(id: id)) }
            return WebAPI.noContent
        }
        router.get("/api/box") { _, _ in api.json(try await box()) }
        router.post("/api/outputs/:id") { request, context in
            let id = try WebAPI.parameter(context, "id", in: 0...255)
            let enabled = try await api.body(request, context, as: Switch.self).enabled
            try await WebAPI.calling { try await api.mpd.setOutput(id, enabled: enabled) }
            return WebAPI.noContent
        }
        router.post("/api/scan") { request, context in
            // The body is optional: `{"full": true}` scans every file again. One that is there must be that JSON (it
            // used to be ignored, too large or not, and a plain scan started).
            let full = try await api.optionalBody(request, context, as: Scan.self)?.full ?? false
            _ = try await WebAPI.calling { try await api.mpd.update(nil, rescan: full) }
            return Response(status: .accepted, headers: [.cacheControl: "no-store"])
        }
    }

    private struct CardInput: Decodable {
        let id: String
        let target: String
        let volumeMax: Int?

        enum CodingKeys: String, CodingKey {
            case id, target
            case volumeMax = "volume_max"
        }

        func checked() throws -> (String, CardTarget, Int?) {
            guard let id = CardBinding.normalized(id) else {
                throw WebFailure.bad("a card id is 1 to \(CardBinding.maxIDLength) digits or letters A-F")
            }
            guard let target = CardTarget(parsing: target) else { throw WebFailure.bad(CardTarget.expected) }
            if let volumeMax, !(0...100).contains(volumeMax) { throw WebFailure.bad("volume_max is 0 to 100") }
            return (id, target, volumeMax)
        }
    }

    private struct Learn: Decodable {
        let target: String
        let volumeMax: Int?

        enum CodingKeys: String, CodingKey {
            case target
            case volumeMax = "volume_max"
        }
    }

    private struct Switch: Decodable { let enabled: Bool }
    private struct Scan: Decodable { let full: Bool? }

    private func box() async throws -> WebJSON.Box {
        async let findings = api.backend.findings()
        let outputs = try await WebAPI.calling { try await api.mpd.outputs() }
        let stats = try await WebAPI.calling { try await api.mpd.stats() }
        let limits = api.backend.volumeLimits
        return WebJSON.Box(
            version: FermataVersion.number,
            findings: await findings.map { WebJSON.Finding(ok: $0.ok, what: $0.what, fix: $0.fix) },
            outputs: outputs.map { WebJSON.Output(id: $0.id, name: $0.name, enabled: $0.enabled) },
            volumeMax: limits.max, volumeStart: limits.start, upload: api.backend.uploads != nil,
            library: WebJSON.Library(songs: stats.songs, albums: stats.albums, artists: stats.artists),
            scan: try await WebReadings(backend: api.backend).scan())
    }
}
