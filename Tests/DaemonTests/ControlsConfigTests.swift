import Controls
import Daemon
import FermataConfig
import Foundation
import Testing
import TestSupport

/// `[controls] board` and the user's controls sections in fermata.toml, resolved the way `fermatad` does at start.
@Suite struct ControlsConfigTests {
    static let boards = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("boards").path

    func resolve(_ text: String, model: String? = "QEMU Virtual Machine") throws -> (ControlsSetup, String) {
        let dir = try TemporaryDirectory()
        let path = dir.file("fermata.toml")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let config = try DaemonConfig.load(file: path, required: true)
        return (try ControlsSetup.resolve(config, directories: ["/nonexistent", Self.boards], model: model), path)
    }

    @Test func aNamedBoardWithOverridesKeyByKey() throws {
        let (setup, _) = try resolve("""
            [controls]
            board = "rpi-4"
            debounce_ms = 20
            [button-next]
            line = "GPIO26"
            """)
        let profile = try #require(setup.profile)
        #expect(profile.id == "rpi-4")
        #expect(profile.controls.debounceMs == 20)
        let next = try #require(profile.controls.buttons.first { $0.name == "next" })
        #expect(next.line == .name("GPIO26"))
        #expect(next.actions[.press] == .next, "keys not overridden keep the profile's value")
        #expect(profile.warnings.contains { $0.contains("GPIO26") }, "GPIO26 is reserved on the Pi 4: \(profile.warnings)")
    }

    @Test func autoPicksTheProfileByModelAndOffMeansNone() throws {
        let (pi, _) = try resolve("", model: "Raspberry Pi 5 Model B Rev 1.0")
        #expect(pi.profile?.id == "rpi-5")
        let (qemu, _) = try resolve("")
        #expect(qemu.profile == nil)
        #expect(qemu.note.contains("matches this machine \"QEMU Virtual Machine\""), "\(qemu.note)")
        let (off, _) = try resolve("[controls]\nboard = \"off\"\n[button-next]\nline = \"GPIO26\"\n",
                                   model: "Raspberry Pi 5 Model B Rev 1.0")
        #expect(off.profile == nil)
    }

    /// Input devices need no board: with `board = "off"` or no profile for the machine they run on the file alone.
    @Test func inputDevicesRunWithoutABoardProfile() throws {
        let pedal = "[input-pedal]\nid = \"3553:b001\"\n"
            + "[button-pedal]\ninput = \"pedal\"\nkey = \"KEY_B\"\npress = \"play-pause\"\n"
        for text in ["[controls]\nboard = \"off\"\n" + pedal, pedal] {
            let (setup, _) = try resolve(text)
            let profile = try #require(setup.profile, "\(setup.note)")
            #expect(setup.note.contains("no board profile") && setup.note.contains("input devices from"), "\(setup.note)")
            let wanted = InputDeviceConfig(name: "pedal", match: .id(vendor: 0x3553, product: 0xb001))
            #expect(profile.controls.inputs == [wanted])
            #expect(profile.controls.buttons.map(\.line) == [.evdev(input: "pedal", code: .key(48))])
        }
        // With a board, the pedal joins its buttons.
        let (pi, _) = try resolve(pedal, model: "Raspberry Pi 5 Model B Rev 1.0")
        #expect(pi.profile?.id == "rpi-5" && pi.profile?.controls.buttons.contains { $0.name == "pedal" } == true)
    }

    @Test func mistakesNameTheFileLineAndKey() throws {
        func failure(_ text: String) -> String {
            do { _ = try resolve(text); return "no error" } catch { return "\(error)" }
        }
        let unknownBoard = failure("\n[controls]\nboard = \"toaster\"\n")
        #expect(unknownBoard.hasSuffix("fermata.toml:3: controls.board: no board profile \"toaster\" (looked in /nonexistent, \(Self.boards))"),
                "\(unknownBoard)")
        let badAction = failure("[controls]\nboard = \"rpi-4\"\n[button-next]\npress = \"explode\"\n")
        #expect(badAction.contains("fermata.toml:4:") && badAction.contains("press"), "\(badAction)")
        let badDebounce = failure("[controls]\nboard = \"rpi-4\"\ndebounce_ms = 500\n")
        #expect(badDebounce.contains("fermata.toml:3:") && badDebounce.contains("debounce_ms"), "\(badDebounce)")
        // Sections that are not the controls' are still checked by the daemon's own table.
        let stray = failure("[controlz]\nboard = \"rpi-4\"\n")
        #expect(stray.contains("fermata.toml:2: controlz.board: unknown key"), "\(stray)")
    }
}
