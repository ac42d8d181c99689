import AudioCore
@testable import Decoders
import Foundation
import TestSupport
import Testing

/// The MP3, MP4 (AAC, ALAC) and Opus decoders on files from LAME, FFmpeg and opusenc: exact lengths, sample-accurate
/// seeks on a freshly opened file (what a resume after a restart does), the gapless trim from iTunSMPB alone, and
/// the refusals owners meet (DRM, FFmpeg missing is covered by the registry's message).
@Suite(.serialized) struct LossyDecoderTests {
    static let frames = 5 * 44_100 + 777

    /// A 5 s source encoded as `kind` in a fresh directory.
    static func file(_ kind: LossyFixture.Kind, rate: Int = 44_100) throws -> (TemporaryDirectory, String, Int) {
        let dir = try TemporaryDirectory()
        let frames = rate == 44_100 ? Self.frames : 5 * rate + 777
        let wav = dir.file("source.wav")
        try WAVFixture.write(path: wav, samples: TestSignal.sweep(frames: frames, channels: 2, bits: 16, sampleRate: rate),
                             channels: 2, sampleRate: rate, kind: .pcm16)
        let path = dir.file("file.\(kind.fileExtension)")
        try LossyFixture.encode(kind, wav: wav, to: path)
        return (dir, path, frames)
    }

    @Test(arguments: [LossyFixture.Kind.mp3, .mp3CBR, .aac, .aacNoPNS, .alac, .opus])
    func lengthIsTheSourcesAndAFreshSeekLandsOnTheStraightDecode(kind: LossyFixture.Kind) throws {
        let (directory, path, frames) = try Self.file(kind, rate: kind == .opus ? 48_000 : 44_100)
        defer { withExtendedLifetime(directory) {} }
        let straightDecoder = try DecoderRegistry.open(path: path)
        #expect(straightDecoder.totalFrames == Int64(frames))
        let straight = try Decode.samples(straightDecoder, chunkFrames: 1_000)
        #expect(straight.count == frames * 2)
        for target in [0, 1, 1_151, 44_101, 100_003, frames - 500] {
            // A new decoder for each seek: what a restart that resumes at a saved position does.
            let decoder = try DecoderRegistry.open(path: path)
            try decoder.seek(toFrame: Int64(target))
            let got = try Decode.samples(decoder, chunkFrames: 777, limit: 3_000)
            let want = Array(straight[(target * 2)..<min(straight.count, (target + 3_000) * 2)])
            #expect(got.count == want.count, "\(kind) seek to \(target)")
            let worst = zip(got, want).map { abs($0 - $1) }.max() ?? 0
            // Opus's decoder state settles to below 16-bit resolution after the pre-roll; the others are exact.
            // AAC noise substitution is random by design: FFmpeg's default encoder uses it, so allow its level there.
            let tolerance: Float = kind == .opus ? 1.0 / 32768 : kind == .aac ? 0.05 : 0
            #expect(worst <= tolerance, "\(kind) seek to \(target): differs by \(worst)")
        }
    }

