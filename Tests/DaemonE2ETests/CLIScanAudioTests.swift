import Foundation
import TestSupport
import Testing

/// `fermata scan` (start or follow a scan, live progress, summary) against the real daemon, and `fermata audio test`
/// (a tone on the device) through ALSA's `file` plugin.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct CLIScanAudioTests {
    @Test func scanPrintsTheSummaryAndFollows() async throws {
        try await Daemon.with { daemon async throws in
            let scan = try await daemon.fermata("scan")
            #expect(scan.status == 0, "\(scan)")
            let done = scan.output.split(separator: "\n").last.map(String.init) ?? ""
            #expect(done.hasPrefix("scan ") && done.contains(" done: 0 added, 0 updated, 0 removed, 0 restored"),
                    "nothing changed since the harness's scan: \(scan)")
            #expect(done.hasSuffix("\(MusicFixture.tracks.count) tracks in \(done.split(separator: " ").dropLast(2).last ?? "") s (incremental)"),
                    "\(scan)")
            let full = try await daemon.fermata("scan", "--full")
            #expect(full.status == 0 && full.output.hasSuffix("(full)\n"), "\(full)")
            let follow = try await daemon.fermata("scan", "--follow")
            let last = follow.output.split(separator: "\n").last.map(String.init) ?? ""
            #expect(follow.status == 0 && last.hasPrefix("no scan is running; the last one: ")
                    && follow.output.hasSuffix("(full)\n"), "\(follow)")
            // Every file the library could not index is named above the summary, with its reason.
            let issues = try await daemon.ok("scan_issues").all("file")
            #expect(!issues.isEmpty)
            for path in issues { #expect(follow.output.contains("    " + path + "\n"), "\(path) in \(follow)") }
            let status = try await daemon.ok("scan_status")
            #expect(status["scan_phase"] == "finished" && status["last_mode"] == "full", "\(status)")
            #expect(Int(status["scan_files_seen"] ?? "") ?? 0 >= MusicFixture.tracks.count, "\(status)")
        }
    }

    @Test func audioTestPlaysAToneOnTheDevice() async throws {
        let dir = try TemporaryDirectory(prefix: "fermata-tone")
        let capture = dir.file("tone.raw"), config = dir.file("none.toml")
        let fermata = Programs.built("fermata")
        let result = try await onThread {
            try Programs.run(fermata, ["audio", "test", "--device", "file:" + capture, "--seconds", "0.5", "--config", config])
        }
        #expect(result.status == 0 && result.output.contains("440 Hz"), "\(result)")
        let bytes = [UInt8](FileManager.default.contents(atPath: capture) ?? Data())
        #expect(bytes.count == 24_000 * 4, "0.5 s of 48 kHz 16-bit stereo")
        let left = stride(from: 0, to: bytes.count - 3, by: 4).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
        let peak = left.map { abs(Int($0)) }.max() ?? 0
        #expect((8_000...8_300).contains(peak), "−12 dBFS: peak \(peak)")
        let crossings = zip(left, left.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        #expect(abs(crossings - 440) <= 4, "440 Hz over 0.5 s: \(crossings) sign changes")

        let missing = try await onThread { try Programs.run(fermata, ["audio", "test", "--device", "hw:97", "--config", config]) }
        #expect(missing.status == 4 && missing.stderr.contains("cannot open audio device hw:97"), "\(missing)")
    }
}
