import Foundation
import Glibc
import Testing
import TestSupport

/// File names are bytes on Linux, and MPD keeps them so end to end. Two files whose names differ only in invalid
/// UTF-8 bytes used to become one library entry (both repaired to U+FFFD), and such files could not be added at all.
/// Through the real daemon: both are listed with their raw bytes, each is added by its raw bytes, and it plays.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct RawNameTests {
    static let first: [UInt8] = Array("Raw/odd ".utf8) + [0xE9, 0xFF] + Array(".flac".utf8)
    static let second: [UInt8] = Array("Raw/odd ".utf8) + [0xE9, 0xFE] + Array(".flac".utf8)

    static func quoted(_ bytes: [UInt8]) -> [UInt8] { [0x22] + bytes + [0x22] }

    @Test func namesThatAreNotUTF8AreListedAddedAndPlayedByTheirBytes() async throws {
        try await Daemon.with { daemon async throws in
            let raw = daemon.music + "/Raw"
            try FileManager.default.createDirectory(atPath: raw, withIntermediateDirectories: true)
            for (index, name) in [Self.first, Self.second].enumerated() {
                let signal = TestSignal.sweep(frames: 44_100 * 3, channels: 2, bits: 16, seed: UInt64(700 + index))
                let temporary = raw + "/tmp\(index).flac"
                try FLACFixture.write(path: temporary, samples: signal, channels: 2, bitsPerSample: 16,
                                      sampleRate: 44_100, tags: ["TITLE": "Twin \(index)"])
                let target = Array(daemon.music.utf8) + [0x2F] + name + [0]
                let renamed = target.withUnsafeBufferPointer { buffer in
                    buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { rename(temporary, $0) }
                }
                try #require(renamed == 0)
            }
            _ = try await daemon.ok("update")
            _ = try await daemon.status { $0.all("updating_db").isEmpty }

            let client = try MPDTestClient(port: daemon.port)
            let listing = try client.exchange(bytes: Array("listall Raw".utf8))
            #expect(listing.firstRange(of: Array("file: ".utf8) + Self.first + [0x0A]) != nil, "\(listing)")
            #expect(listing.firstRange(of: Array("file: ".utf8) + Self.second + [0x0A]) != nil, "\(listing)")
            for name in [Self.first, Self.second] {
                let added = try client.exchange(bytes: Array("add ".utf8) + Self.quoted(name))
                #expect(added == Array("OK\n".utf8), "\(String(decoding: added, as: UTF8.self))")
            }
            let queue = try client.exchange(bytes: Array("playlistinfo".utf8))
            #expect(queue.firstRange(of: Array("file: ".utf8) + Self.first + [0x0A]) != nil)
            #expect(queue.firstRange(of: Array("Title: Twin 1".utf8)) != nil, "the second file's own tags")
            _ = try client.exchange(bytes: Array("play 1".utf8))
            let playing = try await daemon.status { $0.all("state") == ["play"] }
            #expect(playing.all("state") == ["play"] && playing.all("song") == ["1"] && playing.all("error").isEmpty,
                    "\(playing)")
        }
    }
}
