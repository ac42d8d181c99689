import Foundation
import Testing
import TestSupport

/// Practice through the real daemon: the time played shows in `practice` and `fermata practice`, and going back to
/// a track brings back its loop, tempo and transposition (`practice.remember` is on by default).
@Suite struct PracticeE2ETests {
    @Test func practiceTimeAndPerTrackMemory() async throws {
        try await Daemon.with { daemon async throws in
            let (uno, dos) = (MusicFixture.uno, MusicFixture.dos)
            try await daemon.ok("add \"\(uno.path)\"")
            try await daemon.ok("add \"\(dos.path)\"")
            try await daemon.ok("repeat 1")
            try await daemon.ok("single 1")  // repeat + single: the track plays for ever
            try await daemon.ok("play 0")
            _ = try await daemon.status { $0["state"] == "play" && $0["song"] == "0" }
            try await daemon.ok("loop_set 0.5 1.5")
            try await daemon.ok("tempo 80")
            let transposed = try await daemon.fermata("transpose", "--", "-2")
            #expect(transposed.status == 0 && transposed.output == "transpose -2 semitones\n", "\(transposed)")
            try await Task.sleep(for: .seconds(3))

            try await daemon.ok("play 1")
            _ = try await daemon.status { $0["song"] == "1" && (Double($0["elapsed"] ?? "") ?? 0) > 0.1 }
            try await daemon.ok("loop_set 0.2 0.4")
            try await daemon.ok("tempo 100")
            try await daemon.ok("transpose 0")
            try await Task.sleep(for: .seconds(2))  // the recorder sees the change (at once, and at its 1 Hz poll)

            try await daemon.ok("play 0")
            let deadline = Date().addingTimeInterval(Patience.stallSeconds)  // a hang detector
            var loop = try await daemon.ok("loop_status")
            while !(loop["loop_start"] == "0.500" && loop["tempo"] == "80" && loop["transpose"] == "-2"), Date() < deadline {
                try await Task.sleep(for: .milliseconds(50))
                loop = try await daemon.ok("loop_status")
            }
            #expect(loop["loop_start"] == "0.500" && loop["loop_end"] == "1.500" && loop["tempo"] == "80", "\(loop)")
            #expect(loop["transpose"] == "-2", "the track's transposition comes back with it: \(loop)")
            try await daemon.ok("stop")

            let report = try await daemon.ok("practice")
            let total = Double(report["total"] ?? "") ?? 0
            #expect(total >= 1 && total < 120, "\(report)")
            #expect(report.all("file").contains(uno.path))
            #expect(report.all("loop_start").contains("0.500"))
            let cli = try await daemon.fermata("practice")
            #expect(cli.status == 0, "\(cli)")
            #expect(cli.output.hasPrefix("Today ("), "\(cli)")
            #expect(cli.output.contains("This week ("), "\(cli)")
            #expect(cli.output.contains("Uno - Beta"), "\(cli)")
            #expect(cli.output.contains("loop 0:00.500-0:01.500"), "\(cli)")
            let day = try await daemon.fermata("practice", "--day", "2001-02-30")
            #expect(day.status == 1 && day.stderr.contains("no such day"), "\(day)")
        }
    }
}
