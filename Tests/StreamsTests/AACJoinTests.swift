import AudioCore
import Foundation
import Testing
import TestSupport
@testable import Streams

/// A listener joins an AAC (ADTS) station mid-frame: the bytes start anywhere, and the first sync words found may
/// be false ones (0xFFF inside a frame's data) that parse as frames FFmpeg cannot read. The station must play from
/// the first real frame on (`ADTSAligner`). A CI-like run met it through Icecast: FFmpeg answered "Not yet implemented
/// in FFmpeg, patches welcome" for such a frame and the station was skipped as "no decodable AAC"; joined elsewhere,
/// "no audio stream FFmpeg can decode" or "Error number -50531338 occurred".
@Suite struct AACJoinTests {
    /// Bytes from memory, in reads of at most 1,400 (a network's segments).
    final class Bytes: StreamByteSource {
        let data: [UInt8]
        var at = 0
        init(_ data: [UInt8]) { self.data = data }
        func read(into buffer: UnsafeMutableRawBufferPointer) throws(StreamError) -> Int {
            let n = min(buffer.count, 1_400, data.count - at)
            guard n > 0 else { return 0 }
            data.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + at, byteCount: n) }
            at += n
            return n
        }
    }

    static var ready: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg") }

    /// 12 s of pink noise (seeded) as the Icecast fixtures make their AAC mount (`icecast.py`: 256 kb/s LC, no PNS),
    /// and its real frames' starts, by their ADTS lengths (every other 0xFFF is a false sync word).
    static func fixture() throws -> (data: [UInt8], frames: [Int]) {
        let directory = try TemporaryDirectory(prefix: "fermata-aacjoin")
        let file = directory.file("src.aac")
        try LossyFixture.run("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                                                  "anoisesrc=d=12:c=pink:r=44100:a=0.5:seed=7,aformat=channel_layouts=stereo",
                                                  "-c:a", "aac", "-b:a", "256k", "-aac_pns", "0", "-f", "adts", file])
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        var frames: [Int] = [], at = 0
        while at + 7 <= data.count, data[at] == 0xFF, data[at + 1] & 0xF6 == 0xF0 {
            frames.append(at)
            let length = Int(data[at + 3] & 3) << 11 | Int(data[at + 4]) << 3 | Int(data[at + 5]) >> 5
            guard length >= 7 else { break }
            at += length
        }
        return (data, frames)
    }

    /// Decodes `data` as a station; the frames decoded, or the error in words.
    static func play(_ data: [UInt8], atMost: Int = .max) -> Result<Int, StreamError> {
        do throws(StreamError) {
            let decoder = try AACStreamDecoder(source: Bytes(data))
            var buffer = [UInt8](repeating: 0, count: 4096 * decoder.format.bytesPerFrame)
            var frames = 0
            while frames < atMost {
                var n = 0
                var failure: StreamError?
                buffer.withUnsafeMutableBytes { raw in
                    do throws(StreamError) { n = try decoder.decode(into: raw) } catch { failure = error }
                }
                if let failure { throw failure }
                if n == 0 { break }
                frames += n
            }
            return .success(frames)
        } catch {
            return .failure(error)
        }
    }

    /// Damaged frames in a playing station (garbage contents; every other one's header naming a profile FFmpeg does
    /// not decode) are left out and the station plays on.
    @Test(.enabled(if: ready, "needs ffmpeg")) func damagedFramesAreSkippedAndTheStationPlaysOn() throws {
        var (data, frames) = try Self.fixture()
        var state: UInt32 = 0x9E37_79B9
        let damaged = stride(from: 40, to: frames.count - 40, by: 10).map { frames[$0] }
        for (n, start) in damaged.enumerated() {
            // Every other one's header says another profile (SSR: "Not yet implemented" in FFmpeg), its length kept.
            if n % 2 == 0 { data[start + 2] = data[start + 2] & 0x3F | 0x80 }
            for i in (start + 9)..<min(start + 200, data.count) {  // the payload after the header
                state ^= state << 13; state ^= state >> 17; state ^= state << 5
                data[i] = UInt8(truncatingIfNeeded: state)
            }
        }
        let result = Self.play(data)
        guard case let .success(decoded) = result else {
            Issue.record("\(damaged.count) damaged frames stopped the station: \(result)")
            return
        }
        // Each frame is 1,024 samples; the damaged ones (and a neighbour each, at most) are left out.
        #expect(decoded >= (frames.count - 3 * damaged.count) * 1024, "\(decoded) frames of \(frames.count * 1024)")
    }

    @Test(.enabled(if: ready, "needs ffmpeg")) func aStationJoinedAtAFalseSyncWordPlaysFromTheNextRealFrame() throws {
        let (data, frames) = try Self.fixture()
        let real = Set(frames)
        #expect(real.count > 100, "the fixture is ADTS: \(real.count) frames")
        let offsets = (0..<(data.count * 3 / 4)).filter { data[$0] == 0xFF && data[$0 + 1] & 0xF0 == 0xF0 && !real.contains($0) }
        #expect(offsets.count >= 20, "false sync words to join at: \(offsets.count)")
        var refused: [String] = []
        for offset in offsets.prefix(60) {
            switch Self.play(Array(data[offset...]), atMost: 44_100) {
            case let .success(frames): if frames < 44_100 { refused.append("\(offset): \(frames) frames") }
            case let .failure(error): refused.append("\(offset): \(error)")
            }
        }
        #expect(refused.isEmpty, "joined at a false sync word, the station did not play a second: \(refused)")
    }
}
