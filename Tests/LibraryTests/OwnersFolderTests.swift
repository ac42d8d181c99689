import Decoders
import FermataCore
import Foundation
import Glibc
@testable import Library
import TestSupport
import Testing

/// A folder as owners copy it onto the box: MP3 and M4A downloads, Opus rips, a WMA and an `.m4p` from long ago, and
/// a field recorder's WAV past 4 GiB. Everything playable is indexed with its tags; nothing is skipped in silence.
@Suite(.serialized) struct OwnersFolderTests {
    static func encode(_ kind: LossyFixture.Kind, to path: String, tags: [String: String], dir: TemporaryDirectory) throws {
        let wav = dir.file("source-\(UUID().uuidString).wav")
        try WAVFixture.write(path: wav, samples: TestSignal.sweep(frames: 22_050, channels: 2, bits: 16),
                             channels: 2, sampleRate: 44_100, kind: .pcm16)
        try LossyFixture.encode(kind, wav: wav, to: path, tags: tags)
        try FileManager.default.removeItem(atPath: wav)
    }

    @Test func mp3M4AAndOpusAreIndexedAndUnplayableFilesAreNamed() async throws {
        let fixture = try LibraryFixture()
        let scratch = try TemporaryDirectory()
        let folder = fixture.file("Downloads/Band - Album")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Self.encode(.mp3, to: folder + "/01 Intro.mp3", tags: ["TIT2": "Intro", "TPE1": "Band", "TALB": "Album",
                                                                   "TRCK": "1"], dir: scratch)
        try Self.encode(.aac, to: folder + "/02 Song.m4a", tags: ["title": "Song", "artist": "Band", "album": "Album",
                                                                  "track": "2"], dir: scratch)
        try Self.encode(.alac, to: folder + "/03 Lossless.m4a", tags: ["title": "Lossless"], dir: scratch)
        try Self.encode(.opus, to: folder + "/04 Rip.opus", tags: ["TITLE": "Rip",
                                                                  "MUSICBRAINZ_TRACKID": "d6118046-407d-4e06-a1ba-49c399a4c42f"],
                        dir: scratch)
        _ = FileManager.default.createFile(atPath: folder + "/05 Old.wma", contents: Data([0x30, 0x26, 0xB2, 0x75] +
                                                                                          [UInt8](repeating: 1, count: 64)))
        // An iTunes Store purchase from before 2009: FairPlay, its sample entry `drms`.
        var m4p = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/02 Song.m4a")))
        if let at = (0..<(m4p.count - 4)).first(where: { m4p[$0..<$0 + 4].elementsEqual("mp4a".utf8) }) {
            m4p.replaceSubrange(at..<at + 4, with: Array("drms".utf8))
        }
        try Data(m4p).write(to: URL(fileURLWithPath: folder + "/06 Protected.m4p"))

        let library = try fixture.openLibrary()
        let summary = try await library.scan()
        let issues = try await library.issues()
        func kind(_ name: String) -> ScanIssue.Kind? { issues.first { $0.path == "Downloads/Band - Album/" + name }?.kind }
        func reason(_ name: String) -> String { issues.first { $0.path == "Downloads/Band - Album/" + name }?.reason ?? "" }

        let intro = try #require(try await library.track(path: "Downloads/Band - Album/01 Intro.mp3"))
        #expect(intro.title == "Intro")
        #expect(intro.artist == "Band")
        #expect(intro.album == "Album")
        let song = try #require(try await library.track(path: "Downloads/Band - Album/02 Song.m4a"))
        #expect(song.title == "Song")
        #expect(song.trackNumber == 2)
        #expect(try await library.track(path: "Downloads/Band - Album/03 Lossless.m4a")?.title == "Lossless")
        let rip = try #require(try await library.track(path: "Downloads/Band - Album/04 Rip.opus"))
        #expect(rip.title == "Rip")
        #expect(rip.musicBrainz.track == "d6118046-407d-4e06-a1ba-49c399a4c42f", "stored for MPD's MUSICBRAINZ_TRACKID")
        #expect(kind("05 Old.wma") == .unsupported)
        #expect(reason("05 Old.wma").contains("WMA is not a format Fermata plays"), "\(reason("05 Old.wma"))")
        #expect(kind("06 Protected.m4p") == .unsupported)
        #expect(reason("06 Protected.m4p").contains("DRM"), "\(reason("06 Protected.m4p"))")
        #expect(summary.filesSeen >= 6 + fixture.entries.count, "every audio file is seen, played or not")
    }