    @Test func aacGaplessFromITunSMPBAlone() throws {
        let dir = try TemporaryDirectory()
        let wav = dir.file("source.wav")
        let source = TestSignal.sweep(frames: Self.frames, channels: 2, bits: 16)
        try WAVFixture.write(path: wav, samples: source, channels: 2, sampleRate: 44_100, kind: .pcm16)
        let withEdit = dir.file("edit.m4a"), smpbOnly = dir.file("smpb.m4a"), neither = dir.file("neither.m4a")
        try LossyFixture.encode(.aac, wav: wav, to: withEdit)
        for path in [smpbOnly, neither] {
            try LossyFixture.run("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error", "-y", "-i", wav, "-c:a", "aac",
                                                     "-use_editlist", "0", path])
        }
        // iTunes's layout: priming 1024 (FFmpeg's encoder delay), padding, then the source's sample count.
        let smpb = String(format: " 00000000 %08X %08X %016X 00000000 00000000", 1024, 2048 - (Self.frames + 1024) % 1024,
                          Self.frames)
        try LossyFixture.run("/usr/bin/python3", ["-c", """
            import mutagen.mp4, sys
            f = mutagen.mp4.MP4(sys.argv[1]); f['----:com.apple.iTunes:iTunSMPB'] = [sys.argv[2].encode()]; f.save()
            """, smpbOnly, smpb])
        let edited = try Decode.samples(try DecoderRegistry.open(path: withEdit))
        let fromSMPB = try Decode.samples(try DecoderRegistry.open(path: smpbOnly))
        #expect(edited.count == Self.frames * 2)
        #expect(fromSMPB.count == Self.frames * 2)
        #expect(fromSMPB == edited, "the same encoder's samples, trimmed by iTunSMPB instead of the edit list")
        // With neither, nothing is known to trim: the priming and padding play (as FFmpeg's own decoder does).
        let untrimmed = try Decode.samples(try DecoderRegistry.open(path: neither))
        #expect(untrimmed.count > Self.frames * 2)
    }

    @Test func drmProtectedM4PIsRefusedSayingSo() throws {
        let (dir, path, _) = try Self.file(.aac)
        // A FairPlay file's sample entry is `drms` where a plain one says `mp4a`.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let mp4a = Array("mp4a".utf8)
        guard let at = (0..<(bytes.count - 4)).first(where: { Array(bytes[$0..<$0 + 4]) == mp4a }) else {
            Issue.record("no mp4a sample entry")
            return
        }
        bytes.replaceSubrange(at..<at + 4, with: Array("drms".utf8))
        let m4p = dir.file("bought-in-2006.m4p")
        try Data(bytes).write(to: URL(fileURLWithPath: m4p))
        let error = Decode.failure(of: m4p)
        #expect(error?.kind == "unsupported")
        #expect(error?.description.contains("DRM-protected") ?? false, "\(String(describing: error))")
        #expect(throws: DecoderError.self) { try TagReader.read(path: m4p) }
    }

    @Test func mp4WithMoovAfterAndBeforeMdatPlayTheSame() throws {
        let dir = try TemporaryDirectory()
        let wav = dir.file("source.wav")
        try WAVFixture.write(path: wav, samples: TestSignal.sweep(frames: Self.frames, channels: 2, bits: 16),
                             channels: 2, sampleRate: 44_100, kind: .pcm16)
        let end = dir.file("end.m4a"), start = dir.file("start.m4a")
        try LossyFixture.encode(.alac, wav: wav, to: end)
        try LossyFixture.run("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error", "-y", "-i", wav, "-c:a", "alac",
                                                 "-movflags", "+faststart", start])
        let a = try Decode.samples(try DecoderRegistry.open(path: end))
        let b = try Decode.samples(try DecoderRegistry.open(path: start))
        #expect(a.count == Self.frames * 2)
        #expect(a == b)
        #expect(try TagReader.read(path: start).duration == TagReader.read(path: end).duration)
    }

    @Test func rawADTSPlaysAndSeeksExactly() throws {
        let dir = try TemporaryDirectory()
        let wav = dir.file("source.wav")
        try WAVFixture.write(path: wav, samples: TestSignal.sweep(frames: Self.frames, channels: 2, bits: 16),
                             channels: 2, sampleRate: 44_100, kind: .pcm16)
        let path = dir.file("raw.aac")
        try LossyFixture.run("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error", "-y", "-i", wav, "-c:a", "aac",
                                                 "-aac_pns", "0", path])
        let all = try Decode.samples(try DecoderRegistry.open(path: path))
        #expect(all.count >= Self.frames * 2, "ADTS carries no trim: everything decoded plays")
        let decoder = try DecoderRegistry.open(path: path)
        try decoder.seek(toFrame: 77_777)
        let got = try Decode.samples(decoder, limit: 2_000)
        #expect(got == Array(all[(77_777 * 2)..<(79_777 * 2)]))
    }
}
