import Foundation
import Testing
import TestSupport

/// Gapless MP3 and AAC through the real fermatad, as an owner's queue plays them: four tracks cut from one recording at
/// offsets no codec frame lines up with, scanned, queued over the protocol and played into ALSA's `file` capture.
/// The capture is the source's length exactly, and each track's samples are the reference decoder's.
@Suite(.serialized) struct LossyGaplessE2ETests {
    static let config = """
        [output-room]
        type = "alsa"
        device = "file:$ROOT/capture.raw"

        """

    func playPieces(_ kind: LossyFixture.Kind) async throws {
        try await onThread {
            let daemon = try OutputDaemon(config: Self.config)
            let scratch = try TemporaryDirectory()
            let frames = 10 * 44_100
            let source = TestSignal.sweep(frames: frames, channels: 2, bits: 16, seed: 77)
            let bounds = [0, 100_001, 222_223, 333_337, frames]
            var names: [String] = []
            for index in 0..<4 {
                let wav = scratch.file("p\(index).wav")
                try WAVFixture.write(path: wav, samples: Array(source[(bounds[index] * 2)..<(bounds[index + 1] * 2)]),
                                     channels: 2, sampleRate: 44_100, kind: .pcm16)
                let name = "piece\(index).\(kind.fileExtension)"
                try LossyFixture.encode(kind, wav: wav, to: daemon.root.file("music/" + name))
                names.append(name)
            }
            try daemon.start()
            _ = try daemon.command("clear")
            for name in names { _ = try daemon.command("add \(name)") }
            // Bounded by progress (each `idle` answer; a read stalls out after `Patience.stallSeconds`), with a ceiling
            // only for a stream that never ends: the unpaced capture's time is the machine's load.
            let watcher = try MPDTestClient(port: daemon.port)
            _ = try daemon.command("play 0")
            let deadline = Date().addingTimeInterval(Patience.ceilingSeconds)
            while try daemon.command("status")["state"] != "stop" {
                guard Date() < deadline else { throw MPDTestClient.Failure(description: "still playing; log:\n\(daemon.log)") }
                _ = try watcher.command("idle player")
            }
            #expect(daemon.stop() == 0)
            let captured = LossyFixture.floats(FileManager.default.contents(atPath: daemon.root.file("capture.raw")) ?? Data())
            #expect(captured.count == frames * 2, "\(kind): \(captured.count / 2) frames captured of \(frames)")
            var reference: [Float] = []
            for (index, name) in names.enumerated() {
                let decoded = try LossyFixture.reference(kind, path: daemon.root.file("music/" + name), in: scratch.path)
                reference += decoded.prefix((bounds[index + 1] - bounds[index]) * 2)
            }
            let mismatch = zip(captured, reference).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            #expect(mismatch == nil, "\(kind): first sample that differs from the reference decoder: \(String(describing: mismatch))")
        }
    }

    @Test func mp3() async throws { try await playPieces(.mp3) }

    @Test func aacInM4A() async throws { try await playPieces(.aac) }
}
