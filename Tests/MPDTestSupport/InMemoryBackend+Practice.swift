import FermataCore
import MPDProtocol

/// A fixed practice report for the protocol tests: one library track with a loop region and one other file.
extension InMemoryBackend {
    public func practiceReport(_ period: PracticePeriod) async throws -> PracticeReport {
        let days = switch period {
        case .today: ("2025-03-12", "2025-03-12")
        case .thisWeek, .week: ("2025-03-10", "2025-03-16")
        case let .day(day): (day, day)
        }
        return PracticeReport(period: period.name, firstDay: days.0, lastDay: days.1, totalSeconds: 130.5, tracks: [
            PracticeTrackTime(file: "Beta/Second/01 Uno.flac", title: "Uno", artist: "Beta", seconds: 100.25,
                              loops: [PracticeLoopTime(startSeconds: 1.5, endSeconds: 3.25, seconds: 40)]),
            PracticeTrackTime(file: "x.flac", seconds: 30.25),
        ])
    }
}
