@testable import Decoders
import Foundation
import TestSupport
import Testing

/// The MP4 box walker on numbers no encoder writes but a damaged or hostile file holds: each is refused or read, never
/// a trap. Found by `Tests/Tools/fuzz/fuzz-tag-readers.sh` (the sample-table product overflowed Int64).
@Suite struct MP4LayoutTests {
    static func m4a(in dir: TemporaryDirectory) throws -> [UInt8] {
        let wav = dir.file("s.wav")
        try WAVFixture.write(path: wav, samples: TestSignal.sweep(frames: 22_050, channels: 2, bits: 16), channels: 2,
                             sampleRate: 44_100, kind: .pcm16)
        try LossyFixture.encode(.aac, wav: wav, to: dir.file("s.m4a"))
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.file("s.m4a"))))
    }

    static func offset(of type: String, in bytes: [UInt8]) -> Int? {
        (4..<(bytes.count - 4)).first { bytes[$0..<$0 + 4].elementsEqual(type.utf8) }
    }

    @Test func hugeSampleTableAndEditListNumbersAreReadWithoutATrap() throws {
        let dir = try TemporaryDirectory()
        let original = try Self.m4a(in: dir)
        let stts = try #require(Self.offset(of: "stts", in: original))
        let elst = try #require(Self.offset(of: "elst", in: original))
        var cases: [(String, [UInt8])] = []
        var table = original
        // The first stts entry: 0xFFFFFFFF samples of 0xFFFFFFFF ticks each (the product needs 64 unsigned bits).
        table.replaceSubrange((stts + 12)..<(stts + 20), with: [UInt8](repeating: 0xFF, count: 8))
        cases.append(("stts", table))
        var edit = original
        // The edit's duration and media time at their largest.
        edit.replaceSubrange((elst + 12)..<(elst + 16), with: [0xFF, 0xFF, 0xFF, 0xFF])
        edit.replaceSubrange((elst + 16)..<(elst + 20), with: [0x7F, 0xFF, 0xFF, 0xFF])
        cases.append(("elst", edit))
        for (name, bytes) in cases {
            let path = dir.file("\(name).m4a")
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            if let tags = try? TagReader.read(path: path), let duration = tags.duration {
                #expect(duration.isFinite && duration >= 0, "\(name): \(duration)")
            }
            _ = Decode.failure(of: path)  // plays what it can or refuses; it must not trap
        }
    }
}
