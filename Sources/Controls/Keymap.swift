/// The controls flattened for the engine: one entry per input line (which button or encoder contact it is, how to
/// request it), each button's gesture timing and actions, each encoder's decoder settings, the chords, and the input
/// devices (evdev) some lines are read from.
/// Built once from a `ControlsConfig`. A value; any thread.
public struct Keymap: Sendable, Equatable {
    /// What an input line is for.
    public enum Role: Sendable, Hashable {
        case button(Int)
        case encoderA(Int)
        case encoderB(Int)
        /// The relative axis (evdev `EV_REL`) of encoder N: steps, not levels.
        case steps(Int)
    }

    /// One input line to request.
    public struct Line: Sendable, Hashable {
        public var role: Role
        public var ref: LineRef
        public var settings: LineSettings
        /// Debounce wanted for this line in nanoseconds: the configured period for buttons, 0 for encoder contacts.
        public var debounce: UInt64
        /// "button play", "encoder volume A".
        public var owner: String
    }

    /// A button's gesture timing and the action of each gesture.
    public struct Button: Sendable, Equatable {
        public var name: String
        public var timing: GestureTiming
        public var actions: [Gesture: KeyAction]
    }

    /// An encoder's decoding settings and actions.
    public struct Encoder: Sendable, Equatable {
        public var name: String
        public var clockwise: KeyAction?
        public var counterClockwise: KeyAction?
        public var transitionsPerDetent: Int
        public var inverted: Bool
        public var accelerationWindow: UInt64
        public var maxMultiplier: Int
    }

    /// Two buttons (indexes into `buttons`) and their action.
    public struct Chord: Sendable, Equatable {
        public var name: String
        public var buttons: (Int, Int)
        public var action: KeyAction

        public static func == (l: Chord, r: Chord) -> Bool {
            l.name == r.name && l.buttons == r.buttons && l.action == r.action
        }
    }

    public var lines: [Line] = []
    public var buttons: [Button] = []
    public var encoders: [Encoder] = []
    public var chords: [Chord] = []
    public var debounce: UInt64
    /// The `[input-NAME]` devices; lines whose `ref` is `.evdev` name one of them.
    public var inputs: [InputDeviceConfig] = []
    /// Nanoseconds after an IR scancode's last frame at which its button counts as released.
    public var scancodeRelease: UInt64

    /// The indexes of the lines read from GPIO (every line that is not an evdev control).
    public var gpioLines: [Int] { lines.indices.filter { !lines[$0].ref.isEvdev } }

    /// Each evdev control of `input` (an `[input-NAME]` name) with its line index.
    public func bindings(of input: String) -> [(code: EvdevCode, line: Int)] {
        lines.indices.compactMap { index in
            guard case let .evdev(name, code) = lines[index].ref, name == input else { return nil }
            return (code, index)
        }
    }

    public init(_ config: ControlsConfig) {
        let ms: (Int) -> UInt64 = { UInt64($0) * 1_000_000 }
        debounce = ms(config.debounceMs)
        scancodeRelease = ms(config.scancodeReleaseMs)
        inputs = config.inputs
        let chordMembers = Set(config.chords.flatMap(\.buttons))
        for (index, button) in config.buttons.enumerated() {
            let a = button.actions
            var timing = GestureTiming()
            timing.longPress = a[.longPress] != nil ? ms(button.longPressMs ?? config.longPressMs) : nil
            timing.hold = a[.hold] != nil ? ms(button.holdMs ?? config.holdMs) : nil
            timing.repeatDelay = a[.repeat] != nil ? ms(button.repeatDelayMs ?? config.repeatDelayMs) : nil
            timing.repeatInterval = ms(button.repeatIntervalMs ?? config.repeatIntervalMs)
            timing.doubleWindow = a[.doublePress] != nil ? ms(config.doublePressMs) : nil
            timing.reportsRelease = a[.release] != nil
            let repeatDiffers = a[.repeat] != nil && a[.repeat] != a[.press]
            timing.pressOnDown = timing.longPress == nil && timing.hold == nil && timing.doubleWindow == nil
                && !chordMembers.contains(button.name) && !repeatDiffers
            buttons.append(Button(name: button.name, timing: timing, actions: a))
            // Keyboards, pedals and the kernel's gpio-keys debounce before evdev reports a key.
            lines.append(Line(role: .button(index), ref: button.line, settings: button.settings,
                              debounce: button.line.isEvdev ? 0 : debounce, owner: "button \(button.name)"))
        }
        for (index, encoder) in config.encoders.enumerated() {
            encoders.append(Encoder(name: encoder.name, clockwise: encoder.clockwise,
                                    counterClockwise: encoder.counterClockwise,
                                    transitionsPerDetent: encoder.transitionsPerDetent, inverted: encoder.inverted,
                                    accelerationWindow: ms(encoder.accelerationMs),
                                    maxMultiplier: encoder.maxMultiplier))
            if encoder.a.isEvdev {
                lines.append(Line(role: .steps(index), ref: encoder.a, settings: encoder.settings, debounce: 0,
                                  owner: "encoder \(encoder.name)"))
                continue
            }
            lines.append(Line(role: .encoderA(index), ref: encoder.a, settings: encoder.settings, debounce: 0,
                              owner: "encoder \(encoder.name) A"))
            lines.append(Line(role: .encoderB(index), ref: encoder.b, settings: encoder.settings, debounce: 0,
                              owner: "encoder \(encoder.name) B"))
        }
        for chord in config.chords {
            guard let first = config.buttons.firstIndex(where: { $0.name == chord.buttons[0] }),
                  let second = config.buttons.firstIndex(where: { $0.name == chord.buttons[1] }) else { continue }
            chords.append(Chord(name: chord.name, buttons: (first, second), action: chord.action))
        }
    }

    /// A one-line summary of a button's bindings, e.g. "press play-pause, long announce".
    public func describe(button index: Int) -> String {
        let parts = Gesture.allCases.compactMap { g in buttons[index].actions[g].map { "\(g.rawValue) \($0)" } }
        return parts.isEmpty ? "no actions" : parts.joined(separator: ", ")
    }
}
