import Foundation
import TestSupport
import Testing

/// Recording through the built `fermatad` and `fermata`: with no capture device, `record on` and `audio latency` are
/// refused in words (exit status 1) and bad input is the CLI's usage error (64) before anything is sent; a configured
/// capture device that does not exist is named in `fermata record`'s last problem while the music plays on, and
/// `fermata doctor` says it cannot be opened.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct RecordE2ETests {
    typealias M = MusicFixture
    static let noDevice = "fermata-no-such-capture"

    @Test func withNoCaptureDeviceRecordingIsRefused() async throws {
        try await Daemon.with { daemon async throws in
            let on = try await daemon.fermata("record", "on")
            #expect(on.status == 1 && on.stderr.contains("no capture device: set record.device"), "\(on)")
            let status = try await daemon.fermata("record")
            #expect(status.status == 0 && status.output.hasPrefix("recording: off, off\ncapture device: none"), "\(status)")
            #expect(try await daemon.fermata("takes").output == "no takes\n")
            let unknown = try await daemon.fermata("takes", "delete", "5")
            #expect(unknown.status == 1 && unknown.stderr.contains("no take 5"), "\(unknown)")
            let together = try await daemon.fermata("takes", "play", "5", "--balance", "70", "--rounds", "3")
            #expect(together.status == 1 && together.stderr.contains("no take 5"), "\(together)")
            let latency = try await daemon.fermata("audio", "latency")
            #expect(latency.status == 1 && latency.stderr.contains("no capture device"), "\(latency)")
            for words in [["takes", "delete", "0"], ["takes", "delete", "x"], ["takes", "play", "1", "--alternate", "51"],
                          ["takes", "play", "-3"], ["record", "maybe"], ["audio", "latency", "--rate", "1000"],
                          ["takes", "play", "1", "--balance", "101"], ["takes", "play", "1", "--balance", "-1"],
                          ["takes", "play", "1", "--rounds", "3"], ["takes", "play", "1", "--balance", "50", "--rounds", "0"],
                          ["takes", "play", "1", "--balance", "50", "--alternate", "2"]] {
                let usage = try await daemon.fermata(arguments: words)
                #expect(usage.status == 64, "\(words): \(usage)")
            }
        }
    }

    @Test func aCaptureDeviceThatCannotOpenIsNamedAndTheMusicPlaysOn() async throws {
        try await Daemon.with(config: "[record]\ndevice = \"\(Self.noDevice)\"\n") { daemon async throws in
            try await daemon.ok("add \"\(M.uno.path)\"")
            try await daemon.ok("repeat 1")
            try await daemon.ok("single 1")
            #expect(try await daemon.fermata("record", "on").status == 0)
            try await daemon.ok("play 0")
            var problem: String?
            #expect(try await Patience.wait {
                problem = try await daemon.ok("record")["record_error"]
                return problem != nil
            }, "no problem reported; log:\n\(daemon.log)")
            #expect(problem?.contains(Self.noDevice) == true, "\(problem ?? "")")
            #expect(try await daemon.status()["state"] == "play", "the music plays on")
            let shown = try await daemon.fermata("record")
            #expect(shown.output.contains("recording: on") && shown.output.contains("last problem: "), "\(shown)")

            let dir = try TemporaryDirectory()
            try "[record]\ndevice = \"\(Self.noDevice)\"\n".write(toFile: dir.file("f.toml"), atomically: true, encoding: .utf8)
            let doctor = try await daemon.fermata("doctor", "--config", dir.file("f.toml"))
            #expect(doctor.output.contains("FIX   capture device \(Self.noDevice): "), "\(doctor)")
            try await daemon.ok("stop")
        }
    }
}
