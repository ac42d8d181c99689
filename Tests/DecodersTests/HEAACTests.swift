import AudioCore
@testable import Decoders
import Foundation
import TestSupport
import Testing

/// HE-AAC (AAC-LC plus SBR) as owners' files carry it, on real files: no encoder in Debian main writes HE-AAC
/// (FFmpeg's own encoder is LC only; libfdk-aac is non-free), so these tests run on files named in
/// `FERMATA_HEAAC_SAMPLES` (colon-separated; `Tests/Tools/heaac-check.sh FILE...` sets it) and are skipped without
/// it. From each file they make what other muxers write for the same stream: raw ADTS (the core rate only, SBR found
/// in the stream), an M4A remuxed from that ADTS (SBR signalled implicitly: the container says LC at the core rate),
/// and that M4A with its media time scale at the core rate too (half the output rate, as some muxers write it).
/// Every variant must play at the real output rate (twice the core's), with the same samples.
@Suite(.serialized) struct HEAACTests {
    static let samples: [String] = (ProcessInfo.processInfo.environment["FERMATA_HEAAC_SAMPLES"] ?? "")
        .split(separator: ":").map(String.init).filter { !$0.isEmpty }

    /// The rate FFmpeg's decoder outputs for `path` (what its WAV output says).
    static func outputRate(_ path: String, in directory: TemporaryDirectory) throws -> Int {
        let wav = directory.file("rate.wav")
        try LossyFixture.run("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error", "-y", "-i", path, "-t", "0.5",
                                                 "-f", "wav", wav])
        let header = [UInt8](try Data(contentsOf: URL(fileURLWithPath: wav)).prefix(28))
        guard header.count == 28 else { return 0 }
        return Int(header[24]) | Int(header[25]) << 8 | Int(header[26]) << 16 | Int(header[27]) << 24
    }

    /// The core (AAC-LC) rate an ADTS stream's first header declares.
    static func adtsCoreRate(_ path: String) throws -> Int {
        let header = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)).prefix(7))
        let rates = [96_000, 88_200, 64_000, 48_000, 44_100, 32_000, 24_000, 22_050, 16_000, 12_000, 11_025, 8_000, 7_350]
        guard header.count == 7, header[0] == 0xFF, header[1] & 0xF0 == 0xF0 else { return 0 }
        let index = Int(header[2] >> 2) & 0xF
        return index < rates.count ? rates[index] : 0
    }

    /// The variants of `source` described above, in `directory`: (label, path).
    static func variants(of source: String, in directory: TemporaryDirectory) throws -> [(String, String)] {
        let adts = directory.file("stream.aac"), implicit = directory.file("implicit.m4a")
        let coreScale = directory.file("core-timescale.m4a")
        try LossyFixture.run("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error", "-y", "-i", source, "-map", "0:a:0",
                                                 "-c", "copy", "-f", "adts", adts])
        try LossyFixture.run("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error", "-y", "-i", adts, "-c", "copy",
                                                 implicit])
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: implicit)))
        try #require(MP4Rewrite.halveMediaTimescale(&bytes), "no mdhd/stts to rewrite in \(implicit)")
        try Data(bytes).write(to: URL(fileURLWithPath: coreScale))
        return [("as given", source), ("raw ADTS", adts), ("implicit SBR", implicit),
                ("implicit SBR, core-rate time scale", coreScale)]
    }

    @Test(.enabled(if: !samples.isEmpty, "FERMATA_HEAAC_SAMPLES names no HE-AAC file"))
    func everyVariantPlaysAtTheOutputRateWithTheSameSamples() throws {
        for source in Self.samples {
            let directory = try TemporaryDirectory()
            let rate = try Self.outputRate(source, in: directory)
            let variants = try Self.variants(of: source, in: directory)
            // SBR doubles the core's rate: the proof that the file is HE-AAC, not LC.
            let core = try Self.adtsCoreRate(variants[1].1)
            try #require(rate > 0 && rate == 2 * core, "\(source): output \(rate) Hz, core \(core) Hz: not HE-AAC")
            // FFmpeg's decode of the implicit M4A with no edit list applied: what every variant must play.
            let reference = directory.file("reference.raw")
            try LossyFixture.run("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error", "-y", "-ignore_editlist", "1",
                                                     "-i", variants[2].1, "-f", "f32le", reference])
            let want = LossyFixture.floats(try Data(contentsOf: URL(fileURLWithPath: reference)))
            var straight: [String: [Float]] = [:]
            for (label, path) in variants {
                let decoder = try DecoderRegistry.open(path: path)
                #expect(decoder.format.sampleRate == rate, "\(source) \(label): \(decoder.format.sampleRate) Hz")
                let got = try Decode.samples(decoder)
                straight[label] = got
                let channels = decoder.format.channels
                if let total = decoder.totalFrames {
                    #expect(Int(total) * channels == got.count, "\(source) \(label): says \(total) frames")
                }
                print("HE-AAC \(source) \(label): \(decoder.format.sampleRate) Hz, \(got.count / channels) frames, "
                      + "length \(decoder.totalFrames.map(String.init) ?? "unknown")")
            }
            // The remuxed variants carry no priming trim: sample for sample FFmpeg's own decode.
            for label in ["raw ADTS", "implicit SBR", "implicit SBR, core-rate time scale"] {
                let got = straight[label] ?? []
                #expect(got.count <= want.count && got.count >= want.count - 2 * 2_048 * 2,
                        "\(source) \(label): \(got.count) samples, FFmpeg \(want.count)")
                #expect(got.elementsEqual(want.prefix(got.count)), "\(source) \(label) differs from FFmpeg's decode")
            }
            #expect(straight["implicit SBR"] == straight["implicit SBR, core-rate time scale"])
            // The file as given is trimmed as its edit list says: from its media time, for its duration (FFmpeg's own
            // player drops the priming twice on HE-AAC: it doubles the decoder's skip for SBR on top of the edit).
            let given = straight["as given"] ?? [], whole = straight["implicit SBR"] ?? []
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
            if let edit = MP4Rewrite.firstEdit(bytes), edit.mediaTimescale == rate {
                let start = edit.mediaTime * 2, expected = Double(edit.duration) * Double(rate) / Double(edit.movieTimescale)
                #expect(abs(Double(given.count / 2) - expected) <= Double(rate) / Double(edit.movieTimescale) + 1,
                        "\(source) as given: \(given.count / 2) frames, the edit says \(expected)")
                #expect(start + given.count <= whole.count && given.elementsEqual(whole[start..<(start + given.count)]),
                        "\(source) as given: not the stream from the edit's media time \(edit.mediaTime)")
                print("HE-AAC \(source) as given: edit from \(edit.mediaTime) for \(expected) frames")
            }
        }
    }

    @Test(.enabled(if: !samples.isEmpty, "FERMATA_HEAAC_SAMPLES names no HE-AAC file"))
    func aFreshSeekLandsOnTheStraightDecode() throws {
        for source in Self.samples {
            let directory = try TemporaryDirectory()
            for (label, path) in try Self.variants(of: source, in: directory) {
                let straight = try Decode.samples(try DecoderRegistry.open(path: path))
                let channels = try DecoderRegistry.open(path: path).format.channels
                let frames = straight.count / channels
                for target in [1, 2_049, frames / 2 + 7, max(0, frames - 1_000)] where target < frames {
                    let decoder = try DecoderRegistry.open(path: path)
                    try decoder.seek(toFrame: Int64(target))
                    let got = try Decode.samples(decoder, chunkFrames: 777, limit: 1_000)
                    let want = Array(straight[(target * channels)..<min(straight.count, (target + 1_000) * channels)])
                    #expect(got.count == want.count, "\(source) \(label) seek to \(target)")
                    // SBR's noise floor and AAC's noise substitution come from a random generator (see `MP4Decoder`).
                    let worst = zip(got, want).map { abs($0 - $1) }.max() ?? 0
                    #expect(worst <= 0.05, "\(source) \(label) seek to \(target): differs by \(worst)")
                }
            }
        }
    }
}

