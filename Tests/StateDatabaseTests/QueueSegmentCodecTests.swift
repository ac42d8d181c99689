import FermataCore
import Foundation
@testable import StateDatabase
import Testing

/// The queue codec against Foundation's `JSONEncoder` and `JSONDecoder` over the documented members
/// (`QueueEntryReference`, the `Codable` model): each reads what the other writes, for seeded random entries with
/// awkward names, every gain, priorities and parts of files. The codec is written by hand for speed
/// (`fermata-resume-bench --codec` measures both), so this is what keeps it honest JSON with the documented members.
@Suite struct QueueSegmentCodecTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func codableReadsWhatTheCodecWritesAndTheCodecReadsWhatCodableWrites(seed: UInt64) throws {
        let entries = QueueEntryReference.samples(count: 500, seed: seed)
        let written = QueueSegmentCodec.encode(entries)
        let decoded = try JSONDecoder().decode([QueueEntryReference].self, from: Data(written.utf8))
        #expect(decoded.map(\.entry) == entries)
        let byCodable = String(decoding: try JSONEncoder().encode(entries.map(QueueEntryReference.init)), as: UTF8.self)
        #expect(try QueueSegmentCodec.decode(byCodable) == entries)
    }
}
