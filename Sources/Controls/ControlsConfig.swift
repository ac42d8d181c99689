/// Where an input line is: by name on whichever chip has it (`GPIO17`), or by chip (label, name or path) and offset
/// for boards whose lines have no names (`1c20800.pinctrl:75`), or a key, scancode or axis of an input device
/// (`[input-NAME]`, read through evdev). Chip numbers are never assumed. A value; any thread.
public enum LineRef: Sendable, Hashable, CustomStringConvertible {
    case name(String)
    case chip(String, offset: UInt32)
    /// A control of the `[input-NAME]` device `input`.
    case evdev(input: String, code: EvdevCode)

    /// `NAME`, or `CHIP:OFFSET` when the text after the last ':' is a decimal number.
    public init?(parsing text: String) {
        guard !text.isEmpty else { return nil }
        if let colon = text.lastIndex(of: ":"), let offset = UInt32(text[text.index(after: colon)...]) {
            let chip = String(text[..<colon])
            guard !chip.isEmpty else { return nil }
            self = .chip(chip, offset: offset)
        } else {
            self = .name(text)
        }
    }

    public var description: String {
        switch self {
        case let .name(name): name
        case let .chip(chip, offset): "\(chip):\(offset)"
        case let .evdev(input, code): "\(input) \(code)"
        }
    }

    /// Whether the line is read through evdev rather than GPIO.
    public var isEvdev: Bool {
        if case .evdev = self { return true }
        return false
    }
}

/// Electrical settings of an input line.
public struct LineSettings: Sendable, Hashable {
    /// The internal resistor the line gets (always set explicitly: reset pulls differ from pin to pin).
    public enum Bias: String, Sendable, Hashable, CaseIterable {
        case pullUp = "pull-up", pullDown = "pull-down", disabled, asIs = "as-is"
    }

    public var bias: Bias = .pullUp
    /// Pressed (or contact closed) reads as 1 when the line is pulled to ground: the usual wiring with a pull-up.
    public var activeLow = true

    public init(bias: Bias = .pullUp, activeLow: Bool = true) {
        self.bias = bias
        self.activeLow = activeLow
    }
}

/// One push button and the actions of its gestures.
public struct ButtonConfig: Sendable, Hashable {
    public var name: String
    public var line: LineRef
    public var settings = LineSettings()
    public var actions: [Gesture: KeyAction] = [:]
    /// Per-button timing overrides, milliseconds.
    public var longPressMs: Int?
    public var holdMs: Int?
    public var repeatDelayMs: Int?
    public var repeatIntervalMs: Int?

    public init(name: String, line: LineRef, actions: [Gesture: KeyAction] = [:]) {
        self.name = name
        self.line = line
        self.actions = actions
    }
}

/// A rotary encoder's two contacts and what a detent does. Its push switch is an ordinary `ButtonConfig`. An encoder
/// read through evdev (an `EV_REL` axis: the `rotary-encoder` overlay, a wheel) has `a == b == .evdev(...)`: each
/// step is a detent.
public struct EncoderConfig: Sendable, Hashable {
    public var name: String
    public var a: LineRef
    public var b: LineRef
    public var settings = LineSettings()
    public var clockwise: KeyAction?
    public var counterClockwise: KeyAction?
    /// Gray-code transitions per detent: 4 (most encoders, one full cycle), 2 or 1.
    public var transitionsPerDetent = 4
    /// Swap the directions (A and B wired the other way round).
    public var inverted = false
    /// Detents closer than this count several times (0: no acceleration).
    public var accelerationMs = 60
    public var maxMultiplier = 4

    public init(name: String, a: LineRef, b: LineRef, clockwise: KeyAction?, counterClockwise: KeyAction?) {
        self.name = name
        self.a = a
        self.b = b
        self.clockwise = clockwise
        self.counterClockwise = counterClockwise
    }
}

/// Two buttons pressed together.
public struct ChordConfig: Sendable, Hashable {
    public var name: String
    public var buttons: [String]
    public var action: KeyAction

    public init(name: String, buttons: [String], action: KeyAction) {
        self.name = name
        self.buttons = buttons
        self.action = action
    }
}

/// Everything the controls service needs: timing defaults, buttons, encoders and chords. Built by `BoardProfile`
/// from a board's profile and the user's overrides. A value; any thread.
public struct ControlsConfig: Sendable, Hashable {
    public var enabled = true
    /// Line consumer name shown by `gpioinfo`.
    public var consumer = "fermata"
    /// SCHED_FIFO priority of the GPIO thread (0: normal scheduling). Below the audio output thread's 40; the thread
    /// does microseconds of work per edge. Refused without CAP_SYS_NICE or LimitRTPRIO: it then runs normally.
    public var realtimePriority = 10
    /// 0–50 ms; kernel debounce on the v2 API, the same in user space on v1.
    public var debounceMs = 10
    public var longPressMs = 600
    /// The long hold for actions such as shutdown.
    public var holdMs = 3000
    public var doublePressMs = 300
    public var repeatDelayMs = 400
    public var repeatIntervalMs = 200
    public var buttons: [ButtonConfig] = []
    public var encoders: [EncoderConfig] = []
    public var chords: [ChordConfig] = []
    /// The `[input-NAME]` devices (evdev), by name.
    public var inputs: [InputDeviceConfig] = []
    /// 50–2000 ms: an IR remote's scancode counts as released this long after its last repeat frame.
    public var scancodeReleaseMs = 250

    public init() {}

    /// Every line the configuration uses, with who uses it (for reservation checks and messages).
    public var lines: [(owner: String, line: LineRef)] {
        buttons.map { ("button \($0.name)", $0.line) }
            + encoders.flatMap { [("encoder \($0.name) A", $0.a), ("encoder \($0.name) B", $0.b)] }
    }
}
