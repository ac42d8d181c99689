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
        #expect(r["keymap_remote_ready"] == ["True"], "\(context)")
        #expect(r["keymap_remote_held"] == ["True", "paused"], "a keymapped remote key held 1 s: one play-pause\n\(context)")
        #expect(r["keymap_remote_tap"] == ["True"], "\(context)")
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

    /// A USB card reader (`cards = true`): ids typed as a real reader types them (each key down and up about 4 ms
    /// apart, then Enter). From a stopped box with an empty queue, a card bound to the stored playlist Lullabies
    /// plays it under the card's own volume cap (40: `mpc volume 90` stays at 40); the same card again pauses, again
    /// plays; an unknown card changes nothing but is logged and listed by `cards`; a card typed on the keypad's digits
    /// with keypad Enter stops; `cardlearn` binds the unknown card, which then plays.
    @Test func realDaemonCardReader() async throws {
        let scenario = try await run("cards")
        let (r, log, context) = (scenario.results, scenario.log, scenario.context)
        print("card reader: Enter to playing in \(r["card_latency"]?.first ?? "?") s (polled through mpc)")
        #expect(r["before"] == ["stopped"] && r["before_queue"] == [], "stopped, empty queue\n\(context)")
        #expect(r["reader_ready"] == ["True"], "\(context)")
        #expect(r["card_state"] == ["playing"], "\(context)")
        #expect(r["card_queue"] == ["a.wav", "b.wav"], "the card's playlist replaced the queue\n\(context)")
        #expect(r["card_volume"] == ["volume:40%"], "70 capped by the card's volume_max\n\(context)")
        #expect(r["capped_volume"] == ["volume:40%"], "mpc volume 90 capped too\n\(context)")
        #expect(r["again_state"] == ["paused"], "the same card again: pause\n\(context)")
        #expect(r["again2_state"] == ["playing"], "and again: play\n\(context)")
        #expect(log.contains("cards: card 0001234567"), "\(context)")
        #expect(r["unknown_state"] == ["playing"], "an unknown card changes nothing\n\(context)")
        #expect(r["unknown_queue"] == ["a.wav", "b.wav"], "\(context)")
        #expect(r["unknown_logged"] == ["True"], "\(context)")
        #expect(r["unknown_listed"] == ["True"], "`cards` lists the unknown card\n\(context)")
        #expect(r["keypad_card_state"] == ["stopped"], "keypad digits and KEY_KPENTER: action:stop\n\(context)")
        #expect(r["learn_answer"] == ["OK"], "\(context)")
        #expect(r["learned_state"] == ["playing"], "the learned card plays\n\(context)")
        // The web remote's "learn a card" (issue 36): asked over the API, the next unknown card swiped is bound, the
        // event stream says so, the card is listed with its cap, and it then plays under that cap.
        #expect(r["web_learn_status"] == ["202"], "\(context)")
        #expect(r["web_learn_event"] == [#"{"id":"0000000777","known":true,"learned":"playlist:Lullabies"}"#],
                "\(context)")
        #expect(r["web_learn_listed"] == ["True"], "\(context)")
        #expect(r["web_learn_stopped"] == ["stopped"], "learning binds the card; it does not play it\n\(context)")
        #expect(r["web_learned_state"] == ["playing"] && r["web_learned_volume"] == ["volume:30%"], "\(context)")
        #expect(r["exit"] == ["0"], "\(context)")
    }

    /// A numeric keypad with a NumLock LED: KEY_KP6 (next) and KEY_KP4 (previous) work with NumLock off and on (the
    /// key pressed and the LED set on the device, as a console does), and KP6 held 1 s (the kernel's autorepeat) is
    /// one `next`: from the first of two songs a second one would stop the player.
    @Test func realDaemonKeypadWithNumLock() async throws {
        let scenario = try await run("keypad")
        let (r, context) = (scenario.results, scenario.context)
        #expect(r["before"] == ["playing"], "\(context)")
        #expect(r["keypad_ready"] == ["True"], "\(context)")
        #expect(r["numlock_off_led"] == ["0"] && r["numlock_on_led"] == ["1"], "the LED as set\n\(context)")
        #expect(r["numlock_off_next"] == ["#2/2"], "KP6 with NumLock off: next\n\(context)")
        #expect(r["numlock_on_previous"] == ["#1/2"], "KP4 with NumLock on: previous\n\(context)")
        #expect(r["numlock_on_next"] == ["#2/2"], "KP6 with NumLock on: next\n\(context)")
        #expect(r["held_from"] == ["#1/2"], "\(context)")
        #expect(r["held_next"] == ["#2/2"], "\(context)")
        #expect(r["held_position"] == ["#2/2", "playing"], "one next for a held KP6\n\(context)")
        #expect(r["input_list"] == ["True", "True"], "fermata input list names both devices\n\(context)")
        #expect(r["monitor_spare"] == ["True", "True", "True"], "fermata input monitor: down, repeat, up\n\(context)")
        #expect(r["monitor_keypad_lines"] == ["0"], "a device fermatad holds shows nothing to the monitor\n\(context)")
        #expect(r["doctor_keypad"] == ["True"], "fermata doctor names the keypad's node\n\(context)")
        #expect(r["exit"] == ["0"], "\(context)")
    }
}
