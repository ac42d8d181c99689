import Foundation

/// Builds a deterministic set of damaged files from valid ones; every file must make a decoder throw.
///
/// Stateless; callable from any thread.
///
/// Only damage a decoder can detect is produced (a WAV truncated inside its audio is *valid*: it plays what is
/// there; an Ogg file cut between pages is too). So:
/// - FLAC: cut at random points anywhere; single-bit flips in STREAMINFO's rate/channels/bits/total-samples bytes
///   (a flip that would shorten the total to a whole number of blocks, which ends cleanly, is skipped); a flip of
///   the STREAMINFO block type; byte flips inside audio frames (CRC mismatch).
/// - WAV (`validWAV` must be plain 16-bit PCM): cut inside the header; single-bit flips in the `fmt ` chunk's format
///   tag, channel count, block align and bits per sample; sample rate zeroed.
/// - Ogg Vorbis: cut inside the header pages; a byte flip in the first page (CRC mismatch).
/// - A zero-length `empty.flac`, a text file `text.flac`, random bytes `random.wav`.
public enum CorruptCorpus {
    /// Why the corpus could not be built (an input is not the kind of file described above).
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Writes the corpus into `dir` and returns the paths of its files.
    public static func make(
        in dir: String, from validFLAC: String, validWAV: String, validOgg: String?, seed: UInt64
    ) throws -> [String] {
        var random = SplitMix64(seed: seed)
        var paths: [String] = []
        func save(_ name: String, _ bytes: [UInt8]) throws {
            let path = dir + "/" + name
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }

        let flac = try load(validFLAC)
        guard flac.starts(with: Array("fLaC".utf8)), flac.count > 42, flac[4] & 0x7F == 0 else {
            throw Failure(description: "\(validFLAC) does not start with fLaC and STREAMINFO")
        }
        for index in 0..<5 {
            try save("cut-\(index).flac", Array(flac.prefix(random.next(in: 1...(flac.count - 1)))))
        }
        for index in 0..<4 {
            try save("streaminfo-flip-\(index).flac", flipStreamInfo(flac, using: &random))
        }
        var retyped = flac
        retyped[4] ^= UInt8(random.next(in: 1...0x7F))
        try save("streaminfo-type.flac", retyped)
        let audio = flacAudioStart(flac)
        for index in 0..<3 {
            var damaged = flac
            damaged[random.next(in: audio...(flac.count - 3))] ^= UInt8(random.next(in: 1...255))
            try save("frame-flip-\(index).flac", damaged)
        }

        let wav = try load(validWAV)
        guard let fmt = WAVFixture.chunkOffset("fmt ", in: wav), let data = WAVFixture.chunkOffset("data", in: wav),
              wav[fmt + 8] == 1, wav[fmt + 9] == 0, wav[fmt + 22] == 16 else {
            throw Failure(description: "\(validWAV) is not a plain 16-bit PCM WAV")
        }
        for index in 0..<3 {
            try save("cut-header-\(index).wav", Array(wav.prefix(random.next(in: 1...(data + 7)))))
        }
        // Field offsets inside the fmt body: tag 0, channels 2, block align 12, bits 14 (two bytes each).
        for (index, field) in [0, 2, 12, 14, 2, 14].enumerated() {
            var damaged = wav
            let bit = random.next(in: 0...15)
            damaged[fmt + 8 + field + bit / 8] ^= UInt8(1 << (bit % 8))
            try save("fmt-flip-\(index).wav", damaged)
        }
        var zeroRate = wav
        for byte in 0..<4 { zeroRate[fmt + 12 + byte] = 0 }
        try save("fmt-rate-zero.wav", zeroRate)

        if let validOgg {
            let ogg = try load(validOgg)
            guard let audioStart = VorbisFixture.audioStart(of: ogg), audioStart > 58 else {
                throw Failure(description: "\(validOgg) has no recognisable Vorbis header pages")
            }
            for index in 0..<3 {
                try save("cut-header-\(index).ogg", Array(ogg.prefix(random.next(in: 1...(audioStart - 1)))))
            }
            var damaged = ogg
            damaged[random.next(in: 4...57)] ^= UInt8(random.next(in: 1...255))
            try save("page-flip.ogg", damaged)
        }

        try save("empty.flac", [])
        try save("text.flac", Array("This is a text file that merely has a .flac name.\n".utf8))
        var noise = (0..<4096).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        noise[0] = 0x00  // Never a real signature (RIFF, fLaC, OggS, ID3).
        try save("random.wav", noise)
        return paths
    }

    private static func load(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// One single-bit flip in STREAMINFO bytes 18–25 (rate, channels, bits, total samples) that a decoder can
    /// detect: a shortened total must not fall on a block boundary (the stream would then end cleanly early).
    private static func flipStreamInfo(_ flac: [UInt8], using random: inout SplitMix64) -> [UInt8] {
        let maxBlock = Int(flac[10]) << 8 | Int(flac[11])
        let total = totalSamples(flac)
        while true {
            var damaged = flac
            let bit = random.next(in: 0...63)
            damaged[18 + bit / 8] ^= UInt8(0x80 >> (bit % 8))
            let newTotal = totalSamples(damaged)
            if newTotal < total, maxBlock > 0, newTotal % maxBlock == 0 { continue }
            return damaged
        }
    }

    private static func totalSamples(_ flac: [UInt8]) -> Int {
        (21...25).reduce(0) { ($0 << 8) | Int(flac[$1]) } & ((1 << 36) - 1)
    }

    /// Offset of the first audio frame: after the metadata block whose header has the last-block flag.
    private static func flacAudioStart(_ flac: [UInt8]) -> Int {
        var offset = 4
        while offset + 4 <= flac.count {
            let last = flac[offset] & 0x80 != 0
            let length = Int(flac[offset + 1]) << 16 | Int(flac[offset + 2]) << 8 | Int(flac[offset + 3])
            offset += 4 + length
            if last { break }
        }
        return min(offset, flac.count - 3)
    }
}
