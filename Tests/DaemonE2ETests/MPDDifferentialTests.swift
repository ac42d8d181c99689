import Foundation
import TestSupport
import Testing

/// The differential test against MPD (`Tests/Tools/mpd-differential.py`): one seeded random sequence of 300 queue
/// edits, transport commands, seeks, modes (random, repeat, consume, single and oneshot), priorities and stored
/// playlists, sent to MPD 0.23 (Debian's `mpd`, started by the script) and to this build's fermatad; after every
/// command the reply, the status (timing aside) and the queue are compared. It passes when every difference is one of
/// the script's `KNOWN_DIFFERENCES` (each with its reason; the README lists them). Longer runs: the script with other
/// seeds and `--commands`.
@Suite(.serialized, .timeLimit(.minutes(15)))
struct MPDDifferentialTests {
    static let mpd = "/usr/bin/mpd"
    static var ready: Bool {
        FileManager.default.isExecutableFile(atPath: mpd) && FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")
    }

    @Test(.enabled(if: ready, "needs Debian's mpd and ffmpeg"))
    func threeHundredRandomCommandsAnswerAsMPDDoes() async throws {
        let script = KernelLab.repository.appendingPathComponent("Tests/Tools/mpd-differential.py").path
        let fermatad = Programs.built("fermatad")
        let result = try await onThread {
            // A hang detector: the run's time is the machine's load (the script's own waits are stall bounds).
            try Programs.run(Programs.python, [script, "--seed", "1", "--commands", "300", "--fermatad", fermatad],
                             timeout: Patience.ceilingSeconds)
        }
        let summary = result.output.split(separator: "\n").last { $0.hasPrefix("summary:") } ?? "no summary"
        print("MPD differential, seed 1: \(summary)")
        #expect(result.status == 0, "\(result.output.suffix(6000))\n\(result.stderr.suffix(2000))")
    }
}
