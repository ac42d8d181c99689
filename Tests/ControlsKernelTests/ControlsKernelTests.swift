import Foundation
import TestSupport
import Testing

/// The controls on a real kernel: ../shared/kernel-lab boots Linux with gpio-sim lines named like the Raspberry Pi
/// profile's, and the guest script (guest/controls-scenario.sh, driven by guest/drive.py) presses, double-taps,
/// long-presses, holds, chords and spins the encoder both ways at speed while the real binaries listen:
/// `fermata gpio monitor` (libgpiod 1.6, v1 API) driving a real player on the paced null output, and
/// `fermata-controls-bench monitor` built against libgpiod 2 (build-gpiod-v2.sh). Skipped, with the reason printed,
/// only where `run-in-kernel.sh --check` says the lab cannot run.
@Suite(.serialized, .enabled("needs ../shared/kernel-lab (run-in-kernel.sh --check)") {
    try await onThread { KernelLab.available }
})
struct ControlsKernelTests {
    /// The driver's actions; `repeats` seek steps while next is held (4 for the intended 1.1 s hold).
    /// The actions the pi's presses call for. The driver presses play twice and mode twice (short, then long), holds
    /// next, then presses loop twice and holds it; each press's action is judged by its length as the kernel timed it
    /// (`presses`), since a starved VM can stretch a 150 ms press past the 600 ms long press (a CI-like run held
    /// mode's short press 1.5 s, and announce was then the right answer). Defaults: what the driver aims at.
    static func expectedActions(repeats: Int = 4, play: [String] = ["play-pause", "play-pause"],
                                mode: [String] = ["repeat-cycle", "announce"]) -> [String] {
        play + mode + Array(repeating: "volume-", count: 5) + Array(repeating: "volume+", count: 5)
            + Array(repeating: "seek+10", count: repeats) + ["next", "loop", "loop", "loop-clear", "stop"]
    }

    /// `expectedActions` for the presses `run` shows.
    static func expectedActions(repeats: Int, for run: MonitorRun) -> [String] {
        expectedActions(repeats: repeats, play: run.pressActions(button: "play", short: "play-pause", long: "announce"),
                        mode: run.pressActions(button: "mode", short: "repeat-cycle", long: "announce"))
    }

