import FermataCore

/// The documented shape of one saved queue entry as `Codable` writes it: the reference `QueueSegmentCodec` is held to
/// (`QueueSegmentCodecTests`: Foundation's `JSONDecoder` reads what the codec writes, and the codec reads what
/// `JSONEncoder` writes) and measured against (`fermata-resume-bench --codec`). Not used to save the queue: the
/// hand-written codec is ten times as fast (its doc comment has the figures).
///
/// A value; any thread.
package struct QueueEntryReference: Codable, Equatable, Sendable {
    package struct Span: Codable, Equatable, Sendable {
        var start_ms: Int64
        var end_ms: Int64?
        var passes: Int
        var tempo: Int?
        var section: String?
    }

    var id: Int64
    var version: Int
    var uri: String
    var track_gain: Double?
    var track_peak: Double?
    var album_gain: Double?
    var album_peak: Double?
    var priority: UInt8?
    var span: Span?

    package init(_ entry: QueueEntry) {
        id = entry.id
        version = entry.version
        uri = entry.uri
        track_gain = entry.replayGain.trackGain
        track_peak = entry.replayGain.trackPeak
        album_gain = entry.replayGain.albumGain
        album_peak = entry.replayGain.albumPeak
        priority = entry.priority == 0 ? nil : entry.priority
        span = entry.span.map { Span(start_ms: $0.startMilliseconds, end_ms: $0.endMilliseconds, passes: $0.passes,
                                     tempo: $0.tempoPercent, section: $0.section) }
    }

    package var entry: QueueEntry {
        QueueEntry(id: id, uri: uri, replayGain: ReplayGainInfo(trackGain: track_gain, trackPeak: track_peak,
                                                               albumGain: album_gain, albumPeak: album_peak),
                   version: version, priority: priority ?? 0,
                   span: span.map { PlaySpan(startMilliseconds: $0.start_ms, endMilliseconds: $0.end_ms,
                                             passes: $0.passes, tempoPercent: $0.tempo, section: $0.section) })
    }

    /// Seeded random entries as owners' queues hold them, awkward on purpose: names with quotes, back slashes, control
    /// and non-BMP characters; gains present or not; priorities; parts with and without end, tempo and name.
    package static func samples(count: Int, seed: UInt64) -> [QueueEntry] {
        var random = SeededRandom(seed: seed)
        let pieces = ["a", "\"", "\\", "/", "\t", "\u{1}", "é", "🎻", "汉", " ", "x.flac"]
        func gain() -> Double? {
            Bool.random(using: &random) ? nil : Double(Int.random(in: -2_000...2_000, using: &random)) / 100
        }
        return (0..<count).map { index in
            let uri = (0..<Int.random(in: 1...12, using: &random)).map { _ in pieces.randomElement(using: &random)! }
                .joined()
            var span: PlaySpan?
            if Int.random(in: 0..<4, using: &random) == 0 {
                let start = Int64.random(in: 0...600_000, using: &random)
                let end = Bool.random(using: &random) ? start + Int64.random(in: 1...60_000, using: &random) : nil
                span = PlaySpan(startMilliseconds: start, endMilliseconds: end, passes: Int.random(in: 1...8, using: &random),
                                tempoPercent: Bool.random(using: &random) ? Int.random(in: 50...150, using: &random) : nil,
                                section: Bool.random(using: &random) ? "part \"\(index)\"" : nil)
            }
            let priority = Int.random(in: 0..<3, using: &random) == 0 ? UInt8.random(in: 1...255, using: &random) : 0
            return QueueEntry(id: EntryID(index + 1), uri: uri,
                              replayGain: ReplayGainInfo(trackGain: gain(), trackPeak: gain().map(abs),
                                                         albumGain: gain(), albumPeak: gain().map(abs)),
                              version: Int.random(in: 0...1_000, using: &random), priority: priority, span: span)
        }
    }

    /// SplitMix64: the samples are the same on every machine for a seed.
    private struct SeededRandom: RandomNumberGenerator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
