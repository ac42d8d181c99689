import FermataCore

/// The text of one stored queue segment: a JSON array of entries, each an object with named members —
/// `{"id":7,"version":1,"uri":"Album/01.flac"}`, and only when they have a value `"track_gain"`, `"track_peak"`,
/// `"album_gain"`, `"album_peak"` (ReplayGain), `"priority"` (MPD's, when not 0) and `"span"`, the part of its file the
/// entry plays: `{"start_ms":62000,"end_ms":70000,"passes":4,"tempo":80,"section":"solo"}` (`end_ms`, `tempo`,
/// `section` only when set). JSON so that `sqlite3` over SSH (and the `queue_entry` view) reads the saved queue with
/// SQLite's own JSON functions; members by name so that a field added later is one more name, never a position whose
/// meaning depends on the ones before it (until v11 the entries were positional arrays: `QueueEntriesKeyedMigration`).
///
/// Written and read by hand, not through `Codable`, for speed: a 10,000-entry queue is saved whole by a 10,000-`add`
/// command list and read whole at every start. Measured (`swift build -c release --product fermata-resume-bench &&
/// .build/release/fermata-resume-bench --codec`, medians of 20, 2026-11-29, this 2-core x86 machine): 10,000 entries
/// with plain paths and ReplayGain encode in 5.4 ms and decode in 4.5 ms here, against 26.8 and 39.3 ms with
/// Foundation's `JSONEncoder` and `JSONDecoder` over the same members (`QueueEntryReference`); 7.1 / 6.8 ms against
/// 27.2 / 41.5 ms for awkward names with parts of files. `QueueSegmentCodecTests` holds the codec to that `Codable`
/// model: each reads what the other writes.
///
/// Pure; any thread.
package enum QueueSegmentCodec {
    /// A segment text that is not what `encode` writes (or a hand-edited row outside the bounds).
    struct Malformed: Error, CustomStringConvertible {
        let offset: Int
        var description: String { "malformed queue segment at byte \(offset)" }
    }

    /// The member names, one place for the encoder, the decoder and the reference model in the tests.
    enum Key {
        static let id = "id", version = "version", uri = "uri"
        static let trackGain = "track_gain", trackPeak = "track_peak", albumGain = "album_gain", albumPeak = "album_peak"
        static let priority = "priority", span = "span"
        static let start = "start_ms", end = "end_ms", passes = "passes", tempo = "tempo", section = "section"
    }

    package static func encode<Entries: Collection<QueueEntry>>(_ entries: Entries) -> String {
        var out = JSONWriter(capacity: entries.count * 80)
        out.byte(UInt8(ascii: "["))
        for (index, entry) in entries.enumerated() {
            if index > 0 { out.byte(UInt8(ascii: ",")) }
            out.byte(UInt8(ascii: "{"))
            out.member(Key.id, first: true)
            out.integer(entry.id)
            out.member(Key.version)
            out.integer(Int64(entry.version))
            out.member(Key.uri)
            out.string(entry.uri)
            let gain = entry.replayGain
            out.gain(Key.trackGain, gain.trackGain)
            out.gain(Key.trackPeak, gain.trackPeak)
            out.gain(Key.albumGain, gain.albumGain)
            out.gain(Key.albumPeak, gain.albumPeak)
            if entry.priority != 0 {
                out.member(Key.priority)
                out.integer(Int64(entry.priority))
            }
            if let span = entry.span {
                out.member(Key.span)
                out.span(span)
            }
            out.byte(UInt8(ascii: "}"))
        }
        out.byte(UInt8(ascii: "]"))
        return out.string
    }

    /// A JSON array of entry ids (the saved shuffled play order).
    static func encode(ids: [EntryID]) -> String {
        "[" + ids.map(String.init).joined(separator: ",") + "]"
    }

    package static func decode(_ text: String) throws -> [QueueEntry] {
        var text = text
        return try text.withUTF8 { bytes in
            var reader = JSONReader(bytes: bytes)
            var entries: [QueueEntry] = []
            try reader.expect(UInt8(ascii: "["))
            if try reader.take(UInt8(ascii: "]")) { return entries }
            repeat { entries.append(try reader.entry()) } while try reader.take(UInt8(ascii: ","))
            try reader.expect(UInt8(ascii: "]"))
            try reader.end()
            return entries
        }
    }

    static func decode(ids text: String) throws -> [EntryID] {
        var text = text
        return try text.withUTF8 { bytes in
            var reader = JSONReader(bytes: bytes)
            var ids: [EntryID] = []
            try reader.expect(UInt8(ascii: "["))
            if try reader.take(UInt8(ascii: "]")) { return ids }
            repeat { ids.append(try reader.integer()) } while try reader.take(UInt8(ascii: ","))
            try reader.expect(UInt8(ascii: "]"))
            try reader.end()
            return ids
        }
    }
}

