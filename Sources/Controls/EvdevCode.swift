/// What an evdev control is on its device: a key or button (`EV_KEY`, by code), a raw IR scancode (`EV_MSC`
/// `MSC_SCAN`, by number, for remotes with no kernel keymap), or a relative axis (`EV_REL`: the `rotary-encoder`
/// overlay, a wheel, a USB knob). A value; any thread.
public enum EvdevCode: Sendable, Hashable, CustomStringConvertible {
    case key(UInt16)
    case scancode(UInt32)
    case relative(UInt16)

    /// Key names from linux/input-event-codes.h as the configuration may write them (`KEY_B`, `BTN_0`,
    /// `KEY_PLAYPAUSE`); any other key is written as its number. Sorted by name (a test keeps it so).
    static let keyNames: [(String, UInt16)] = keyTable.sorted { $0.0 < $1.0 }
    /// Relative axis names (`REL_WHEEL`, `REL_DIAL`, ...).
    static let axisNames: [(String, UInt16)] = [
        ("REL_DIAL", 7), ("REL_HWHEEL", 6), ("REL_MISC", 9), ("REL_RX", 3), ("REL_RY", 4), ("REL_RZ", 5),
        ("REL_WHEEL", 8), ("REL_X", 0), ("REL_Y", 1), ("REL_Z", 2),
    ]
    /// The kernel's KEY_MAX: the highest key code.
    public static let keyMax: UInt16 = 0x2ff

    /// A key: a name of `keyNames` or a decimal code 1...KEY_MAX.
    public static func key(parsing text: String) -> EvdevCode? {
        if let code = UInt16(text), (1...keyMax).contains(code) { return .key(code) }
        return keyNames.first { $0.0 == text }.map { .key($0.1) }
    }

    /// A relative axis: a name of `axisNames` or a decimal code 0...15 (REL_MAX).
    public static func axis(parsing text: String) -> EvdevCode? {
        if let code = UInt16(text), code <= 15 { return .relative(code) }
        return axisNames.first { $0.0 == text }.map { .relative($0.1) }
    }

    /// A scancode: decimal, or hexadecimal with `0x` (as `ir-keytable` prints them).
    public static func scancode(parsing text: String) -> EvdevCode? {
        if text.hasPrefix("0x") || text.hasPrefix("0X") {
            return UInt32(text.dropFirst(2), radix: 16).map { .scancode($0) }
        }
        return UInt32(text).map { .scancode($0) }
    }

    public var description: String {
        switch self {
        case let .key(code): Self.keyNames.first { $0.1 == code }?.0 ?? "key \(code)"
        case let .scancode(value): "scancode 0x" + String(value, radix: 16)
        case let .relative(code): Self.axisNames.first { $0.1 == code }?.0 ?? "axis \(code)"
        }
    }
}

