import FermataCore

/// The text of one stored queue segment: a JSON array of entries, each `[id, version, "uri", track gain, track
/// peak, album gain, album peak]` with `null` for a missing ReplayGain value, an eighth element, the MPD priority,
/// only when it is not 0 or a ninth follows (so queues saved before priorities existed read the same), and a ninth,
/// the part of the file the entry plays, only when it has one: `[start ms, end ms, passes, tempo %, "section"]` with
/// `null` for a missing end, tempo or name. JSON so that `sqlite3` over SSH (and
/// the `queue_entry` view) can read the saved queue with SQLite's own JSON functions; written and read by hand here
/// because a 10,000-entry queue must encode in about a millisecond.
///
/// Pure; any thread.
enum QueueSegmentCodec {
    /// A segment text that is not what `encode` writes.
    struct Malformed: Error, CustomStringConvertible {
        let offset: Int
        var description: String { "malformed queue segment at byte \(offset)" }
    }

    static func encode<Entries: Collection<QueueEntry>>(_ entries: Entries) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(entries.count * 96)
        out.append(UInt8(ascii: "["))
        for (index, entry) in entries.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "["))
            appendInteger(entry.id, to: &out)
            out.append(UInt8(ascii: ","))
            appendInteger(Int64(entry.version), to: &out)
            out.append(UInt8(ascii: ","))
            appendString(entry.uri, to: &out)
            let gain = entry.replayGain
            appendNumber(gain.trackGain, to: &out)
            appendNumber(gain.trackPeak, to: &out)
            appendNumber(gain.albumGain, to: &out)
            appendNumber(gain.albumPeak, to: &out)
            if entry.priority != 0 || entry.span != nil {
                out.append(UInt8(ascii: ","))
                appendInteger(Int64(entry.priority), to: &out)
            }
            if let span = entry.span { appendSpan(span, to: &out) }
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }

    /// A JSON array of entry ids (the saved shuffled play order).
    static func encode(ids: [EntryID]) -> String {
        "[" + ids.map(String.init).joined(separator: ",") + "]"
    }

    static func decode(_ text: String) throws -> [QueueEntry] {
        var text = text
        return try text.withUTF8 { bytes in
            var reader = Reader(bytes: bytes)
            var entries: [QueueEntry] = []
            try reader.expect(UInt8(ascii: "["))
            if try reader.take(UInt8(ascii: "]")) { return entries }
            repeat {
                try reader.expect(UInt8(ascii: "["))
                let id = try reader.integer()
                try reader.expect(UInt8(ascii: ","))
                let version = try reader.integer()
                try reader.expect(UInt8(ascii: ","))
                let uri = try reader.string()
                var gains: [Double?] = []
                for _ in 0..<4 {
                    try reader.expect(UInt8(ascii: ","))
                    gains.append(try reader.number())
                }
                // The priority, range-checked: a hand-edited row with another number is malformed, not clamped.
                var priority: UInt8 = 0
                if try reader.take(UInt8(ascii: ",")) {
                    guard let value = UInt8(exactly: try reader.integer()) else { throw reader.malformed }
                    priority = value
                }
                let span = try reader.take(UInt8(ascii: ",")) ? try reader.span() : nil
                try reader.expect(UInt8(ascii: "]"))
                guard let version = Int(exactly: version) else { throw reader.malformed }
                entries.append(QueueEntry(id: id, uri: uri, replayGain: ReplayGainInfo(
                    trackGain: gains[0], trackPeak: gains[1], albumGain: gains[2], albumPeak: gains[3]), version: version,
                    priority: priority, span: span))
            } while try reader.take(UInt8(ascii: ","))
            try reader.expect(UInt8(ascii: "]"))
            try reader.end()
            return entries
        }
    }

    static func decode(ids text: String) throws -> [EntryID] {
        var text = text
        return try text.withUTF8 { bytes in
            var reader = Reader(bytes: bytes)
            var ids: [EntryID] = []
            try reader.expect(UInt8(ascii: "["))
            if try reader.take(UInt8(ascii: "]")) { return ids }
            repeat { ids.append(try reader.integer()) } while try reader.take(UInt8(ascii: ","))
            try reader.expect(UInt8(ascii: "]"))
            try reader.end()
            return ids
        }
    }

    /// "," and the number, or null: JSON has no NaN or infinity, and tags are range-checked, so such a value can
    /// only mean "none".
    private static func appendNumber(_ value: Double?, to out: inout [UInt8]) {
        out.append(UInt8(ascii: ","))
        if let value, value.isFinite { out.append(contentsOf: value.description.utf8) } else { out.append(contentsOf: "null".utf8) }
    }

    /// `,[start, end, passes, tempo, "section"]`, `null` for what is missing.
    private static func appendSpan(_ span: PlaySpan, to out: inout [UInt8]) {
        out.append(contentsOf: ",[".utf8)
        appendInteger(span.startMilliseconds, to: &out)
        out.append(UInt8(ascii: ","))
        if let end = span.endMilliseconds { appendInteger(end, to: &out) } else { out.append(contentsOf: "null".utf8) }
        out.append(UInt8(ascii: ","))
        appendInteger(Int64(span.passes), to: &out)
        out.append(UInt8(ascii: ","))
        if let tempo = span.tempoPercent { appendInteger(Int64(tempo), to: &out) } else { out.append(contentsOf: "null".utf8) }
        out.append(UInt8(ascii: ","))
        if let name = span.section { appendString(name, to: &out) } else { out.append(contentsOf: "null".utf8) }
        out.append(UInt8(ascii: "]"))
    }

    /// Decimal digits without a `String` per number (10,000 entries, two numbers each): written lowest first, then
    /// turned around in place.
    private static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        let start = out.count
        var magnitude = value.magnitude
        repeat {
            out.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        out[start...].reverse()
    }

    private static func appendString(_ string: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most names need no escape: copied whole.
        if !string.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            var string = string
            string.withUTF8 { out.append(contentsOf: $0) }
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(byte)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: "\\u00".utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xf)])
            default:
                out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// A cursor over the JSON text; whitespace is allowed between tokens (SQLite's JSON functions may add none, but
    /// a hand-edited row may).
    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        var malformed: Malformed { Malformed(offset: index) }

        mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0a, 0x0d: index += 1
                default: return
                }
            }
        }

        mutating func take(_ byte: UInt8) throws(Malformed) -> Bool {
            skipSpace()
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func expect(_ byte: UInt8) throws(Malformed) {
            guard try take(byte) else { throw malformed }
        }

        mutating func end() throws(Malformed) {
            skipSpace()
            guard index == bytes.count else { throw malformed }
        }

        /// The bytes of a number token.
        mutating func token() -> String {
            skipSpace()
            let start = index
            scan: while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
                     UInt8(ascii: "e"), UInt8(ascii: "E"): index += 1
                default: break scan
                }
            }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        }

        mutating func integer() throws(Malformed) -> Int64 {
            guard let value = Int64(token()) else { throw malformed }
            return value
        }

        mutating func number() throws(Malformed) -> Double? {
            skipSpace()
            if bytes.count - index >= 4, bytes[index] == UInt8(ascii: "n"), bytes[index + 1] == UInt8(ascii: "u"),
               bytes[index + 2] == UInt8(ascii: "l"), bytes[index + 3] == UInt8(ascii: "l") {
                index += 4
                return nil
            }
            guard let value = Double(token()), value.isFinite else { throw malformed }
            return value
        }

        mutating func string() throws(Malformed) -> String {
            try expect(UInt8(ascii: "\""))
            // Most names have no escape: taken straight from the text (a restart reads 10,000 of them).
            var end = index
            while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\") { end += 1 }
            if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
                defer { index = end + 1 }
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self)
            }
            var out: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { throw malformed }
                    let escaped = bytes[index]
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escaped)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0c)
                    case UInt8(ascii: "n"): out.append(0x0a)
                    case UInt8(ascii: "r"): out.append(0x0d)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        if (0xd800..<0xdc00).contains(scalar) {
                            // A surrogate pair, as another JSON writer may have put a non-BMP character.
                            guard try take(UInt8(ascii: "\\")), try take(UInt8(ascii: "u")) else { throw malformed }
                            let low = try hex4()
                            guard (0xdc00..<0xe000).contains(low) else { throw malformed }
                            scalar = 0x10000 + ((scalar - 0xd800) << 10) + (low - 0xdc00)
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { throw malformed }
                        out.append(contentsOf: String(Character(unicode)).utf8)
                    default: throw malformed
                    }
                default:
                    out.append(byte)
                }
            }
            throw malformed
        }

        /// `null`, or what `read` gives.
        mutating func optional<T>(_ read: (inout Reader) throws(Malformed) -> T) throws(Malformed) -> T? {
            skipSpace()
            if bytes.count - index >= 4, bytes[index] == UInt8(ascii: "n"), bytes[index + 1] == UInt8(ascii: "u"),
               bytes[index + 2] == UInt8(ascii: "l"), bytes[index + 3] == UInt8(ascii: "l") {
                index += 4
                return nil
            }
            return try read(&self)
        }

        /// A span as `appendSpan` writes it, range-checked: a hand-edited row outside `PlaySpan`'s bounds is malformed.
        mutating func span() throws(Malformed) -> PlaySpan {
            try expect(UInt8(ascii: "["))
            let start = try integer()
            try expect(UInt8(ascii: ","))
            let end = try optional { reader throws(Malformed) in try reader.integer() }
            try expect(UInt8(ascii: ","))
            let passes = try integer()
            try expect(UInt8(ascii: ","))
            let tempo = try optional { reader throws(Malformed) in try reader.integer() }
            try expect(UInt8(ascii: ","))
            let section = try optional { reader throws(Malformed) in try reader.string() }
            try expect(UInt8(ascii: "]"))
            guard let passes = Int(exactly: passes), (1...1000).contains(passes) else { throw malformed }
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

        mutating func hex4() throws(Malformed) -> UInt32 {
            guard bytes.count - index >= 4,
                  let value = UInt32(String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<index + 4]), as: UTF8.self),
                                     radix: 16) else { throw malformed }
            index += 4
            return value
        }
    }
}