private extension JSONWriter {
    /// `,"name":value` when there is a finite value: JSON has no NaN or infinity, and tags are range-checked, so such
    /// a value can only mean "none".
    mutating func gain(_ name: String, _ value: Double?) {
        guard let value, value.isFinite else { return }
        member(name)
        text(value.description)
    }

    /// `{"start_ms":…,"end_ms":…,"passes":…,"tempo":…,"section":…}`, the optional members only when set.
    mutating func span(_ span: PlaySpan) {
        typealias Key = QueueSegmentCodec.Key
        byte(UInt8(ascii: "{"))
        member(Key.start, first: true)
        integer(span.startMilliseconds)
        if let end = span.endMilliseconds {
            member(Key.end)
            integer(end)
        }
        member(Key.passes)
        integer(Int64(span.passes))
        if let tempo = span.tempoPercent {
            member(Key.tempo)
            integer(Int64(tempo))
        }
        if let name = span.section {
            member(Key.section)
            string(name)
        }
        byte(UInt8(ascii: "}"))
    }
}

private extension JSONReader {
    /// One entry object, range-checked: a member twice, an unknown one, a missing `id`/`version`/`uri`, a priority
    /// outside 0–255 or a span outside `PlaySpan`'s bounds is malformed (a hand-edited row), not clamped.
    mutating func entry() throws(QueueSegmentCodec.Malformed) -> QueueEntry {
        typealias Key = QueueSegmentCodec.Key
        var id: Int64?, version: Int64?, uri: String?, priority: UInt8 = 0, span: PlaySpan?
        var trackGain: Double?, trackPeak: Double?, albumGain: Double?, albumPeak: Double?
        var seen: UInt16 = 0  // one bit per member: a member twice is malformed
        try object { reader, key throws(QueueSegmentCodec.Malformed) in
            let bit: UInt16
            switch key {
            case Key.id: bit = 1; id = try reader.integer()
            case Key.version: bit = 2; version = try reader.integer()
            case Key.uri: bit = 4; uri = try reader.string()
            case Key.trackGain: bit = 8; trackGain = try reader.number()
            case Key.trackPeak: bit = 16; trackPeak = try reader.number()
            case Key.albumGain: bit = 32; albumGain = try reader.number()
            case Key.albumPeak: bit = 64; albumPeak = try reader.number()
            case Key.priority:
                bit = 128
                guard let value = UInt8(exactly: try reader.integer()) else { throw reader.malformed }
                priority = value
            case Key.span: bit = 256; span = try reader.span()
            default: throw reader.malformed
            }
            guard seen & bit == 0 else { throw reader.malformed }
            seen |= bit
        }
        guard let id, let version = version.flatMap({ Int(exactly: $0) }), let uri else { throw malformed }
        return QueueEntry(id: id, uri: uri, replayGain: ReplayGainInfo(
            trackGain: trackGain, trackPeak: trackPeak, albumGain: albumGain, albumPeak: albumPeak), version: version,
            priority: priority, span: span)
    }

    mutating func span() throws(QueueSegmentCodec.Malformed) -> PlaySpan {
        typealias Key = QueueSegmentCodec.Key
        var start: Int64?, end: Int64?, passes: Int64?, tempo: Int64?, section: String?
        var seen: UInt8 = 0
        try object { reader, key throws(QueueSegmentCodec.Malformed) in
            let bit: UInt8
            switch key {
            case Key.start: bit = 1; start = try reader.integer()
            case Key.end: bit = 2; end = try reader.integer()
            case Key.passes: bit = 4; passes = try reader.integer()
            case Key.tempo: bit = 8; tempo = try reader.integer()
            case Key.section: bit = 16; section = try reader.string()
            default: throw reader.malformed
            }
            guard seen & bit == 0 else { throw reader.malformed }
            seen |= bit
        }
        guard let start, let passes = passes.flatMap({ Int(exactly: $0) }), (1...1000).contains(passes) else {
            throw malformed
        }
        var tempoPercent: Int?
        if let tempo {
            guard let percent = Int(exactly: tempo) else { throw malformed }
            tempoPercent = percent
        }
        let span = PlaySpan(startMilliseconds: start, endMilliseconds: end, passes: passes, tempoPercent: tempoPercent,
                            section: section)
        guard span.problem == nil else { throw malformed }
        return span
    }
}