/// Generated from /usr/include/linux/input-event-codes.h (the keys pedals, remotes, keypads and media keys send).
private let keyTable: [(String, UInt16)] = [
    ("KEY_ESC", 1),
    ("KEY_1", 2),
    ("KEY_2", 3),
    ("KEY_3", 4),
    ("KEY_4", 5),
    ("KEY_5", 6),
    ("KEY_6", 7),
    ("KEY_7", 8),
    ("KEY_8", 9),
    ("KEY_9", 10),
    ("KEY_0", 11),
    ("KEY_MINUS", 12),
    ("KEY_EQUAL", 13),
    ("KEY_BACKSPACE", 14),
    ("KEY_TAB", 15),
    ("KEY_Q", 16),
    ("KEY_W", 17),
    ("KEY_E", 18),
    ("KEY_R", 19),
    ("KEY_T", 20),
    ("KEY_Y", 21),
    ("KEY_U", 22),
    ("KEY_I", 23),
    ("KEY_O", 24),
    ("KEY_P", 25),
    ("KEY_ENTER", 28),
    ("KEY_A", 30),
    ("KEY_S", 31),
    ("KEY_D", 32),
    ("KEY_F", 33),
    ("KEY_G", 34),
    ("KEY_H", 35),
    ("KEY_J", 36),
    ("KEY_K", 37),
    ("KEY_L", 38),
    ("KEY_Z", 44),
    ("KEY_X", 45),
    ("KEY_C", 46),
    ("KEY_V", 47),
    ("KEY_B", 48),
    ("KEY_N", 49),
    ("KEY_M", 50),
    ("KEY_SPACE", 57),
    ("KEY_F1", 59),
    ("KEY_F2", 60),
    ("KEY_F3", 61),
    ("KEY_F4", 62),
    ("KEY_F5", 63),
    ("KEY_F6", 64),
    ("KEY_F7", 65),
    ("KEY_F8", 66),
    ("KEY_F9", 67),
    ("KEY_F10", 68),
    ("KEY_F11", 87),
    ("KEY_F12", 88),
    ("KEY_NUMLOCK", 69),
    ("KEY_KP0", 82),
    ("KEY_KP1", 79),
    ("KEY_KP2", 80),
    ("KEY_KP3", 81),
    ("KEY_KP4", 75),
    ("KEY_KP5", 76),
    ("KEY_KP6", 77),
    ("KEY_KP7", 71),
    ("KEY_KP8", 72),
    ("KEY_KP9", 73),
    ("KEY_KPDOT", 83),
    ("KEY_KPENTER", 96),
    ("KEY_KPPLUS", 78),
    ("KEY_KPMINUS", 74),
    ("KEY_KPASTERISK", 55),
    ("KEY_KPSLASH", 98),
    ("KEY_HOME", 102),
    ("KEY_UP", 103),
    ("KEY_PAGEUP", 104),
    ("KEY_LEFT", 105),
    ("KEY_RIGHT", 106),
    ("KEY_END", 107),
    ("KEY_DOWN", 108),
    ("KEY_PAGEDOWN", 109),
    ("KEY_INSERT", 110),
    ("KEY_DELETE", 111),
    ("KEY_MUTE", 113),
    ("KEY_VOLUMEDOWN", 114),
    ("KEY_VOLUMEUP", 115),
    ("KEY_POWER", 116),
    ("KEY_PAUSE", 119),
    ("KEY_STOP", 128),
    ("KEY_MENU", 139),
    ("KEY_BACK", 158),
    ("KEY_FORWARD", 159),
    ("KEY_NEXTSONG", 163),
    ("KEY_PLAYPAUSE", 164),
    ("KEY_PREVIOUSSONG", 165),
    ("KEY_STOPCD", 166),
    ("KEY_RECORD", 167),
    ("KEY_REWIND", 168),
    ("KEY_PLAYCD", 200),
    ("KEY_PAUSECD", 201),
    ("KEY_PLAY", 207),
    ("KEY_FASTFORWARD", 208),
    ("KEY_OK", 352),
    ("KEY_SELECT", 353),
    ("KEY_INFO", 358),
    ("KEY_CHANNELUP", 402),
    ("KEY_CHANNELDOWN", 403),
    ("KEY_NUMERIC_0", 512),
    ("KEY_NUMERIC_1", 513),
    ("KEY_NUMERIC_2", 514),
    ("KEY_NUMERIC_3", 515),
    ("KEY_NUMERIC_4", 516),
    ("KEY_NUMERIC_5", 517),
    ("KEY_NUMERIC_6", 518),
    ("KEY_NUMERIC_7", 519),
    ("KEY_NUMERIC_8", 520),
    ("KEY_NUMERIC_9", 521),
    ("KEY_RED", 398),
    ("KEY_GREEN", 399),
    ("KEY_YELLOW", 400),
    ("KEY_BLUE", 401),
    ("BTN_0", 256),
    ("BTN_1", 257),
    ("BTN_2", 258),
    ("BTN_3", 259),
    ("BTN_4", 260),
    ("BTN_5", 261),
    ("BTN_6", 262),
    ("BTN_7", 263),
    ("BTN_8", 264),
    ("BTN_9", 265),
    ("BTN_LEFT", 272),
    ("BTN_RIGHT", 273),
    ("BTN_MIDDLE", 274),
]
