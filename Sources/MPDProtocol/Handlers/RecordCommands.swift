import FermataCore

/// Recording yourself: `record [on|off]`, `takes [PATH]`, `takedelete ID`,
/// `playtake ID [alone|alternate [ROUNDS]|balance [TAKE% [ROUNDS]]]`, `audiolatency [RATE]`.
///
/// Stateless; run on the executing command's task.
enum RecordCommands {
    /// The rates `audiolatency` measures at.
    static let rates = 8_000...384_000

    /// `record [on|off]` (also `1`/`0`): turns recording on or off, then answers `record_device`, `record` (0/1),
    /// `record_phase` (`off`, `waiting`, `capturing`, `measuring`), `record_rate` while capturing,
    /// `record_latency_ms` once measured, `record_error` (the last problem) and `takes` (how many are kept).
    static func record(_ c: inout CommandContext) async throws {
        var on: Bool?
        if let text = c.argument(0) {
            switch text {
            case "on", "1": on = true
            case "off", "0": on = false
            default: throw MPDError.badArgument("record takes on or off")
            }
        }
        let report = try await c.backend.recording(on)
        c.response.line("record_device", report.device)
        c.response.line("record", flag: report.on)
        c.response.line("record_phase", report.phase)
        if let rate = report.rate { c.response.line("record_rate", rate) }
        if let latency = report.latencyMilliseconds { c.response.line("record_latency_ms", ResponseText.fixed3(latency)) }
        if let error = report.lastError { c.response.line("record_error", error) }
        c.response.line("takes", report.takes)
    }

    /// `takes [PATH]`: each take (newest first; of one track with `PATH`) as `take` (its id), `file` (the track),
    /// `loop_start` and `loop_end` (seconds), `pass`, `tempo` (percent), `date` (ISO 8601), `duration` (seconds) and
    /// `bytes`.
    static func takes(_ c: inout CommandContext) async throws {
        for take in try await c.backend.takes(path: c.argument(0)) {
            c.response.line("take", String(take.id))
            c.response.line("file", take.path)
            c.response.line("loop_start", seconds: Double(take.loopStartMilliseconds) / 1000)
            c.response.line("loop_end", seconds: Double(take.loopEndMilliseconds) / 1000)
            c.response.line("pass", take.pass)
            c.response.line("tempo", ResponseText.fixed3(take.tempoPercent))
            c.response.line("date", iso8601: take.recordedAt)
            c.response.line("duration", seconds: take.seconds)
            c.response.line("bytes", take.bytes)
        }
    }

    /// `takedelete ID`: deletes the take (its file and its row).
    static func takeDelete(_ c: inout CommandContext) async throws {
        try await c.backend.deleteTake(id: try takeID(c.arguments[0]))
    }

    /// `playtake ID [alone | alternate [ROUNDS] | balance [TAKE% [ROUNDS]]]`: queues the take after the current entry
    /// and plays it — by itself (`alone`, the default); after the original's loop at the take's tempo, `ROUNDS` times
    /// (1–50, default 2); or mixed over the original's loop at the take's tempo for `ROUNDS` passes, the take at
    /// `TAKE%` of the balance (0 the original alone, 100 the take alone, default 50).
    static func playTake(_ c: inout CommandContext) async throws {
        let id = try takeID(c.arguments[0])
        let roundBounds = TakePlayback.rounds, percentBounds = TakePlayback.percents
        func rounds(_ index: Int) throws -> Int {
            try c.argument(index).map {
                try ArgumentParser.int($0, in: roundBounds,
                                       "the rounds are \(roundBounds.lowerBound) to \(roundBounds.upperBound)")
            } ?? TakePlayback.defaultRounds
        }
        let playback: TakePlayback
        switch c.argument(1).map({ TakePlayback.Mode(rawValue: $0) }) {
        case nil, .alone?:
            guard c.argument(2) == nil else { throw MPDError.badArgument("only alternate and balance take more") }
            playback = .alone
        case .alternate?:
            guard c.argument(3) == nil else { throw MPDError.badArgument("alternate takes only a number of rounds") }
            playback = .alternate(rounds: try rounds(2))
        case .balance?:
            let percent = try c.argument(2).map {
                try ArgumentParser.int($0, in: percentBounds,
                                       "the take's share is \(percentBounds.lowerBound) to \(percentBounds.upperBound) %")
            } ?? TakePlayback.defaultPercent
            playback = .balance(takePercent: percent, rounds: try rounds(3))
        case .some(nil):
            throw MPDError.badArgument(TakePlayback.expected)
        }
        try await c.backend.playTake(id: id, playback)
    }

    /// `audiolatency [RATE]`: plays clicks on the output and hears them on the capture device (playback stopped),
    /// stores the round trip; answers `latency_ms`, `latency_frames` and `rate`.
    static func audioLatency(_ c: inout CommandContext) async throws {
        let rate = try c.argument(0).map {
            try ArgumentParser.int($0, in: rates, "the rate is \(rates.lowerBound) to \(rates.upperBound) Hz")
        }
        let measured = try await c.backend.measureLatency(rate: rate)
        c.response.line("latency_ms", ResponseText.fixed3(measured.milliseconds))
        c.response.line("latency_frames", measured.frames)
        c.response.line("rate", measured.rate)
    }

    static func takeID(_ text: String) throws(MPDError) -> Int64 {
        Int64(try ArgumentParser.int(text, in: 1...Int(Int32.max), "a take id is a positive whole number"))
    }
}
