@testable import Controls
import FermataConfig
import Foundation
import Testing

/// Input device profiles (`boards/inputs/*.toml`) named by `[input-NAME] profile = "…"`: every shipped profile
/// gives a working device with its controls, the user's own keys win, and a wrong name says where.
@Suite struct InputProfileTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("boards/inputs").path

    static func profile(_ text: String) throws -> BoardProfile {
        try BoardProfile(entries: InputProfile.expand(ProfileFile.parse(text, file: "fermata.toml"),
                                                      directories: [directory]))
    }

    @Test func everyShippedProfileMakesADeviceWithItsControls() throws {
        let names = InputProfile.available(in: [Self.directory]).map(\.name)
        #expect(names.count >= 5 && names.contains("pcsensor-footswitch") && names.contains("usb-rfid-reader"))
        for name in names {
            let profile = try Self.profile("[controls]\nboard = \"off\"\n[input-dev]\nprofile = \"\(name)\"\n")
            let inputs = profile.controls.inputs
            #expect(inputs.map(\.name) == ["dev"], "\(name)")
            let buttons = profile.controls.buttons.filter { $0.line.isEvdev }
            #expect(!buttons.isEmpty || inputs.first?.cards == true, "\(name): no controls and not a card reader")
            for button in buttons { #expect(button.name.hasPrefix("dev-"), "\(name): \(button.name)") }
        }
        #expect(InputProfile.available(in: [Self.directory]).allSatisfy { !$0.about.isEmpty }, "each says what it is")
    }

    @Test func theUsersOwnKeysWin() throws {
        let profile = try Self.profile("""
            [input-pedal]
            profile = "pcsensor-footswitch"
            name = "My Pedal"
            [button-pedal-pedal]
            press = "next"
            """)
        #expect(profile.controls.inputs.first?.match == .name("My Pedal"), "the user's match replaces the profile's")
        let button = try #require(profile.controls.buttons.first { $0.name == "pedal-pedal" })
        #expect(button.actions[.press] == .next)
        #expect(button.actions[.longPress] == .loopLast(seconds: 8), "the profile's other keys stay")
        let reader = try Self.profile("[input-r]\nprofile = \"usb-rfid-reader\"\n")
        #expect(reader.controls.inputs.first?.cards == true && reader.controls.inputs.first?.match == .id(vendor: 0xffff, product: 0x35))
    }

    @Test func aWrongProfileSaysWhere() {
        #expect(throws: ConfigError.self) { try Self.profile("[input-p]\nprofile = \"no-such-pedal\"\n") }
        do {
            _ = try Self.profile("\n[input-p]\nprofile = \"no-such-pedal\"\n")
        } catch {
            #expect("\(error)".hasPrefix("fermata.toml:3: input-p.profile: no input profile \"no-such-pedal\""),
                    "\(error)")
        }
        #expect(throws: ConfigError.self) { try Self.profile("[input-p]\nprofile = 3\n") }
    }
}