    @Test func libgpiodV1MonitorDrivesARealPlayer() async throws {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("fermata").path
        try #require(FileManager.default.isExecutableFile(atPath: binary), "`swift test` builds \(binary)")
        let out = try KernelLab.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: out) }
        try KernelLab.writeSilence(out + "/a.wav", seconds: 90)
        try KernelLab.writeSilence(out + "/b.wav", seconds: 90)
        let run = await KernelLab.runScenario(share: out, command: [
            KernelLab.guest + "/controls-scenario.sh", out, KernelLab.boards, binary, "gpio", "monitor",
            out + "/a.wav", out + "/b.wav",
        ])
        let transcript = Transcript(folder: out)
        try #require(run.status == 0, "kernel lab: \(run.status)\n\(run.output)\n\(run.errors)\n\(transcript.all)")
        #expect(transcript.pi.header.contains("libgpiod 1.6") && transcript.pi.header.contains("v1 API"))
        checkScenario(transcript)

        // The player's state after each action (v1 build: `fermata gpio monitor FILES` plays them).
        let states = transcript.pi.states
        let repeats = transcript.pi.actions.filter { $0 == "seek+10" }.count
        let expected = Self.expectedActions(repeats: repeats, for: transcript.pi)
        try #require(states.count == expected.count, "\(transcript.pi.text)")
        if expected[0] == "play-pause" && expected[1] == "play-pause" {
            #expect(states[0]["state"] == "paused" && states[1]["state"] == "playing")
        }
        #expect(states[2]["repeat"] == (expected[2] == "repeat-cycle" ? "queue" : "off"), "\(expected)")
        let ccw = transcript.pi.amounts(prefix: "volume-"), cw = transcript.pi.amounts(prefix: "volume+")
        #expect(Int(states[8]["volume"] ?? "") == 100 - ccw.reduce(0, +))
        #expect(Int(states[13]["volume"] ?? "") == min(100, 100 - ccw.reduce(0, +) + cw.reduce(0, +)))
        let next = 14 + repeats
        let elapsed = Double(states[next - 1]["elapsed"] ?? "") ?? 0
        // How many of the seeks were heard by then depends on how much CPU the emulated machine got (the seek itself
        // is tested sample-exact elsewhere): at least the first one.
        #expect(elapsed > 10, "\(repeats) seeks of +10 s: \(states[next - 1])")
        #expect(states[next + 1]["entry"] == "2", "next, heard by the time of the following press")
        // Each play-pause flips the playing queue. A starved VM can stretch one of the two play taps past the long
        // press (announce, judged above by the kernel's times): the player is then paused from there on, A and B are
        // pressed at the same paused position, and B is refused (a loop needs B after A) while A stays set. A
        // CI run showed exactly that ("A=0", "A=0", "none" at entry 2, paused), once in seven runs.
        let playing = expected.prefix(2).filter { $0 == "play-pause" }.count % 2 == 0
        #expect(states[next]["state"] == (playing ? "playing" : "paused"), "\(expected): \(transcript.pi.text)")
        let loops = "loop A, B, clear: \(states[next + 1]) \(states[next + 2]) \(states[next + 3])\n\(transcript.pi.text)"
        if playing {
            #expect(states[next + 2]["loop"]?.contains("..<") == true && states[next + 3]["loop"] == "none", "\(loops)")
        } else {
            #expect(states[next + 1]["loop"]?.hasPrefix("A=") == true && states[next + 2]["loop"] == states[next + 1]["loop"]
                        && states[next + 3]["loop"] == "none", "\(loops)")
        }
        #expect(states[next + 4]["state"] == "stopped")
    }

    @Test func libgpiodV2BuildOnTheSameScenario() async throws {
        let build = await KernelLab.run([KernelLab.repository.path + "/Tests/ControlsKernelTests/build-gpiod-v2.sh"])
        try #require(build.status == 0, "build-gpiod-v2.sh failed:\n\(build.errors.suffix(3000))")
        let binary = build.output.split(separator: "\n").last.map(String.init) ?? ""
        let out = try KernelLab.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = await KernelLab.runScenario(share: out, command: [
            KernelLab.guest + "/controls-scenario.sh", out, KernelLab.boards, binary, "monitor", "--duration", "120",
        ])
        let transcript = Transcript(folder: out)
        try #require(run.status == 0, "kernel lab: \(run.status)\n\(run.output)\n\(run.errors)\n\(transcript.all)")
        #expect(transcript.pi.header.contains("libgpiod 2.") && transcript.pi.header.contains("v2 API"))
        #expect(transcript.pi.header.contains("debounce 30 ms in the kernel"), "the scenario's override: \(transcript.pi.header)")
        checkScenario(transcript)
    }

    /// The real daemon: fermatad with the Raspberry Pi profile loaded through its configuration (`[controls] board =
    /// "…/rpi-4.toml"`), the same driver, and the player's state read through MPD (`mpc status`) after each step.
    @Test func realDaemonThroughMPD() async throws {
        let fermatad = KernelLab.builtFermatad
        try #require(FileManager.default.isExecutableFile(atPath: fermatad), "`swift test` builds \(fermatad)")
        let out = try KernelLab.folderWithTwoSilentSongs()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = await KernelLab.runScenario(share: out, command: [
            KernelLab.guest + "/controls-scenario.sh", out, KernelLab.boards, "daemon", fermatad,
        ])
        let log = (try? String(contentsOfFile: out + "/daemon.log", encoding: .utf8)) ?? ""
        let drive = (try? String(contentsOfFile: out + "/drive.log", encoding: .utf8)) ?? ""
        try #require(run.status == 0, "kernel lab: \(run.status)\n\(run.output)\n\(run.errors)\n\(log)")
        #expect(log.contains("controls: 7 of 8 lines ready") || log.contains("lines ready"), "\(log)")
        func status(after step: String) -> String {
            guard let start = drive.range(of: "status after \(step):\n") else { return "" }
            return drive[start.upperBound...].split(separator: "\n").prefix { $0.first?.isNumber != true }
                .joined(separator: "\n")
        }
        #expect(status(after: "double-tap play").contains("[playing]"), "\(drive)")
        #expect(status(after: "tap mode").contains("repeat: on"), "\(drive)")
        // How far a spin turns depends on its speed (acceleration), which an emulated CPU under load does not keep
        // the same both ways; the exact amounts are checked against the kernel's timestamps in the monitor test.
        func volume(after step: String) -> Int? {
            guard let line = status(after: step).split(separator: "\n").first(where: { $0.hasPrefix("volume:") }),
                  let percent = line.split(separator: "%").first?.dropFirst("volume:".count) else { return nil }
            return Int(percent.trimmingCharacters(in: .whitespaces))
        }
        let lowered = try #require(volume(after: "spin counterclockwise"), "\(drive)")
        let raised = try #require(volume(after: "spin clockwise"), "\(drive)")
        #expect(lowered < 100 && raised > lowered && raised <= 100, "\(drive)")
        #expect(status(after: "tap next").contains("#2/2"), "\(drive)")
        #expect(!status(after: "chord next+previous").contains("[playing]"), "\(drive)")
        // Play held past the 3 s hold time: the shutdown action (turned on in the scenario's configuration) asks
        // for a power-off by creating the request file the fermata-poweroff.path unit watches.
        let request = try? String(contentsOfFile: out + "/poweroff-request", encoding: .utf8)
        #expect(request?.contains("requested (controls: shutdown held)") == true, "\(log)")
        #expect(log.contains("shutdown held: wrote \(out)/poweroff-request"), "\(log)")
    }

    /// The PLAY button on a stopped queue (issue 13): with `--resume off` fermatad comes up stopped, and a press of
    /// PLAY must start the queue (before the fix it only flipped the pause flag, and nothing played). Twice over one
    /// state folder (guest/play-button-scenario.sh): a queue added over the protocol, started by PLAY, stopped by the
    /// next+previous chord, started again by PLAY; then, after a restart, the saved queue started by PLAY. The driver
    /// waits for each state (up to 30 s) instead of sleeping, and records how long it took.
    @Test func realDaemonPlayButtonStartsAStoppedQueue() async throws {
        let fermatad = KernelLab.builtFermatad
        try #require(FileManager.default.isExecutableFile(atPath: fermatad), "`swift test` builds \(fermatad)")
        let out = try KernelLab.folderWithTwoSilentSongs()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let started = Date()
        let run = await KernelLab.runScenario(share: out, command: [
            KernelLab.guest + "/play-button-scenario.sh", out, KernelLab.boards, fermatad,
        ])
        let read = { (name: String) in (try? String(contentsOfFile: "\(out)/\(name)", encoding: .utf8)) ?? "" }
        let logs = "daemon1.log:\n\(read("daemon1.log"))\ndaemon2.log:\n\(read("daemon2.log"))"
        let (first, second) = (read("drive1.log"), read("drive2.log"))
        print("play button scenario: \(String(format: "%.1f", Date().timeIntervalSince(started))) s in the lab; "
            + "waits: \(Self.waits(first) + Self.waits(second))")
        try #require(run.status == 0, "kernel lab: \(run.status)\n\(run.output)\n\(run.errors)\n\(logs)")
        func status(_ drive: String, after step: String) -> String {
            guard let start = drive.range(of: "status after \(step) (") else { return "" }
            return drive[start.upperBound...].split(separator: "\n").dropFirst().prefix { $0.first?.isNumber != true }
                .joined(separator: "\n")
        }
        let queued = status(first, after: "queued")
        #expect(queued.contains("b.wav") && !queued.contains("[playing]"), "\(first)")
        #expect(status(first, after: "tap-play").contains("[playing] #1/2"),
                "PLAY on the stopped queue\n\(first)\n\(logs)")
        #expect(!status(first, after: "chord-stop").contains("[playing]"), "\(first)")
        #expect(status(first, after: "tap-play-again").contains("[playing]"), "PLAY after the chord\n\(first)\n\(logs)")
        let restored = status(second, after: "queued")
        #expect(restored.contains("b.wav") && !restored.contains("[playing]") && !restored.contains("[paused]"),
                "--resume off: the saved queue, stopped\n\(second)\n\(logs)")
        #expect(status(second, after: "tap-play").contains("[playing]"), "PLAY on the saved queue\n\(second)\n\(logs)")
    }

    /// The driver's "(N.NN s)" waits, in step order.
    static func waits(_ drive: String) -> [String] {
        drive.split(separator: "\n").filter { $0.hasPrefix("status after ") }
            .map { String($0.dropFirst("status after ".count).dropLast()) }
    }

    /// What both builds must show: the exact actions, and one clear log line per unavailable control.
    func checkScenario(_ t: Transcript) {
        // The hold is timed by a Python sleep in an emulated machine: count the repeats the kernel's timestamps
        // call for (400 ms, then every 200 ms) rather than trusting the sleep; the driver aims at exactly 4.
        let held = t.pi.heldMilliseconds(button: "next")
        let repeats = held.map { ms in (0...20).filter { 400 + 200 * $0 < ms }.count } ?? 4
        #expect(repeats >= 1, "next was held \(held ?? -1) ms (the driver aims at 1100)")
        #expect(t.pi.actions == Self.expectedActions(repeats: repeats, for: t.pi), "\(t.pi.text)\n\(t.driveLog)")
        #expect(t.pi.amounts(prefix: "volume-").count == 5 && t.pi.amounts(prefix: "volume+").count == 5)
        let piLog = t.pi.errors
        #expect(piLog.contains("controls: no line named GPIO99 on any GPIO chip"), "\(piLog)")
        #expect(piLog.contains("; button ghost is off"))
        #expect(piLog.contains("GPIO27 (gpiochip0 [pinctrl-bcm2711] line 8) is already in use by \"gpioset\"; "
            + "button push is off"), "\(piLog)")
        #expect(piLog.contains("controls: 7 of 9 lines ready"), "\(piLog)")
        let missing = t.missing.errors.split(separator: "\n").filter { $0.contains("1c20800.pinctrl") }
        #expect(missing.count == 1, "one line for the missing chip: \(t.missing.errors)")
        #expect(missing.first?.contains("button play, button next, button previous, button loop, button mode") == true)
        // The shell holds play, then mode, for 150 ms each; a starved VM can stretch either past the 600 ms long press,
        // and then the long-press action (announce, for both) is the right answer: judge each by the kernel's
        // timestamps, as for the hold above (a loaded CI run saw play held long enough to announce).
        let playHeld = t.allwinner.heldMilliseconds(button: "play") ?? 150
        let modeHeld = t.allwinner.heldMilliseconds(button: "mode") ?? 150
        #expect(t.allwinner.actions == [playHeld < 600 ? "play-pause" : "announce",
                                        modeHeld < 600 ? "repeat-cycle" : "announce"],
                "play held \(playHeld) ms, mode held \(modeHeld) ms\n\(t.allwinner.text)")
        #expect(t.allwinner.errors.contains("controls: 8 of 8 lines ready"), "\(t.allwinner.errors)")
    }
}

