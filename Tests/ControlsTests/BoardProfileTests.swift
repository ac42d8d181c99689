@testable import Controls
import FermataConfig
import Foundation
import Testing

@Suite struct BoardProfileTests {
    static let allBoards = ["rpi-zero-2-w", "rpi-3b-plus", "rpi-4", "rpi-5", "pirate-audio", "generic-40pin",
                            "orangepi-pc"]

    @Test(arguments: allBoards)
    func everyProfileParsesKeepsAudioPinsFreeAndNamesADevice(_ name: String) throws {
        let profile = try Replay.profile(name)
        #expect(profile.id == name)
        #expect(!profile.name.isEmpty && !profile.alsaDevice.isEmpty)
        #expect(profile.warnings.isEmpty, "a default pin map uses a reserved line: \(profile.warnings)")
        #expect(!profile.controls.buttons.isEmpty)
        let used = profile.controls.lines.map(\.line)
        let audio = name == "orangepi-pc" ? (18...21).map { LineRef.chip("1c20800.pinctrl", offset: UInt32($0)) }
            : ["GPIO2", "GPIO3", "GPIO18", "GPIO19", "GPIO20", "GPIO21"].map(LineRef.name)
        #expect(Set(used).isDisjoint(with: audio))
    }

    @Test func everyBoardFileIsListedAndNoneIsLeftOut() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Replay.boards).filter { $0.hasSuffix(".toml") }
        #expect(Set(files.map { String($0.dropLast(5)) }) == Set(Self.allBoards))
    }

    @Test func piProfileKeymap() throws {
        let controls = try Replay.profile("rpi-4").controls
        let play = try #require(controls.buttons.first { $0.name == "play" })
        #expect(play.line == .name("GPIO17"))
        #expect(play.actions == [.press: .togglePause, .longPress: .announce])
        #expect(play.settings == LineSettings(bias: .pullUp, activeLow: true))
        let encoder = try #require(controls.encoders.first)
        #expect(encoder.a == .name("GPIO23") && encoder.b == .name("GPIO24") && encoder.transitionsPerDetent == 4)
        #expect(controls.chords == [ChordConfig(name: "stop", buttons: ["next", "previous"], action: .stop)])
        #expect(!controls.buttons.contains { $0.actions.values.contains(.shutdown) }, "shutdown is off by default")
    }

    @Test func allwinnerProfileAddressesLinesByChipLabelAndOffset() throws {
        let controls = try Replay.profile("orangepi-pc").controls
        #expect(controls.buttons.first { $0.name == "mode" }?.line == .chip("1c20800.pinctrl", offset: 110))
        #expect(controls.encoders.first?.a == .chip("1c20800.pinctrl", offset: 1))
    }

    @Test func detectPicksTheLongestMatchingModelPrefix() {
        #expect(BoardProfile.detect(in: Replay.boards, model: "Raspberry Pi 4 Model B Rev 1.5\0")?
            .hasSuffix("/rpi-4.toml") == true)
        #expect(BoardProfile.detect(in: Replay.boards, model: "Raspberry Pi 5 Model B Rev 1.0")?
            .hasSuffix("/rpi-5.toml") == true)
        #expect(BoardProfile.detect(in: Replay.boards, model: "Xunlong Orange Pi PC Plus")?
            .hasSuffix("/orangepi-pc.toml") == true)
        #expect(BoardProfile.detect(in: Replay.boards, model: "QEMU Virtual Machine") == nil)
    }

    /// The owner's profile in /etc/fermata/boards wins over the package's, for every tool: `fermata gpio-monitor`
    /// looked only in /usr/share/fermata/boards and ./boards, so a wiring check showed the package's pins while the
    /// daemon used the owner's.
    @Test func theOwnersProfileDirectoryComesFirstForEveryLookup() throws {
        let owner = FileManager.default.temporaryDirectory.appendingPathComponent("fermata-boards-\(UInt64.random(in: 0...UInt64.max))").path
        try FileManager.default.createDirectory(atPath: owner, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: owner) }
        let packaged = try String(contentsOfFile: Replay.boards + "/rpi-4.toml", encoding: .utf8)
        try packaged.write(toFile: owner + "/my-pi.toml", atomically: true, encoding: .utf8)
        let model = "Raspberry Pi 4 Model B Rev 1.5"
        #expect(BoardProfile.detect(inFirstOf: [owner, Replay.boards], model: model) == owner + "/my-pi.toml")
        #expect(BoardProfile.detect(inFirstOf: ["/nonexistent", Replay.boards], model: model) == Replay.boards + "/rpi-4.toml")
        #expect(BoardProfile.directories.first == "/etc/fermata/boards", "the default search puts the owner's first")
    }

    @Test func theMachineNameLosesTheNULsAndBlanksAroundIt() {
        #expect(BoardProfile.machineName("Raspberry Pi 4 Model B Rev 1.5\0") == "Raspberry Pi 4 Model B Rev 1.5")
        #expect(BoardProfile.machineName(" \nXunlong Orange Pi PC Plus\0\0\n") == "Xunlong Orange Pi PC Plus")
        #expect(BoardProfile.machineName("\0\0") == "" && BoardProfile.machineName("linux,dummy-virt") == "linux,dummy-virt")
        #expect(BoardProfile.modelFile.hasPrefix("/sys/"), "the unit's ProcSubset=pid hides /proc/device-tree")
    }

    @Test func boardKeyNamesTheProfileFile() throws {
        #expect(BoardProfile.file(for: "rpi-5", in: ["/nonexistent", Replay.boards]) == Replay.boards + "/rpi-5.toml")
        #expect(BoardProfile.file(for: Replay.boards + "/rpi-4.toml") == Replay.boards + "/rpi-4.toml")
        #expect(BoardProfile.file(for: "no-such-board", in: [Replay.boards]) == nil)
        // The daemon's `[controls] board` may come along with the user's overrides.
        let profile = try Replay.profile("rpi-4", overrides: "[controls]\nboard = \"rpi-4\"")
        #expect(profile.controls.buttons.count == 6)
    }

    @Test func userOverridesWinKeyByKey() throws {
        let profile = try Replay.profile("rpi-4", overrides: """
            [controls]
            debounce_ms = 5
            [button-play]
            hold = "shutdown"
            [button-loop]
            enabled = false
            [encoder-volume]
            transitions_per_detent = 2
            invert = true
            [button-extra]
            line = "GPIO18"
            press = "tempo+5"
            """)
        let c = profile.controls
        #expect(c.debounceMs == 5)
        #expect(c.buttons.first { $0.name == "play" }?.actions[.hold] == .shutdown)
        #expect(!c.buttons.contains { $0.name == "loop" })
        #expect(c.encoders[0].transitionsPerDetent == 2 && c.encoders[0].inverted)
        #expect(profile.warnings
            == ["button extra uses GPIO18, which Raspberry Pi 4 Model B keeps free for audio or HATs"])
    }

    @Test(arguments: [
        ("[controls]\ndebounce_ms = 80", "x.toml:2: controls.debounce_ms: must be 0–50"),
        ("[button-a]\nline = \"GPIO5\"\npress = \"jump\"", "x.toml:3: button-a.press: unknown action 'jump'"),
        ("[button-a]\nline = \"GPIO5\"\ncolour = \"red\"", "x.toml:3: button-a.colour: unknown key"),
        ("[knob-a]\nline = \"GPIO5\"", "x.toml:2: [knob-a]: unknown section"),
        ("[button-a]\npress = \"next\"", "x.toml:2: [button-a]: missing 'line'"),
        ("[button-a]\nline = 5", "x.toml:2: button-a.line: a bare offset needs `chip` in [controls]"),
        ("[encoder-e]\na = \"A\"\nb = \"B\"\ntransitions_per_detent = 3",
         "x.toml:4: encoder-e.transitions_per_detent: must be 1, 2 or 4"),
        ("[button-a]\nline = \"X\"\nlong = \"next\"\nrepeat = \"seek+5\"",
         "x.toml:4: button-a.repeat: a button with hold-repeat cannot also have a long press or hold"),
        ("[button-a]\nline = \"X\"\n[button-b]\nline = \"X\"", "x.toml:4: button b and button a both use X"),
        ("[button-a]\nline = \"X\"\n[chord-c]\nbuttons = [\"a\", \"z\"]\naction = \"stop\"",
         "x.toml:4: chord-c.buttons: no enabled button called 'z'"),
        ("[controls]\ndebounce_ms = \"10\"", "x.toml:2: controls.debounce_ms: expected a whole number"),
        ("[controls]\nbias = \"floating\"", "x.toml:2: controls.bias: expected pull-up, pull-down, disabled or as-is"),
    ])
    func errorsNameTheFileLineAndKey(_ text: String, _ message: String) throws {
        #expect {
            try BoardProfile(entries: ProfileFile.parse(text, file: "x.toml"))
        } throws: { error in
            let description = "\(error)"
            return description.hasPrefix(message) || { print("got: \(description)"); return false }()
        }
    }

    @Test func parserReadsTheSubset() throws {
        let entries = try ProfileFile.parse("""
            # comment
            [board]
            name = "Pi \\"4\\""  # trailing comment
            model = ["A", 'B']
            [controls]
            debounce_ms = 1_0
            active_low = false
            """, file: "p.toml")
        #expect(entries.map(\.value) == [.string("Pi \"4\""), .strings(["A", "B"]), .integer(10), .boolean(false)])
        #expect(entries.map(\.line) == [3, 4, 6, 7])
        #expect(throws: ConfigError.self) { try ProfileFile.parse("[a]\nx = 1\nx = 2", file: "p.toml") }
    }

    @Test func lineReferences() {
        #expect(LineRef(parsing: "GPIO17") == .name("GPIO17"))
        #expect(LineRef(parsing: "1c20800.pinctrl:75") == .chip("1c20800.pinctrl", offset: 75))
        #expect(LineRef(parsing: "/dev/gpiochip0:3") == .chip("/dev/gpiochip0", offset: 3))
        #expect(LineRef(parsing: "BTN:PLAY") == .name("BTN:PLAY"))
        #expect(LineRef(parsing: "") == nil)
    }

    @Test func actionNamesRoundTrip() {
        for text in ["play-pause", "play", "pause", "stop", "next", "previous", "seek+10", "seek-2.5", "volume+2",
                     "volume-5", "tempo+5", "tempo-5", "transpose+1", "transpose-0.5", "transpose+0.05", "repeat-cycle", "loop", "loop-a", "loop-b", "loop-clear",
                     "announce", "shutdown", "metronome", "tap-tempo", "section-next", "section-previous", "section-save",
                     "loop-last-8", "loop-last-2-bars", "trainer", "trainer-again"] {
            #expect(KeyAction(parsing: text)?.description == text)
        }
        #expect(KeyAction(parsing: "volume+0.5") == nil)
        #expect(KeyAction.metronome.controlAction(currentRepeat: .off) == .toggleMetronome)
        #expect(KeyAction.trainer.controlAction(currentRepeat: .off) == .toggleTrainer)
        #expect(KeyAction.trainerAgain.controlAction(currentRepeat: .off) == .trainerAgain)
        #expect(KeyAction(parsing: "transpose+0.5")?.controlAction(currentRepeat: .off) == .changeTranspose(by: 50))
        #expect(KeyAction(parsing: "transpose+13") == nil && KeyAction(parsing: "transpose1") == nil)
        #expect(KeyAction(parsing: "transpose+0") == nil && KeyAction(parsing: "transpose") == nil)
        #expect(KeyAction.transpose(cents: 100).scaled(by: 3) == .transpose(cents: 300))
        #expect(KeyAction(parsing: "seek") == nil)
        #expect(KeyAction.volume(2).scaled(by: 4) == .volume(8))
        #expect(KeyAction.next.scaled(by: 4) == .next)
        #expect(KeyAction.repeatCycle.controlAction(currentRepeat: .off) == .setRepeat(.queue))
        #expect(KeyAction.repeatCycle.controlAction(currentRepeat: .queue) == .setRepeat(.track))
        #expect(KeyAction.repeatCycle.controlAction(currentRepeat: .track) == .setRepeat(.off))
        #expect(KeyAction.tempo(percent: 5).controlAction(currentRepeat: .off) == .changeTempo(by: 5))
        #expect(KeyAction.announce.controlAction(currentRepeat: .off) == .announce(nil))
        // The PLAY button starts a stopped queue (the player's `playPause`), unlike the protocol's toggle.
        #expect(KeyAction.togglePause.controlAction(currentRepeat: .off) == .playPause)
    }

    /// `sleep-30` and `sleep-off`: the timers' actions (not the player's, so the service's extra handler gets them).
    @Test func sleepActions() {
        #expect(KeyAction(parsing: "sleep-30") == .sleep(minutes: 30))
        #expect(KeyAction(parsing: "sleep-1440") == .sleep(minutes: 1440))
        #expect(KeyAction(parsing: "sleep-off") == .sleepOff)
        for text in ["sleep-30", "sleep-1", "sleep-off"] { #expect(KeyAction(parsing: text)?.description == text) }
        for bad in ["sleep", "sleep-", "sleep-0", "sleep-1441", "sleep+30", "sleep-+30", "sleep--30", "sleep-30m", "sleep-99999",
                    "sleep-٣٠"] {
            #expect(KeyAction(parsing: bad) == nil, "\(bad)")
        }
        #expect(KeyAction.sleep(minutes: 30).controlAction(currentRepeat: .off) == nil)
        #expect(KeyAction.sleepOff.controlAction(currentRepeat: .off) == nil)
    }
}