    /// A WAV whose data runs past 4 GiB (its 32-bit size wrapped around), as field recorders write: the scan used to
    /// walk the audio as chunks 8 bytes at a time, for hours. Sparse, so it takes no disk space.
    @Test func aWAVPast4GiBIsScannedInMoments() async throws {
        let fixture = try LibraryFixture()
        let path = fixture.file("Recorder/ZOOM0001.WAV")
        try FileManager.default.createDirectory(atPath: fixture.file("Recorder"), withIntermediateDirectories: true)
        let dataBytes: Int64 = (Int64(1) << 32) + 4 * 1_048_576
        var header = WAVFixture.bytes(samples: [], channels: 2, sampleRate: 48_000, kind: .pcm16)
        // Patch the data chunk's size to the wrapped value the recorder left (the low 32 bits).
        let wrapped = UInt32(truncatingIfNeeded: dataBytes)
        let at = header.count - 4
        header.replaceSubrange(at..<at + 4, with: [UInt8(wrapped & 0xFF), UInt8(wrapped >> 8 & 0xFF),
                                                   UInt8(wrapped >> 16 & 0xFF), UInt8(wrapped >> 24)])
        try Data(header).write(to: URL(fileURLWithPath: path))
        #expect(truncate(path, off_t(Int64(header.count) + dataBytes)) == 0)
        let clock = ContinuousClock.now
        let library = try fixture.openLibrary()
        let summary = try await library.scan()
        let elapsed = ContinuousClock.now - clock
        let track = try #require(try await library.track(path: "Recorder/ZOOM0001.WAV"))
        // The whole recording: 4 GiB + 4 MiB of 16-bit stereo at 48 kHz.
        let seconds = Double(dataBytes) / 4 / 48_000
        #expect(abs((track.duration ?? 0) - seconds) < 0.01, "\(String(describing: track.duration)) s")
        #expect(summary.tracks == fixture.entries.count + 1)
        print("scan with a 4 GiB WAV took \(elapsed)")
        #expect(elapsed < .seconds(60), "the scan ends (it took \(elapsed))")
    }

    /// Each file has a budget of bytes and seconds; past it, the file is a scan issue and the reader is free for the
    /// next one. Shown with a budget small enough for a real MP3 to exceed.
    @Test func aFileOverItsBudgetIsAnIssueAndTheNextFileIsRead() throws {
        let scratch = try TemporaryDirectory()
        let path = scratch.file("big.mp3")
        try Self.encode(.mp3, to: path, tags: ["TIT2": "Big"], dir: scratch)
        let tight = ScanReader(budget: ReadBudget(bytes: 1_024, seconds: 10))
        #expect { try tight.read(path: path) } throws: {
            ($0 as? DecoderError)?.description.contains("over its scan budget") ?? false
        }
        // The same reader's next file gets a fresh budget; the default one reads this file in full.
        #expect { try tight.read(path: path) } throws: { _ in true }
        #expect(try ScanReader().read(path: path).tags.title == "Big")
        // And a slow one: no time at all.
        let hurried = ScanReader(budget: ReadBudget(bytes: 1 << 30, seconds: 0))
        #expect { try hurried.read(path: path) } throws: {
            ($0 as? DecoderError)?.description.contains("took more than") ?? false
        }
    }
}