/// The files a scenario run left in its folder.
struct Transcript {
    let pi: MonitorRun
    let missing: MonitorRun
    let allwinner: MonitorRun
    let driveLog: String

    init(folder: String) {
        pi = MonitorRun(folder: folder, name: "pi")
        missing = MonitorRun(folder: folder, name: "allwinner-missing")
        allwinner = MonitorRun(folder: folder, name: "allwinner")
        driveLog = (try? String(contentsOfFile: folder + "/drive.log", encoding: .utf8)) ?? ""
    }

    var all: String {
        [pi, missing, allwinner].map { "== \($0.name)\n\($0.text)\n\($0.errors)" }.joined(separator: "\n")
    }
}

/// One monitor's output (stdout lines "SECONDS  KIND  DETAILS") and log (stderr).
struct MonitorRun {
    let name: String
    let text: String
    let errors: String

    init(folder: String, name: String) {
        self.name = name
        text = (try? String(contentsOfFile: "\(folder)/\(name).out", encoding: .utf8)) ?? ""
        errors = (try? String(contentsOfFile: "\(folder)/\(name).err", encoding: .utf8)) ?? ""
    }

    var lines: [[Substring]] { text.split(separator: "\n").map { $0.split(separator: " ") } }
    var header: String { text.split(separator: "\n").first.map(String.init) ?? "" }

