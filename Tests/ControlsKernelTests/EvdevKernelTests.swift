import Foundation
import TestSupport
import Testing

/// Input devices through evdev on a real kernel: ../shared/kernel-lab makes a virtual USB foot pedal through
/// /dev/uinput (guest/evdev-scenario.py, raw ioctls) with the kernel's own autorepeat, and the real fermatad,
/// started before the pedal exists, takes it by name: one play/pause per tap, none added by autorepeat, nothing seen
/// by another reader while fermatad holds it, and working again within 1 s of being unplugged and plugged back.
@Suite(.serialized, .enabled("needs ../shared/kernel-lab (run-in-kernel.sh --check)") {
    try await onThread { KernelLab.available }
})
struct EvdevKernelTests {
    /// What a run of guest/evdev-scenario.py left: its results by key, fermatad's log, and both with the lab's
    /// output for failure messages.
    struct Scenario {
        var results: [String: [String]]
        var log: String
        var context: String
    }

    /// Runs `evdev-scenario.py OUT FERMATAD NAME` in the lab with two 90 s silent songs in OUT/music.
    func run(_ name: String) async throws -> Scenario {
        let fermatad = KernelLab.builtFermatad
        try #require(FileManager.default.isExecutableFile(atPath: fermatad), "`swift test` builds \(fermatad)")
        let out = try KernelLab.folderWithTwoSilentSongs()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = await KernelLab.runInKernel(["-s", out, "-t", "300", KernelLab.guest + "/evdev-scenario.py",
                                               out, fermatad, name])
        let log = (try? String(contentsOfFile: out + "/daemon.log", encoding: .utf8)) ?? ""
        let raw = (try? String(contentsOfFile: out + "/results", encoding: .utf8)) ?? ""
        let context = "results:\n\(raw)\nlog:\n\(log)\n\(run)"
        try #require(run.status == 0, "kernel lab: \(context)")
        print("evdev \(name) scenario:", raw.split(separator: "\n").joined(separator: "; "))
        return Scenario(results: KernelLab.results(out + "/results"), log: log, context: context)
    }

    @Test func realDaemonFootPedalThroughEvdev() async throws {
        let scenario = try await run("pedal")
        let (r, log, context) = (scenario.results, scenario.log, scenario.context)
        #expect(r["before"] == ["playing"], "\(context)")
        // The other reader's check can see events: on a device nobody grabs it reads them, and a 0.6 s hold shows
        // the kernel's autorepeat (250 ms, then every 33 ms), so the hold below is really repeated.
        #expect(Int(r["unheld_reader_bytes"]?.first ?? "") ?? 0 > 0, "\(context)")
        #expect(Int(r["unheld_reader_repeats"]?.first ?? "") ?? 0 >= 3, "\(context)")
        // Plugged in after start: each tap toggles once; a 1.5 s hold (about 40 kernel repeats) toggles once.
        for step in ["tap1", "tap2", "held", "after_reader_tap", "replugged"] {
            #expect(r[step].map { $0 != ["None"] } == true, "\(step) never reached its state\n\(context)")
        }
        for step in ["tap1_toggles", "tap2_toggles", "held_toggles", "replugged_toggles"] {
            #expect(r[step] == ["1"], "\(step): one player change per press\n\(context)")
        }
        // While fermatad holds the pedal, another reader of its node sees nothing.
        #expect(r["held_reader_bytes"] == ["0"], "\(context)")
        #expect(r["exit"] == ["0"], "\(context)")
        // Made again while fermatad runs: it has the pedal again within 1 s (the inotify watch, not a poll).
        let replugged = try #require(Double(r["replug_ready_after"]?.first ?? ""), "\(context)")
        #expect(replugged < 1.0, "\(context)")
        // One log line per change: waiting, plugged, unplugged, plugged again, unplugged for good — nothing else.
        let lines = log.split(separator: "\n").filter { $0.contains("controls: input pedal") }
        #expect(lines.count == 5, "\(lines.joined(separator: "\n"))")
        #expect(lines.first?.contains("not present; waiting") == true)
        #expect(lines.filter { $0.contains("ready, grabbed: KEY_B") }.count == 2, "\(lines)")
        #expect(lines.filter { $0.contains("unplugged") }.count == 2, "\(lines)")
        #expect(!log.contains("Fermata Test Other Keyboard"), "a device nobody configured is not logged\n\(log)")
    }

    /// An IR remote with no keymap (a raw scancode held for 1 s of repeat frames: one `next`), a knob (REL_DIAL
    /// steps: volume), and a card reader that registers as a keyboard and a mouse with the same ids: both nodes are
    /// taken once each and grabbed, and its Enter key works (bound to stop).
    @Test func realDaemonRemoteKnobAndReader() async throws {
        let scenario = try await run("devices")
        let (r, log, context) = (scenario.results, scenario.log, scenario.context)
        #expect(r["remote_ready"] == ["True"] && r["knob_ready"] == ["True"] && r["reader_ready"] == ["True"],
                "\(context)")
        #expect(r["remote_held"] == ["#2/2", "playing"], "one next for ten frames of one scancode\n\(context)")
        #expect(r["knob_down"] == ["volume:90%"], "five steps of volume-2 from 100\n\(context)")
        #expect(r["knob_up"] == ["volume:94%"], "one event of two steps\n\(context)")
        let nodes = r["reader_nodes"] ?? []
        #expect(nodes.count == 2 && nodes[0] != nodes[1], "\(context)")
        #expect(r["reader_enter"] == ["stopped"], "Enter on the reader's keyboard node: stop\n\(context)")
        #expect(r["reader_mouse_other_reader_bytes"] == ["0"] && r["reader_keyboard_other_reader_bytes"] == ["0"],
                "both nodes of the reader are grabbed\n\(context)")
        let reader = log.split(separator: "\n")
            .filter { $0.contains("controls: input reader: ") && $0.contains("ready, grabbed") }
        #expect(Set(nodes.map { node in reader.filter { $0.contains(node + " ") }.count }) == [1],
                "each node taken once\n\(reader)")
        #expect(r["exit"] == ["0"], "\(context)")
    }
}
