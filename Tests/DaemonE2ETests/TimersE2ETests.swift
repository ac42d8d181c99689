import Foundation
import Testing
import TestSupport

/// The household timers through the real daemon: the sleep timer's fade on the captured PCM (ALSA `file` capture:
/// every frame written, so the fade is measured in audio time, frame for frame), idle power-off writing its request
/// file, and the alarms through the CLI across a restart.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct TimersE2ETests {
    static let rate = 48_000
    /// A 1 kHz sine at half scale, 10 s (a whole number of its 48-frame periods, so the queue's repeat is seamless).
    static let sine: [Int32] = (0..<(10 * rate)).flatMap { frame -> [Int32] in
        let value = Int32((sin(2 * Double.pi * 1000 * Double(frame) / Double(rate)) * 16_384).rounded())
        return [value, value]
    }
    /// 10 ms windows: ten whole periods each, so a steady sine's RMS is the same wherever a window falls.
    static let window = 480

    /// The RMS of the left channel in each 10 ms window of little-endian 16-bit stereo `bytes`.
    static func levels(_ bytes: [UInt8]) -> [Double] {
        let frames = bytes.count / 4
        return stride(from: 0, to: frames - window + 1, by: window).map { start in
            var sum = 0.0
            for frame in start..<(start + window) {
                let sample = Double(Int16(bitPattern: UInt16(bytes[frame * 4]) | UInt16(bytes[frame * 4 + 1]) << 8))
                sum += sample * sample
            }
            return (sum / Double(window)).squareRoot()
        }
    }

    static func capture(_ daemon: OutputDaemon) -> [UInt8] {
        [UInt8](FileManager.default.contents(atPath: daemon.root.file("capture.raw")) ?? Data())
    }

    static func captured(_ daemon: OutputDaemon) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: daemon.root.file("capture.raw")))?[.size] as? Int) ?? 0
    }

    /// `sleep_timer 2` with a 2 s fade, on a playing sine: from where the fade begins, the level falls window after
    /// window to silence in 2 s of audio (±5 %), stays silent, and playback is then paused; the volume clients see
    /// never moved, and `play` is heard at the level it had.
    @Test func theSleepTimerFadesToSilenceThenPauses() async throws {
        let daemon = try OutputDaemon(config: """
            [output-room]
            type = "alsa"
            device = "file:$ROOT/capture.raw"

            [timers]
            sleep_fade_seconds = 2

            """)
        try FLACFixture.write(path: daemon.root.file("music/sine.flac"), samples: Self.sine, channels: 2,
                              bitsPerSample: 16, sampleRate: Self.rate)
        let before = try await onThread { () -> Int in
            try daemon.start()
            for line in ["clear", "add sine.flac", "repeat 1", "setvol 80", "play"] {
                guard try daemon.command(line).isOK else { throw MPDTestClient.Failure(description: "\(line) refused") }
            }
            // Two seconds of audio at the steady level first (the unpaced capture has them in a moment).
            guard Patience.waitBlocking(until: { Self.captured(daemon) > Self.rate * 4 * 2 }) else {
                throw MPDTestClient.Failure(description: "nothing captured; log:\n\(daemon.log)")
            }
            let before = Self.captured(daemon)
            let set = try daemon.command("sleep_timer 2")
            guard set["sleep"] == "2" else { throw MPDTestClient.Failure(description: "sleep_timer 2: \(set)") }
            return before
        }
        let paused = try await onThread { Patience.waitBlocking { (try? daemon.command("status")["state"]) == "pause" } }
        #expect(paused, "paused after the fade; log:\n\(daemon.log)")
        let status = try await onThread { try daemon.command("status") }
        #expect(status["volume"] == "80", "the volume clients see did not move: \(status)")
        #expect(status["sleep"] == nil, "the timer is over")
        let atPause = Self.captured(daemon)
        let levels = Self.levels(Self.capture(daemon))

        // The steady level: the second before the timer was set.
        let firstSet = before / 4 / Self.window
        let steady = levels[(firstSet - 100)..<firstSet].sorted()[50]
        // A half-scale sine at volume 80 (20 steps of 0.6 dB below 100: -12 dB).
        #expect(abs(steady - 16_384 / 2.squareRoot() * pow(10, -12.0 / 20)) < 50, "the sine at volume 80: \(steady)")
        let start = try #require(levels[firstSet...].firstIndex { $0 < steady * 0.995 }, "no fade")
        let end = try #require(levels[start...].firstIndex { $0 < 1 }, "never silent")
        let seconds = Double(end - start) * Double(Self.window) / Double(Self.rate)
        #expect(abs(seconds - 2) <= 0.1, "the fade took \(seconds) s of audio")
        for index in start..<end where levels[index + 1] > levels[index] * 1.001 + 0.5 {
            Issue.record("the level rose at \(index - start) windows into the fade: \(levels[index]) → \(levels[index + 1])")
            break
        }
        let afterwards = levels[end..<max(end, atPause / 4 / Self.window)]
        #expect(afterwards.allSatisfy { $0 < 1 }, "silent from the fade's end until the pause")

        // Play: heard at the level it had (the fade let go as the output paused).
        _ = try await onThread { try daemon.command("play") }
        let grew = try await onThread { Patience.waitBlocking { Self.captured(daemon) > atPause + Self.rate * 4 } }
        #expect(grew, "playing again")
        _ = try await onThread { try daemon.command("stop") }
        let resumed = Self.levels(Self.capture(daemon)).suffix(50)
        #expect(resumed.allSatisfy { abs($0 - steady) < steady * 0.01 }, "back at the steady level: \(Array(resumed))")
        #expect(try await onThread { daemon.stop() } == 0)
    }

    /// Idle power-off: stopped with nothing done for `idle_poweroff_minutes` (here 0.02: 1.2 s), the daemon writes
    /// the power-off request the `fermata-poweroff.path` unit watches, and says why in its log.
    @Test func idlePowerOffWritesTheRequest() async throws {
        let daemon = try OutputDaemon(config: """
            [audio]
            output = "null"

            [timers]
            idle_poweroff_minutes = 0.02

            [system]
            poweroff_request = "$ROOT/poweroff"

            """)
        let request = daemon.root.file("poweroff")
        try await onThread { try daemon.start() }
        let written = try await onThread { Patience.waitBlocking { FileManager.default.fileExists(atPath: request) } }
        #expect(written, "no request; log:\n\(daemon.log)")
        let text = (try? String(contentsOfFile: request, encoding: .utf8)) ?? ""
        #expect(text.contains("timers: idle (not playing, nothing done) for"), "\(text)")
        #expect(try await onThread { daemon.stop() } == 0)
        // The log line follows the file's write: read once the daemon has ended.
        #expect(daemon.log.contains("wrote \(request); the fermata-poweroff.path unit powers the board off"), "\(daemon.log)")
    }

    /// `fermata sleep` and `fermata alarm` against the daemon: exact output, bad input refused before anything is
    /// sent (64) or by the daemon (1), and the alarms — not the sleep timer — still there after a restart.
    @Test func theCLIsTimersAndAlarmsAcrossARestart() async throws {
        let daemon = try OutputDaemon(config: "[audio]\noutput = \"null\"\n")
        try await onThread { try daemon.start() }
        func fermata(arguments: [String]) async throws -> ProgramResult {
            let socket = daemon.state + "/mpd.sock"
            return try await onThread { try Programs.run(Programs.built("fermata"), arguments + ["--socket", socket]) }
        }
        func fermata(_ arguments: String...) async throws -> ProgramResult { try await fermata(arguments: arguments) }
        #expect(try await fermata("sleep").output == "no sleep timer\n")
        #expect(try await fermata("sleep", "30m").output == "sleep timer: the music stops in 30m\n")
        #expect(try await fermata("sleep").output.hasPrefix("sleep timer: the music stops in "))
        #expect(try await onThread { try daemon.command("status")["sleep"] }.flatMap(Int.init).map { (1...1800).contains($0) } == true)
        #expect(try await fermata("sleep", "off").output == "sleep timer off\n")
        #expect(try await fermata("sleep").output == "no sleep timer\n")
        for bad in ["25h", "0", "30x", "-5m"] { #expect(try await fermata("sleep", bad).status == 64, "\(bad)") }

        let added = try await fermata("alarm", "add", "07:00", "weekdays", "playlist:Wake", "--volume", "40", "--fade", "60")
        #expect(added.status == 0 && added.output.hasPrefix("alarm 1: 07:00 weekdays, playlist:Wake; next "), "\(added)")
        #expect(try await fermata("alarm", "add", "21:30", "2099-12-24", "folder:Christmas").output
                == "alarm 2: 21:30 2099-12-24, folder:Christmas; next 2099-12-24 21:30\(Self.offset("2099-12-24T21:30:00"))\n")
        #expect(try await fermata("alarm", "disable", "2").status == 0)
        let expected = try await fermata("alarm", "list").output.split(separator: "\n").map(String.init)
        #expect(expected.count == 2 && expected[0].hasPrefix("1  07:00 weekdays  playlist:Wake  (volume 40, fade-in 60 s)  next "), "\(expected)")
        #expect(expected.last == "2  21:30 2099-12-24  folder:Christmas  (volume as it is, fade-in 30 s)  off")
        for bad in [["add", "25:00", "daily", "playlist:Wake"], ["add", "07:00", "daily", "playlist:Wake", "--volume", "101"],
                    ["add", "07:00", "sometimes", "playlist:Wake"], ["add", "07:00", "daily", "Wake"], ["remove", "x"], ["remove", "0"]] {
            #expect(try await fermata(arguments: ["alarm"] + bad).status == 64, "\(bad)")
        }
        #expect(try await fermata("alarm", "remove", "99").status == 1, "no such alarm: refused by fermatad")

        let restarted = try await onThread { () -> Bool in
            guard daemon.stop() == 0 else { return false }
            try daemon.start()
            return true
        }
        #expect(restarted)
        #expect(try await fermata("alarm", "list").output.split(separator: "\n").map(String.init) == expected, "kept across a restart")
        #expect(try await fermata("sleep").output == "no sleep timer\n")
        #expect(try await fermata("alarm", "remove", "1").status == 0)
        #expect(try await fermata("alarm").output.split(separator: "\n").map(String.init) == [expected[1]], "list is the default")
        #expect(try await onThread { daemon.stop() } == 0)
    }

    /// The local offset this machine's zone has at a local date and time (`+01:00`), as the daemon prints it.
    static func offset(_ local: String) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        formatter.timeZone = TimeZone.current
        let date = formatter.date(from: local) ?? Date()
        let seconds = TimeZone.current.secondsFromGMT(for: date)
        let minutes = abs(seconds) / 60
        return (seconds < 0 ? "-" : "+") + String(format: "%02d:%02d", minutes / 60, minutes % 60)
    }
}
