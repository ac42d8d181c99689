import FermataCore
import MPDProtocol

/// Recording kept as plain values for the protocol tests: a capture device `test-capture` that never captures, a fixed
/// round trip, the takes a test sets (`setTakes`), and the takes played noted as `ID MODE ROUNDS`.
extension InMemoryBackend {
    public func setTakes(_ takes: [TakeReport]) { takeList = takes }

    public func recording(_ on: Bool?) async throws -> RecordReport {
        if let on { recordOn = on }
        return RecordReport(device: "test-capture", on: recordOn, phase: recordOn ? "waiting" : "off", rate: nil,
                            latencyMilliseconds: 12.5, lastError: nil, takes: takeList.count)
    }

    public func takes(path: String?) async throws -> [TakeReport] {
        takeList.filter { path == nil || $0.path == path }
    }

    public func deleteTake(id: Int64) async throws {
        guard takeList.contains(where: { $0.id == id }) else { throw MPDError(.noExist, "no take \(id)") }
        takeList.removeAll { $0.id == id }
    }

    public func measureLatency(rate: Int?) async throws -> (milliseconds: Double, frames: Int, rate: Int) {
        let rate = rate ?? 48_000
        return (12.5, rate / 80, rate)
    }

    public func playTake(id: Int64, _ playback: TakePlayback) async throws {
        guard takeList.contains(where: { $0.id == id }) else { throw MPDError(.noExist, "no take \(id)") }
        playedTakes.append("\(id) \(playback)")
    }
}
