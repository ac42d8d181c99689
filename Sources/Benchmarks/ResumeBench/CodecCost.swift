import FermataCore
import Foundation
import StateDatabase

/// `fermata-resume-bench --codec`: what saving and reading a 10,000-entry queue costs in the queue codec, beside
/// Foundation's `JSONEncoder`/`JSONDecoder` over the same documented members (`QueueEntryReference`): medians of 20.
/// The figures behind `QueueSegmentCodec`'s choice to be written by hand.
enum CodecCost {
    static func run(entries count: Int = 10_000) throws {
        // As a library's queue is: plain paths, ReplayGain on each, no parts of files; then the awkward samples the
        // tests use (escapes, non-BMP characters, parts, priorities).
        let plain = (0..<count).map { index in
            QueueEntry(id: EntryID(index + 1), uri: "Artist \(index / 100)/Album \(index / 10)/\(index % 10 + 1) Track.flac",
                       replayGain: ReplayGainInfo(trackGain: -6.52, trackPeak: 0.98765, albumGain: -7.01, albumPeak: 1),
                       version: 1)
        }
        try measure(plain, "plain")
        try measure(QueueEntryReference.samples(count: count, seed: 9), "awkward")
    }

    static func measure(_ entries: [QueueEntry], _ label: String) throws {
        let count = entries.count
        let reference = entries.map(QueueEntryReference.init)
        let text = QueueSegmentCodec.encode(entries)
        let data = Data(text.utf8)
        func median(_ body: () throws -> Void) rethrows -> Double {
            var times: [Double] = []
            for _ in 0..<20 {
                let start = ContinuousClock.now
                try body()
                let elapsed = ContinuousClock.now - start
                times.append(Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15)
            }
            return times.sorted()[times.count / 2]
        }
        let encode = median { _ = QueueSegmentCodec.encode(entries) }
        let decode = try median { _ = try QueueSegmentCodec.decode(text) }
        let codableEncode = try median { _ = try JSONEncoder().encode(reference) }
        let codableDecode = try median { _ = try JSONDecoder().decode([QueueEntryReference].self, from: data) }
        print(label, String(format: "%d entries, %d bytes: QueueSegmentCodec encode %.2f ms, decode %.2f ms; "
                     + "JSONEncoder %.2f ms, JSONDecoder %.2f ms (medians of 20)",
                     count, text.utf8.count, encode, decode, codableEncode, codableDecode))
    }
}