/// Rewrites an MP4 file's first audio track to a media time scale of half its value (and its sample durations with
/// it), as a muxer that writes HE-AAC at its core rate does. Test-only: the files here are small.
enum MP4Rewrite {
    /// The first edit of the first track (media time and duration) with the movie's and the media's time scales.
    static func firstEdit(_ bytes: [UInt8]) -> (mediaTime: Int, duration: Int, movieTimescale: Int, mediaTimescale: Int)? {
        var edit: (Int, Int)?, movie = 0, media = 0
        func u32(_ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }
        func walk(_ start: Int, _ end: Int) {
            var offset = start
            while offset + 8 <= end {
                let size = u32(offset)
                guard size >= 8, offset + size <= end else { return }
                let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
                let body = offset + 8
                switch type {
                case "moov", "trak", "edts", "mdia": walk(body, offset + size)
                case "mvhd" where bytes[body] == 0: movie = u32(body + 12)
                case "mdhd" where bytes[body] == 0 && media == 0: media = u32(body + 12)
                case "elst" where edit == nil && bytes[body] == 0 && u32(body + 4) > 0: edit = (u32(body + 12), u32(body + 8))
                default: break
                }
                offset += size
            }
        }
        walk(0, bytes.count)
        guard let edit, movie > 0, media > 0 else { return nil }
        return (edit.0, edit.1, movie, media)
    }

    /// True when an `mdhd` and an `stts` were rewritten.
    static func halveMediaTimescale(_ bytes: inout [UInt8]) -> Bool {
        var mdhd = false, stts = false
        func u32(_ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }
        func put(_ value: Int, _ at: Int) {
            for shift in 0..<4 { bytes[at + shift] = UInt8(truncatingIfNeeded: value >> (24 - 8 * shift)) }
        }
        func walk(_ start: Int, _ end: Int) {
            var offset = start
            while offset + 8 <= end {
                let size = u32(offset)
                guard size >= 8, offset + size <= end else { return }
                let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
                let body = offset + 8
                switch type {
                case "moov", "trak", "mdia", "minf", "stbl":
                    walk(body, offset + size)
                case "mdhd" where !mdhd && bytes[body] == 0:
                    put(u32(body + 12) / 2, body + 12)
                    put(u32(body + 16) / 2, body + 16)
                    mdhd = true
                case "stts" where !stts:
                    for entry in 0..<u32(body + 4) { put(u32(body + 8 + entry * 8 + 4) / 2, body + 8 + entry * 8 + 4) }
                    stts = true
                default:
                    break
                }
                offset += size
            }
        }
        walk(0, bytes.count)
        return mdhd && stts
    }
}
