@testable import Controls
import FermataConfig
import Testing

/// The evdev state machine with no device: recorded `input_event`s in, edges and steps out; and the same events
/// through a configured keymap and the gesture engine, down to the actions.
@Suite struct EvdevDecoderTests {
    let ms: UInt64 = 1_000_000
    static let (key, rel, msc, syn): (UInt16, UInt16, UInt16, UInt16) = (1, 2, 4, 0)
    static let pedal: UInt16 = 48  // KEY_B

    func decoder(_ bindings: [(code: EvdevCode, line: Int)] = [(.key(pedal), 0)]) -> EvdevDecoder {
        EvdevDecoder(bindings: bindings, scancodeRelease: 250 * ms)
    }

    @Test func pressAndReleaseAreOneEdgeEach() {
        var d = decoder()
        #expect(d.event(type: Self.key, code: Self.pedal, value: 1, at: 10 * ms) == [.level(line: 0, pressed: true, at: 10 * ms)])
        #expect(d.event(type: Self.syn, code: 0, value: 0, at: 10 * ms) == [])
        #expect(d.event(type: Self.key, code: Self.pedal, value: 0, at: 90 * ms) == [.level(line: 0, pressed: false, at: 90 * ms)])
    }

    @Test func autorepeatIsNeverAPress() {
        var d = decoder()
        _ = d.event(type: Self.key, code: Self.pedal, value: 1, at: 0)
        // The kernel's autorepeat: 250 ms delay, then every 33 ms.
        for n in 0..<30 {
            #expect(d.event(type: Self.key, code: Self.pedal, value: 2, at: (250 + 33 * UInt64(n)) * ms) == [])
        }
        #expect(d.event(type: Self.key, code: Self.pedal, value: 0, at: 2000 * ms).count == 1)
        // A repeat with no press before it (the device was grabbed while held) is nothing either.
        #expect(d.event(type: Self.key, code: Self.pedal, value: 2, at: 2100 * ms) == [])
        #expect(d.event(type: Self.key, code: Self.pedal, value: 0, at: 2200 * ms) == [])
    }

    @Test func unboundKeysAndTypesAreIgnored() {
        var d = decoder()
        #expect(d.event(type: Self.key, code: 30, value: 1, at: 0) == [])
        #expect(d.event(type: Self.rel, code: 8, value: 1, at: 0) == [])
        #expect(d.event(type: Self.msc, code: 4, value: 0x1234, at: 0) == [])
        #expect(d.event(type: 3, code: 0, value: 5, at: 0) == [])  // EV_ABS
    }

    @Test func relativeStepsKeepTheirSign() {
        var d = decoder([(.relative(8), 3)])
        #expect(d.event(type: Self.rel, code: 8, value: 1, at: 5) == [.steps(line: 3, count: 1, at: 5)])
        #expect(d.event(type: Self.rel, code: 8, value: -3, at: 6) == [.steps(line: 3, count: -3, at: 6)])
        #expect(d.event(type: Self.rel, code: 8, value: 0, at: 7) == [])
        #expect(d.event(type: Self.rel, code: 0, value: 4, at: 8) == [])  // REL_X is not bound
    }

