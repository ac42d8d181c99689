import FermataCore
import Foundation
import Hummingbird
import MPDProtocol

/// Practice statistics and sections: `/api/practice` (time per day, per track and per section over the last days, the
/// page draws the charts), `/api/practice.csv` (what `fermata practice --csv` writes), `/api/sections` (the current
/// track's: list, add or save the loop, edit, delete, queue).
///
/// A value; its handlers run on the requests' tasks.
struct PracticeRoutes: Sendable {
    let api: WebAPI

    func register(on router: Router<WebContext>) {
        router.get("/api/practice") { request, _ in
            let days = try WebAPI.integer(request, "days", in: 1...366, default: 7)
            return api.json(try await practice(days: days))
        }
        router.get("/api/practice.csv") { request, _ in
            let days = try WebAPI.integer(request, "days", in: 1...366, default: 30)
            let csv = try await csv(days: days)
            return Response(status: .ok, headers: [
                .contentType: "text/csv; charset=utf-8", .cacheControl: "no-store",
                .contentDisposition: "attachment; filename=\"fermata-practice.csv\"",
            ], body: .init(byteBuffer: ByteBuffer(string: csv)))
        }
        router.get("/api/sections") { _, _ in api.json(try await sections()) }
        router.post("/api/sections") { request, context in
            let input = try await api.body(request, context, as: SectionInput.self)
            if input.start == nil && input.end == nil {
                try await edit(.saveLoop(name: input.name))
            } else {
                try await edit(.add(try input.section(named: input.name)))
            }
            return api.json(try await sections())
        }
        router.put("/api/sections/:index") { request, context in
            let index = try WebAPI.parameter(context, "index", in: 1...PracticeSection.maxPerTrack) - 1
            let input = try await api.body(request, context, as: SectionInput.self)
            let current = try await sections().sections
            guard current.indices.contains(index) else { throw WebFailure.notFound("no section \(index + 1)") }
            let old = current[index]
            // Only what the body names changes: a rename keeps the ends, passes and tempo.
            let merged = SectionInput(name: input.name ?? old.name, start: input.start ?? old.start, end: input.end ?? old.end,
                                      passes: input.passes ?? old.passes, tempo: input.tempo ?? old.tempo)
            try await edit(.replace(index, try merged.section(named: merged.name)))
            return api.json(try await sections())
        }
        router.delete("/api/sections/:index") { _, context in
            let index = try WebAPI.parameter(context, "index", in: 1...PracticeSection.maxPerTrack) - 1
            try await edit(.delete(index))
            return api.json(try await sections())
        }
        router.post("/api/sections/:index/queue") { _, context in
            let index = try WebAPI.parameter(context, "index", in: 1...PracticeSection.maxPerTrack) - 1
            let status = try await WebAPI.calling { try await api.mpd.status() }
            guard let path = status.player.path, status.player.sections.indices.contains(index) else {
                throw WebFailure.notFound("no section \(index + 1) on the track playing")
            }
            let span = PlaySpan(section: status.player.sections[index])
            let ids = try await WebAPI.calling { try await api.mpd.editQueue(.add(.part(uri: path, span), at: .end)) }
            return api.json(WebJSON.IDs(ids: ids))
        }
    }

    /// A section as the page sends it: seconds, passes (nil: for ever), tempo (nil: the tempo in force).
    struct SectionInput: Decodable {
        var name: String?
        var start: Double?
        var end: Double?
        var passes: Int?
        var tempo: Int?

        func section(named name: String?) throws -> PracticeSection {
            guard let name, let start, let end else { throw WebFailure.bad("a section needs a name, a start and an end") }
            guard let section = PracticeSection(name: name, startSeconds: start, endSeconds: end, passes: passes,
                                                tempoPercent: tempo) else {
                throw WebFailure.bad("a section's ends are seconds within 24 hours")
            }
            if let problem = section.problem { throw WebFailure.bad(problem) }
            return section
        }
    }

    private func edit(_ edit: SectionEdit) async throws {
        do {
            _ = try await WebAPI.calling { try await api.mpd.editSections(edit) }
        } catch let failure as WebFailure where failure.message.contains("nothing is playing") {
            throw WebFailure.refused(failure.message)
        }
    }

    private func sections() async throws -> WebJSON.Sections {
        let player = try await WebAPI.calling { try await api.mpd.status() }.player
        return WebJSON.Sections(file: player.path, active: player.activeSection.map { $0 + 1 },
                                sections: player.sections.enumerated().map { WebJSON.Section($0.element, index: $0.offset) })
    }

    // MARK: statistics

    /// The last `days` local days, oldest first, as `YYYY-MM-DD`.
    static func lastDays(_ days: Int, now: Date = Date()) -> [String] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        // Noon: far from any daylight-saving jump.
        let noon = calendar.date(bySettingHour: 12, minute: 0, second: 0, of: now) ?? now
        return (0..<days).reversed().compactMap { calendar.date(byAdding: .day, value: -$0, to: noon) }.map { date in
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
        }
    }

    private func reports(days: Int) async throws -> [PracticeReport] {
        var reports: [PracticeReport] = []
        for day in Self.lastDays(days) {
            reports.append(try await WebAPI.calling { try await api.mpd.practiceReport(.day(day)) })
        }
        return reports
    }

    private func practice(days: Int) async throws -> WebJSON.Practice {
        let reports = try await reports(days: days)
        var tracks: [String: WebJSON.PracticeTrack] = [:]
        for report in reports {
            for track in report.tracks {
                var entry = tracks[track.file] ?? WebJSON.PracticeTrack(file: track.file, title: track.title,
                                                                        artist: track.artist, seconds: 0, sections: [])
                entry.seconds += track.seconds
                for loop in track.loops {
                    let name = loop.section ?? String(format: "%.1f–%.1f s", loop.startSeconds, loop.endSeconds)
                    if let at = entry.sections.firstIndex(where: { $0.name == name }) {
                        entry.sections[at].seconds += loop.seconds
                    } else {
                        entry.sections.append(WebJSON.PracticePart(name: name, seconds: loop.seconds))
                    }
                }
                tracks[track.file] = entry
            }
        }
        let ordered = tracks.values.sorted { $0.seconds > $1.seconds }.map { track in
            var track = track
            track.sections.sort { $0.seconds > $1.seconds }
            return track
        }
        return WebJSON.Practice(from: reports.first?.firstDay ?? "", to: reports.last?.lastDay ?? "",
                                total: reports.reduce(0) { $0 + $1.totalSeconds },
                                days: reports.map { WebJSON.PracticeDay(day: $0.firstDay, seconds: $0.totalSeconds) },
                                tracks: ordered)
    }

    private func csv(days: Int) async throws -> String {
        var lines = [PracticeCSV.header]
        for report in try await reports(days: days) {
            for track in report.tracks {
                let seconds = String(format: "%.3f", track.seconds)
                lines.append(PracticeCSV.row([report.firstDay, track.file, track.title, track.artist, nil, nil, nil, seconds]))
                for loop in track.loops {
                    lines.append(PracticeCSV.row([report.firstDay, track.file, track.title, track.artist, loop.section,
                                                  String(format: "%.3f", loop.startSeconds),
                                                  String(format: "%.3f", loop.endSeconds),
                                                  String(format: "%.3f", loop.seconds)]))
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