    /// Action names, with volume amounts folded to "volume+" / "volume-".
    var actions: [String] {
        lines.filter { $0.count > 2 && $0[1] == "action" }.map { words in
            let action = String(words[2])
            return action.hasPrefix("volume") ? String(action.prefix(7)) : action
        }
    }

    func amounts(prefix: String) -> [Int] {
        lines.filter { $0.count > 2 && $0[1] == "action" && $0[2].hasPrefix(prefix) }
            .compactMap { Int($0[2].dropFirst(prefix.count)) }
    }

    /// How long `button` was down the first time (from the monitor's debounced "button NAME down/up" lines).
    /// How long each press of `button` was held (down to up, by the kernel's timestamps), in order.
    func presses(button: String) -> [Int] {
        var down: Double?
        var held: [Int] = []
        for row in lines where row.count > 3 && row[1] == "button" && row[2] == button {
            guard let t = Double(row[0]) else { continue }
            if row[3] == "down" { down = t }
            if row[3] == "up", let start = down {
                held.append(Int(((t - start) * 1000).rounded()))
                down = nil
            }
        }
        return held
    }

    /// Each press of `button` as its action: `short` under the 600 ms long press, else `long`.
    func pressActions(button: String, short: String, long: String) -> [String] {
        presses(button: button).map { $0 < 600 ? short : long }
    }

    func heldMilliseconds(button: String) -> Int? {
        let rows = lines.filter { $0.count > 3 && $0[1] == "button" && $0[2] == button }
        guard let down = rows.first(where: { $0[3] == "down" }).flatMap({ Double($0[0]) }),
              let up = rows.first(where: { $0[3] == "up" }).flatMap({ Double($0[0]) }) else { return nil }
        return Int(((up - down) * 1000).rounded())
    }

    /// "player STATE entry E volume V repeat R loop L elapsed S" lines as dictionaries.
    var states: [[String: String]] {
        lines.filter { $0.count > 2 && $0[1] == "player" }.map { words in
            var state = ["state": String(words[2])]
            for i in stride(from: 3, to: words.count - 1, by: 2) { state[String(words[i])] = String(words[i + 1]) }
            return state
        }
    }
}
