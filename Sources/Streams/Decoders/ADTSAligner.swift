/// The bytes of an ADTS (AAC) stream from its first real frame: a listener joins a station anywhere (Icecast's burst
/// starts mid-frame), and the first 0xFFF found may be a false sync word inside a frame's data, which FFmpeg's
/// demuxer and decoder then take for a frame (it probes no stream, or the decoder refuses the "frame"). A frame start
/// is taken as real when the header there is valid and another valid header of the same sampling rate, profile and
/// channels follows exactly one frame length on; the bytes before it are dropped. At most `limit` bytes are searched.
///
/// Threads: called on the stream's thread, which alone uses the source it returns.
enum ADTSAligner {
    /// How far the first real frame is searched for (a frame is at most 8,191 bytes).
    static let limit = 65_536

    /// `source` from its first real frame start: read until one is found (throws when none is within `limit` bytes);
    /// the bytes from it are handed out again first (`PeekedSource`).
    static func aligned(_ source: any StreamByteSource) throws(StreamError) -> PeekedSource {
        var bytes: [UInt8] = []
        var searched = 0
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let start = Self.firstFrame(in: bytes, from: searched) {
                return PeekedSource(source, head: Array(bytes[start...]))
            }
            searched = max(0, bytes.count - 8_191 - 7)  // a header not yet judged may still be completed by more bytes
            guard bytes.count < Self.limit else {
                throw .content("no AAC (ADTS) frame in the first \(Self.limit / 1024) KiB")
            }
            var count = 0
            var failure: StreamError?
            chunk.withUnsafeMutableBytes { raw in
                do throws(StreamError) { count = try source.read(into: raw) } catch { failure = error }
            }
            if let failure { throw failure }
            if count == 0 {
                // The stream ended within the search: hand out what there is from its first plausible header.
                return PeekedSource(source, head: Array(bytes[(Self.firstHeader(in: bytes) ?? bytes.count)...]))
            }
            bytes += chunk.prefix(count)
        }
    }

    /// The header at `at`: its frame length, sampling index, profile and channel configuration; nil when there is
    /// no valid header (or not all 7 bytes are there).
    static func header(_ bytes: [UInt8], at: Int) -> (length: Int, key: Int)? {
        guard at >= 0, at + 7 <= bytes.count, bytes[at] == 0xFF, bytes[at + 1] & 0xF6 == 0xF0 else { return nil }
        let sampling = Int(bytes[at + 2] >> 2) & 0xF
        guard sampling < 13 else { return nil }
        let length = Int(bytes[at + 3] & 3) << 11 | Int(bytes[at + 4]) << 3 | Int(bytes[at + 5]) >> 5
        let protectionAbsent = bytes[at + 1] & 1 == 1
        guard length >= (protectionAbsent ? 7 : 9) else { return nil }
        let profile = Int(bytes[at + 2] >> 6), channels = Int(bytes[at + 2] & 1) << 2 | Int(bytes[at + 3] >> 6)
        return (length, sampling << 8 | profile << 4 | channels)
    }

    /// The first offset from `from` whose header is followed, one frame on, by a header of the same stream.
    static func firstFrame(in bytes: [UInt8], from: Int) -> Int? {
        var at = from
        while at + 7 <= bytes.count {
            if let first = header(bytes, at: at) {
                if at + first.length + 7 > bytes.count { return nil }  // its follower is not read yet
                if let next = header(bytes, at: at + first.length), next.key == first.key { return at }
            }
            at += 1
        }
        return nil
    }

    /// The first offset with a valid header on its own (for a stream shorter than two frames).
    static func firstHeader(in bytes: [UInt8]) -> Int? {
        bytes.indices.first { header(bytes, at: $0) != nil }
    }
}