    @Test func scancodeHeldWhileFramesRepeatAndReleasedAfterTheLast() {
        var d = decoder([(.scancode(0x40bf12), 1), (.scancode(0x40bf13), 2)])
        #expect(d.event(type: Self.msc, code: 4, value: 0x40bf12, at: 0) == [.level(line: 1, pressed: true, at: 0)])
        #expect(d.deadline == 250 * ms)
        // NEC repeat frames every 110 ms: still the same press.
        #expect(d.event(type: Self.msc, code: 4, value: 0x40bf12, at: 110 * ms) == [])
        #expect(d.event(type: Self.msc, code: 4, value: 0x40bf12, at: 220 * ms) == [])
        #expect(d.expire(now: 469 * ms) == [])
        #expect(d.expire(now: 500 * ms) == [.level(line: 1, pressed: false, at: 470 * ms)])
        #expect(d.deadline == nil)
        // Another code releases the first at once.
        _ = d.event(type: Self.msc, code: 4, value: 0x40bf12, at: 1000 * ms)
        #expect(d.event(type: Self.msc, code: 4, value: 0x40bf13, at: 1100 * ms)
            == [.level(line: 1, pressed: false, at: 1100 * ms), .level(line: 2, pressed: true, at: 1100 * ms)])
        // An event after the release time delivers the release first, stamped when it was due.
        #expect(d.event(type: Self.syn, code: 0, value: 0, at: 2000 * ms) == [.level(line: 2, pressed: false, at: 1350 * ms)])
    }

    @Test func droppedEventsAreResyncedFromTheKeyState() {
        var d = decoder([(.key(Self.pedal), 0), (.key(30), 1)])
        _ = d.event(type: Self.key, code: Self.pedal, value: 1, at: 0)
        #expect(d.event(type: Self.syn, code: 3, value: 0, at: 1) == [])  // SYN_DROPPED
        #expect(d.event(type: Self.key, code: Self.pedal, value: 0, at: 2) == [])  // half a packet: dropped
        #expect(d.event(type: Self.syn, code: 0, value: 0, at: 3) == [.resync])
        #expect(d.resync(keysDown: [30], at: 4) == [.level(line: 0, pressed: false, at: 4), .level(line: 1, pressed: true, at: 4)])
        #expect(d.event(type: Self.key, code: 30, value: 0, at: 5) == [.level(line: 1, pressed: false, at: 5)])
    }

    @Test func anUnpluggedDeviceReleasesWhatItHeld() {
        var d = decoder([(.key(Self.pedal), 0), (.scancode(7), 1)])
        _ = d.event(type: Self.key, code: Self.pedal, value: 1, at: 0)
        _ = d.event(type: Self.msc, code: 4, value: 7, at: 10)
        #expect(d.detach(at: 100) == [.level(line: 0, pressed: false, at: 100), .level(line: 1, pressed: false, at: 100)])
        #expect(d.detach(at: 200) == [])
    }

    @Test func keyNamesAxesAndScancodesParse() {
        #expect(EvdevCode.key(parsing: "KEY_B") == .key(48))
        #expect(EvdevCode.key(parsing: "KEY_PLAYPAUSE") == .key(164))
        #expect(EvdevCode.key(parsing: "BTN_0") == .key(256))
        #expect(EvdevCode.key(parsing: "30") == .key(30))
        #expect(EvdevCode.key(parsing: "0") == nil && EvdevCode.key(parsing: "768") == nil)
        #expect(EvdevCode.key(parsing: "KEY_NOSUCH") == nil)
        #expect(EvdevCode.axis(parsing: "REL_WHEEL") == .relative(8) && EvdevCode.axis(parsing: "16") == nil)
        #expect(EvdevCode.scancode(parsing: "0x40bf12") == .scancode(0x40bf12))
        #expect(EvdevCode.scancode(parsing: "77") == .scancode(77) && EvdevCode.scancode(parsing: "0xzz") == nil)
        #expect(EvdevCode.key(48).description == "KEY_B" && EvdevCode.scancode(255).description == "scancode 0xff")
        let names = EvdevCode.keyNames.map(\.0)
        #expect(Set(names).count == names.count)
    }

    @Test func devicesMatchByNameIdOrPhysicalPath() {
        let info = EvdevDeviceInfo(name: "PCsensor FootSwitch", phys: "usb-0000:00:14.0-2/input0", vendor: 0x3553,
                                   product: 0xb001)
        #expect(InputDeviceConfig(name: "p", match: .name("PCsensor FootSwitch")).matches(info))
        #expect(!InputDeviceConfig(name: "p", match: .name("PCsensor")).matches(info))
        #expect(InputDeviceConfig(name: "p", match: .id(parsing: "3553:B001")!).matches(info))
        #expect(InputDeviceConfig.Match.id(parsing: "3553") == nil && InputDeviceConfig.Match.id(parsing: "3553:b0012") == nil)
        #expect(InputDeviceConfig(name: "p", match: .phys("usb-0000:00:14.0-2/input0")).matches(info))
        #expect(info.description == "\"PCsensor FootSwitch\" 3553:b001 usb-0000:00:14.0-2/input0")
    }

    /// Pedals as musicians use them: hold-to-play (`press = "play"`, `release = "pause"`: playing exactly while the
    /// pedal is down, the kernel's autorepeat adding nothing), and a pedal whose tap sets A and whose long press is
    /// "Again!" (`loop-last-8`), told apart from the autorepeat of the held key; a card reader's keys are not keys.
    @Test func holdToPlayAndALongPressAgainPedal() throws {
        let text = """
            [controls]
            long_press_ms = 600
            [input-pedal]
            name = "AirTurn"
            [button-hold]
            input = "pedal"
            key = "KEY_PAGEDOWN"
            press = "play"
            release = "pause"
            [button-again]
            input = "pedal"
            key = "KEY_PAGEUP"
            press = "loop-a"
            long = "loop-last-8"
            """
        let profile = try BoardProfile(entries: ProfileFile.parse(text, file: "t.toml"))
        let keymap = Keymap(profile.controls)
        var d = EvdevDecoder(bindings: keymap.bindings(of: "pedal"), scancodeRelease: keymap.scancodeRelease)
        var engine = ControlEngine(keymap: keymap, userDebounce: true)
        var actions: [String] = []
        func feed(_ code: UInt16, _ value: Int32, _ time: UInt64) {
            actions += engine.advance(to: time * ms).compactMap { $0.action?.description }
            for output in d.event(type: 1, code: code, value: value, at: time * ms) {
                if case let .level(line, pressed, at) = output {
                    actions += engine.edge(line: line, level: pressed, at: at).compactMap { $0.action?.description }
                }
            }
        }
        let pageDown: UInt16 = 109, pageUp: UInt16 = 104
        // Held 2 s with the kernel's autorepeat: play on the way down, pause on the way up, nothing between.
        feed(pageDown, 1, 1000)
        for t in stride(from: 1250, to: 3000, by: 33) { feed(pageDown, 2, UInt64(t)) }
        #expect(actions == ["play"])
        feed(pageDown, 0, 3000)
        #expect(actions == ["play", "pause"])
        // A tap: set A. Held 1.5 s (autorepeat every 33 ms): one "Again!", no tap.
        feed(pageUp, 1, 4000)
        feed(pageUp, 0, 4100)
        feed(pageUp, 1, 5000)
        for t in stride(from: 5250, to: 6500, by: 33) { feed(pageUp, 2, UInt64(t)) }
        feed(pageUp, 0, 6500)
        #expect(actions == ["play", "pause", "loop-a", "loop-last-8"])
        #expect(KeyAction(parsing: "loop-last-8") == .loopLast(seconds: 8))
        #expect(KeyAction(parsing: "loop-last+8") == nil && KeyAction(parsing: "loop-last-601") == nil)
        #expect(KeyAction.loopLast(seconds: 8).controlAction(currentRepeat: .off) == .loopLast(seconds: 8))
    }

    /// The whole path without a device: configuration → keymap → decoder → engine → actions.
    @Test func aPedalThroughTheConfigurationAndTheGestureEngine() throws {
        let text = """
            [controls]
            long_press_ms = 600
            [input-pedal]
            name = "FootSwitch"
            [button-left]
            input = "pedal"
            key = "KEY_A"
            press = "play-pause"
            [button-right]
            input = "pedal"
            key = 48
            press = "next"
            long = "announce"
            [encoder-knob]
            input = "pedal"
            axis = "REL_DIAL"
            clockwise = "volume+2"
            counterclockwise = "volume-2"
            acceleration_ms = 0
            """
        let profile = try BoardProfile(entries: ProfileFile.parse(text, file: "t.toml"))
        let keymap = Keymap(profile.controls)
        #expect(keymap.gpioLines.isEmpty && keymap.inputs.map(\.name) == ["pedal"])
        var d = EvdevDecoder(bindings: keymap.bindings(of: "pedal"), scancodeRelease: keymap.scancodeRelease)
        var engine = ControlEngine(keymap: keymap, userDebounce: true)
        var actions: [String] = []
        func feed(_ type: UInt16, _ code: UInt16, _ value: Int32, _ time: UInt64) {
            for output in d.event(type: type, code: code, value: value, at: time * ms) {
                switch output {
                case let .level(line, pressed, at): actions += engine.edge(line: line, level: pressed, at: at)
                    .compactMap { $0.action?.description }
                case let .steps(line, count, at): actions += engine.steps(line: line, count, at: at)
                    .compactMap { $0.action?.description }
                case .resync: break
                }
            }
        }
        // Left held 1.5 s with autorepeat: one play-pause (no debounce delay: it fires on the way down).
        feed(Self.key, 30, 1, 1000)
        #expect(actions == ["play-pause"])
        for t in stride(from: 1250, to: 2500, by: 33) { feed(Self.key, 30, 2, UInt64(t)) }
        feed(Self.key, 30, 0, 2500)
        #expect(actions == ["play-pause"])
        // Right tapped (press on release), then held past the long press: announce once, autorepeat or not.
        feed(Self.key, 48, 1, 3000)
        feed(Self.key, 48, 0, 3100)
        feed(Self.key, 48, 1, 4000)
        for t in stride(from: 4250, to: 5000, by: 33) { feed(Self.key, 48, 2, UInt64(t)) }
        feed(Self.key, 48, 0, 5000)
        #expect(actions == ["play-pause", "next", "announce"])
        feed(Self.rel, 7, 1, 6000)
        feed(Self.rel, 7, -2, 7000)
        #expect(actions == ["play-pause", "next", "announce", "volume+2", "volume-4"])
    }

    @Test(arguments: [
        ("[input-p]\nname = \"x\"\nid = \"1:2\"", "t.toml:3: input-p.id: an input device is matched by one of name, id, phys"),
        ("[input-p]\nid = \"12345:1\"", "t.toml:2: input-p.id: expected vendor:product in hexadecimal"),
        ("[input-p]\nname = \"x\"\n[button-b]\ninput = \"q\"\nkey = \"KEY_B\"", "t.toml:4: button-b.input: no enabled [input-q]"),
        ("[input-p]\nname = \"x\"\n[button-b]\ninput = \"p\"\nkey = \"KEY_NOPE\"", "t.toml:5: button-b.key: expected a key name"),
        ("[input-p]\nname = \"x\"\n[button-b]\ninput = \"p\"\nkey = 768", "t.toml:5: button-b.key: expected a key name"),
        ("[input-p]\nname = \"x\"\n[encoder-e]\ninput = \"p\"\naxis = \"REL_NOPE\"", "t.toml:5: encoder-e.axis: expected an axis"),
        ("[controls]\nscancode_release_ms = 20", "t.toml:2: controls.scancode_release_ms: must be 50–2000"),
        ("[input-p]\nname = \"x\"\n[button-a]\ninput = \"p\"\nkey = 30\n[button-b]\ninput = \"p\"\nkey = \"KEY_A\"",
         "button b and button a both use p KEY_A"),
    ])
    func configurationErrorsNameTheLineAndKey(_ text: String, _ message: String) {
        #expect {
            _ = try BoardProfile(entries: ProfileFile.parse(text, file: "t.toml"))
        } throws: { error in
            "\(error)".contains(message) || { print("got: \(error)"); return false }()
        }
    }
}
