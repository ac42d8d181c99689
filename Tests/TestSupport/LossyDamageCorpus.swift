import Foundation

/// Builds a deterministic set of damaged MP3, M4A and Opus files from valid ones (fixed seed), the damage owners'
/// files really have: cut downloads, zero-filled blocks from a failing card, junk between frames, a tag that claims
/// 256 MB, MP4 boxes whose sizes run past the end or are too small to advance, an Opus stream with no audio, a VBR MP3
/// without its header, and an MP3 whose sample rate changes part-way.
///
/// Unlike `CorruptCorpus`, a damaged lossy file need not be refused: a decoder may play what it can. What every file
/// must do is end — refused with a `DecoderError` or played to an end — quickly and without crashing.
///
/// Stateless; callable from any thread.
public enum LossyDamageCorpus {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Writes the corpus into `dir` from a valid VBR MP3, a second MP3 at another sample rate, an MP3 without a
    /// Xing header (`lame -t`), an M4A with `moov` at the end, and an Opus file; returns the paths.
    public static func make(
        in dir: String, mp3: String, otherRateMP3: String, headerlessMP3: String, m4a: String, opus: String, seed: UInt64
    ) throws -> [String] {
        var random = SplitMix64(seed: seed)
        var paths: [String] = []
        func save(_ name: String, _ bytes: [UInt8]) throws {
            let path = dir + "/" + name
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        let mp3Bytes = try load(mp3), m4aBytes = try load(m4a), opusBytes = try load(opus)

        // MP3
        for index in 0..<3 { try save("cut-\(index).mp3", Array(mp3Bytes.prefix(random.next(in: 1...(mp3Bytes.count - 1))))) }
        try save("zeros.mp3", [UInt8](repeating: 0, count: 300_000))
        var holed = mp3Bytes
        let hole = random.next(in: 1_000...(mp3Bytes.count / 2))
        holed.replaceSubrange(hole..<min(mp3Bytes.count, hole + 20_000), with: [UInt8](repeating: 0, count: min(20_000, mp3Bytes.count - hole)))
        try save("zero-block.mp3", holed)
        var junk = mp3Bytes
        for _ in 0..<6 {
            let at = random.next(in: 2_000...(junk.count - 1))
            junk.insert(contentsOf: (0..<random.next(in: 1...3_000)).map { _ in UInt8(random.next(in: 0...255)) }, at: at)
        }
        try save("junk-between-frames.mp3", junk)
        // ID3v2.4 header claiming 0x0FFFFFFF bytes (256 MB), then the audio.
        try save("id3-claims-256mb.mp3", Array("ID3".utf8) + [4, 0, 0, 0x7F, 0x7F, 0x7F, 0x7F] + mp3Bytes)
        try save("no-xing-header.mp3", try load(headerlessMP3))
        try save("rate-change.mp3", mp3Bytes + (try load(otherRateMP3)))
        var flipped = mp3Bytes
        for _ in 0..<40 { flipped[random.next(in: 1_000...(flipped.count - 1))] ^= UInt8(random.next(in: 1...255)) }
        try save("bit-flips.mp3", flipped)

        // M4A (moov after mdat)
        for index in 0..<3 { try save("cut-\(index).m4a", Array(m4aBytes.prefix(random.next(in: 1...(m4aBytes.count - 1))))) }
        guard let moov = find("moov", in: m4aBytes) else { throw Failure(description: "\(m4a): no moov") }
        var pastEnd = m4aBytes
        store32(UInt32(m4aBytes.count - moov + 1_000_000), into: &pastEnd, at: moov)
        try save("moov-past-end.m4a", pastEnd)
        if let trak = find("trak", in: m4aBytes) {
            var tiny = m4aBytes
            store32(3, into: &tiny, at: trak)  // a box too small to hold its own header
            try save("trak-size-3.m4a", tiny)
            var zero = m4aBytes
            store32(0, into: &zero, at: trak)  // "to the end" inside a parent: runs to the parent's end
            try save("trak-size-0.m4a", zero)
        }
        if let stsz = find("stsz", in: m4aBytes) {
            var table = m4aBytes
            for offset in stride(from: stsz + 20, to: min(stsz + 400, table.count - 4), by: 4) {
                store32(UInt32(random.next(in: 0...0x7FFF_FFFF)), into: &table, at: offset)
            }
            try save("sample-sizes-garbage.m4a", table)
        }
        var zeroedAudio = m4aBytes
        if let mdat = find("mdat", in: m4aBytes) {
            let end = min(moov, mdat + 60_000)
            if end > mdat + 8 { zeroedAudio.replaceSubrange((mdat + 8)..<end, with: [UInt8](repeating: 0, count: end - mdat - 8)) }
        }
        try save("zeroed-mdat.m4a", zeroedAudio)
        try save("zeros.m4a", [UInt8](repeating: 0, count: 100_000))

        // Opus
        try save("cut.opus", Array(opusBytes.prefix(random.next(in: 1...(opusBytes.count - 1)))))
        if let audio = VorbisFixture.audioStart(of: opusBytes) {
            try save("no-audio.opus", Array(opusBytes.prefix(audio)))
        }
        var opusFlips = opusBytes
        for _ in 0..<20 { opusFlips[random.next(in: 200...(opusFlips.count - 1))] ^= UInt8(random.next(in: 1...255)) }
        try save("bit-flips.opus", opusFlips)
        return paths
    }

    /// The start (its size field) of the first box whose type is `type`.
    static func find(_ type: String, in bytes: [UInt8]) -> Int? {
        let pattern = Array(type.utf8)
        guard bytes.count > 8 else { return nil }
        for index in 4..<(bytes.count - 4) where bytes[index..<index + 4].elementsEqual(pattern) { return index - 4 }
        return nil
    }

    static func store32(_ value: UInt32, into bytes: inout [UInt8], at offset: Int) {
        bytes[offset] = UInt8(value >> 24)
        bytes[offset + 1] = UInt8(value >> 16 & 0xFF)
        bytes[offset + 2] = UInt8(value >> 8 & 0xFF)
        bytes[offset + 3] = UInt8(value & 0xFF)
    }

    static func load(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
}
