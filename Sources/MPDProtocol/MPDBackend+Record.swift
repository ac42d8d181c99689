import FermataCore

/// What `record` answers: the capture device, what recording does, the round trip measured, the last problem and the
/// number of takes kept. A value; any thread.
public struct RecordReport: Sendable, Hashable {
    /// `record.device` (empty: none configured).
    public var device: String
    /// Recording is on (it captures while a loop or a section with passes plays).
    public var on: Bool
    /// `off`, `waiting` (on, the output not playing yet or the device being retried), `capturing`, `measuring`.
    public var phase: String
    /// The rate captured at while capturing.
    public var rate: Int?
    /// The output → capture round trip in milliseconds (nil: never measured for this pair of devices).
    public var latencyMilliseconds: Double?
    public var lastError: String?
    public var takes: Int

    public init(device: String, on: Bool, phase: String, rate: Int?, latencyMilliseconds: Double?, lastError: String?,
                takes: Int) {
        self.device = device
        self.on = on
        self.phase = phase
        self.rate = rate
        self.latencyMilliseconds = latencyMilliseconds
        self.lastError = lastError
        self.takes = takes
    }
}

/// One take as `takes` lists it. A value; any thread.
public struct TakeReport: Sendable, Hashable {
    public var id: Int64
    /// The track (its queue URI) played while the take was recorded.
    public var path: String
    public var loopStartMilliseconds: Int64
    public var loopEndMilliseconds: Int64
    public var pass: Int
    public var tempoPercent: Double
    /// Unix seconds.
    public var recordedAt: Int64
    public var seconds: Double
    public var bytes: Int64

    public init(id: Int64, path: String, loopStartMilliseconds: Int64, loopEndMilliseconds: Int64, pass: Int,
                tempoPercent: Double, recordedAt: Int64, seconds: Double, bytes: Int64) {
        self.id = id
        self.path = path
        self.loopStartMilliseconds = loopStartMilliseconds
        self.loopEndMilliseconds = loopEndMilliseconds
        self.pass = pass
        self.tempoPercent = tempoPercent
        self.recordedAt = recordedAt
        self.seconds = seconds
        self.bytes = bytes
    }
}

/// How `playtake` plays a take back. A value; any thread.
public enum TakePlayback: Sendable, Hashable, CustomStringConvertible {
    /// The take by itself.
    case alone
    /// The original's loop (at the take's tempo), then the take, `rounds` times.
    case alternate(rounds: Int)
    /// The original's loop (at the take's tempo) for `rounds` passes with the take mixed over each pass:
    /// `takePercent` 0 is the original alone, 100 the take alone, 50 both at −3 dB (an equal-power balance).
    case balance(takePercent: Int, rounds: Int)

    /// The modes by their protocol names.
    public enum Mode: String, Sendable, CaseIterable {
        case alone, alternate, balance
    }

    public var mode: Mode {
        switch self {
        case .alone: .alone
        case .alternate: .alternate
        case .balance: .balance
        }
    }

    /// The protocol's words for it: `alone`, `alternate 2`, `balance 50 2`.
    public var description: String {
        switch self {
        case .alone: "alone"
        case let .alternate(rounds): "alternate \(rounds)"
        case let .balance(percent, rounds): "balance \(percent) \(rounds)"
        }
    }

    public static let expected = "the mode is alone, alternate or balance"
    /// How many rounds (original/take pairs, or mixed passes) `alternate` and `balance` queue, and how many by default.
    public static let rounds = 1...50
    public static let defaultRounds = 2
    /// The take's share in `balance`, and the default: both at −3 dB.
    public static let percents = 0...100
    public static let defaultPercent = 50
}

/// The defaults for backends without recording (test doubles): `ACK [5@0] {…} no recording here`.
extension MPDBackend {
    public func recording(_ on: Bool?) async throws -> RecordReport {
        throw MPDError(.unknown, "no recording here")
    }

    public func takes(path: String?) async throws -> [TakeReport] {
        throw MPDError(.unknown, "no recording here")
    }

    public func deleteTake(id: Int64) async throws {
        throw MPDError(.unknown, "no recording here")
    }

    public func measureLatency(rate: Int?) async throws -> (milliseconds: Double, frames: Int, rate: Int) {
        throw MPDError(.unknown, "no recording here")
    }

    public func playTake(id: Int64, _ playback: TakePlayback) async throws {
        throw MPDError(.unknown, "no recording here")
    }
}
