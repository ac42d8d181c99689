import FermataConfig
/// Turns profile and override entries into a `BoardProfile`: merges them (the last entry for a section and key wins),
/// checks every key, type and range, and reports the first problem with its file, line and key. Pure; any thread.
struct ProfileReader {
    /// Sections in order of first appearance, each with its keys (the winning entry of each).
    private var sections: [(name: String, keys: [String: ProfileEntry])] = []

    init(entries: [ProfileEntry]) {
        for entry in entries {
            if let index = sections.firstIndex(where: { $0.name == entry.section }) {
                sections[index].keys[entry.key] = entry
            } else {
                sections.append((entry.section, [entry.key: entry]))
            }
        }
    }

    mutating func read(into profile: inout BoardProfile) throws(ConfigError) {
        var controls = ControlsConfig()
        var lineSettings = LineSettings()
        var defaultChip: String?
        for (name, keys) in sections {
            var s = Section(name: name, keys: keys)
            switch name {
            case "board":
                profile.id = try s.string("id") ?? profile.id
                profile.name = try s.string("name") ?? profile.name
                profile.models = try s.strings("model") ?? profile.models
                profile.alsaDevice = try s.string("alsa_device") ?? profile.alsaDevice
                profile.reservedLines = try s.strings("reserved") ?? profile.reservedLines
            case "controls":
                _ = try s.string("board")  // which profile to load: the daemon's business (`BoardProfile.file`)
                controls.enabled = try s.bool("enabled") ?? controls.enabled
                controls.consumer = try s.string("consumer") ?? controls.consumer
                controls.realtimePriority = try s.int("realtime_priority", 0...99) ?? controls.realtimePriority
                controls.debounceMs = try s.int("debounce_ms", 0...50) ?? controls.debounceMs
                controls.longPressMs = try s.int("long_press_ms", 100...10_000) ?? controls.longPressMs
                controls.holdMs = try s.int("hold_ms", 500...30_000) ?? controls.holdMs
                controls.doublePressMs = try s.int("double_press_ms", 50...1000) ?? controls.doublePressMs
                controls.repeatDelayMs = try s.int("repeat_delay_ms", 50...5000) ?? controls.repeatDelayMs
                controls.repeatIntervalMs = try s.int("repeat_interval_ms", 20...5000) ?? controls.repeatIntervalMs
                controls.scancodeReleaseMs = try s.int("scancode_release_ms", 50...2000) ?? controls.scancodeReleaseMs
                lineSettings = try s.settings(default: lineSettings)
                defaultChip = try s.string("chip") ?? defaultChip
            default:
                continue
            }
            try s.rejectUnread()
        }
        var owners: [LineRef: String] = [:]
        let reserved = Set(profile.reservedLines.compactMap { text -> LineRef? in
            if let offset = UInt32(text), let defaultChip { return .chip(defaultChip, offset: offset) }
            return LineRef(parsing: text)
        })
        func claim(_ line: LineRef, by owner: String, _ entry: ProfileEntry?) throws(ConfigError) {
            if let other = owners[line] {
                throw ConfigError(file: entry?.file ?? "", line: entry?.line ?? 0, key: nil,
                                   message: "\(owner) and \(other) both use \(line)")
            }
            owners[line] = owner
            if reserved.contains(line) {
                profile.warnings.append("\(owner) uses \(line), which \(profile.name) keeps free for audio or HATs")
            }
        }
        var chordEntries: [ProfileEntry?] = []
        var inputUses: [(input: String, entry: ProfileEntry?)] = []
        for (name, keys) in sections where !["board", "controls"].contains(name) {
            var s = Section(name: name, keys: keys)
            let (kind, item) = try s.kindAndName()
            guard try s.bool("enabled") ?? true else { continue }
            switch kind {
            case "input":
                controls.inputs.append(try s.input(item))
            case "button":
                let button = try s.button(item, settings: lineSettings, chip: defaultChip)
                try claim(button.line, by: "button \(item)", keys["line"] ?? keys["key"] ?? keys["scancode"])
                if case let .evdev(input, _) = button.line { inputUses.append((input, keys["input"])) }
                controls.buttons.append(button)
            case "encoder":
                let encoder = try s.encoder(item, settings: lineSettings, chip: defaultChip)
                if case let .evdev(input, _) = encoder.a {
                    try claim(encoder.a, by: "encoder \(item)", keys["axis"])
                    inputUses.append((input, keys["input"]))
                } else {
                    try claim(encoder.a, by: "encoder \(item) A", keys["a"])
                    try claim(encoder.b, by: "encoder \(item) B", keys["b"])
                }
                controls.encoders.append(encoder)
            default:
                controls.chords.append(try s.chord(item))
                chordEntries.append(keys["buttons"])
            }
            try s.rejectUnread()
        }
        for (chord, entry) in zip(controls.chords, chordEntries) {
            for button in chord.buttons where !controls.buttons.contains(where: { $0.name == button }) {
                throw ConfigError(file: entry?.file ?? "", line: entry?.line ?? 0, key: "chord-\(chord.name).buttons",
                                   message: "no enabled button called '\(button)'")
            }
        }
        for (input, entry) in inputUses where !controls.inputs.contains(where: { $0.name == input }) {
            throw ConfigError(file: entry?.file ?? "", line: entry?.line ?? 0,
                               key: entry.map { "\($0.section).input" }, message: "no enabled [input-\(input)]")
        }
        profile.controls = controls
    }
}

/// One section's entries being read; remembers which keys were used so unknown ones are errors.
private struct Section {
    let name: String
    let keys: [String: ProfileEntry]
    var used: Set<String> = []

    init(name: String, keys: [String: ProfileEntry]) {
        self.name = name
        self.keys = keys
    }

    func fail(_ entry: ProfileEntry?, _ message: String) -> ConfigError {
        let any = entry ?? keys.values.min { $0.line < $1.line }
        return ConfigError(file: any?.file ?? "", line: any?.line ?? 0,
                            key: entry.map { "\(name).\($0.key)" } ?? "[\(name)]", message: message)
    }

    mutating func take(_ key: String) -> ProfileEntry? {
        used.insert(key)
        return keys[key]
    }

    func rejectUnread() throws(ConfigError) {
        if let extra = keys.values.filter({ !used.contains($0.key) }).min(by: { $0.line < $1.line }) {
            throw fail(extra, "unknown key")
        }
    }

    mutating func kindAndName() throws(ConfigError) -> (String, String) {
        for kind in ["button", "encoder", "chord", "input"] {
            for separator in ["-", "."] where name.hasPrefix(kind + separator) && name.count > kind.count + 1 {
                return (kind, String(name.dropFirst(kind.count + 1)))
            }
        }
        throw fail(nil, "unknown section (expected board, controls, button-NAME, encoder-NAME, chord-NAME or "
            + "input-NAME)")
    }

    mutating func string(_ key: String) throws(ConfigError) -> String? {
        guard let entry = take(key) else { return nil }
        guard case let .string(value) = entry.value else { throw fail(entry, "expected a quoted string") }
        return value
    }

    mutating func strings(_ key: String) throws(ConfigError) -> [String]? {
        guard let entry = take(key) else { return nil }
        switch entry.value {
        case let .strings(values): return values
        case let .string(value): return [value]
        default: throw fail(entry, "expected a list of quoted strings")
        }
    }

    mutating func bool(_ key: String) throws(ConfigError) -> Bool? {
        guard let entry = take(key) else { return nil }
        guard case let .boolean(value) = entry.value else { throw fail(entry, "expected true or false") }
        return value
    }

    mutating func int(_ key: String, _ range: ClosedRange<Int>) throws(ConfigError) -> Int? {
        guard let entry = take(key) else { return nil }
        guard case let .integer(value) = entry.value else { throw fail(entry, "expected a whole number") }
        guard range.contains(value) else { throw fail(entry, "must be \(range.lowerBound)–\(range.upperBound)") }
        return value
    }

    mutating func action(_ key: String) throws(ConfigError) -> KeyAction?? {
        guard let entry = take(key) else { return nil }
        guard case let .string(text) = entry.value else { throw fail(entry, "expected an action in quotes") }
        if text == "none" { return .some(nil) }
        guard let action = KeyAction(parsing: text) else {
            throw fail(entry, "unknown action '\(text)' (play-pause, next, previous, seek+N, seek-N, volume+N, "
                + "volume-N, tempo+N, tempo-N, repeat-cycle, loop, loop-a, loop-b, loop-clear, loop-last-N, announce, shutdown, "
                + "none)")
        }
        return .some(action)
    }

    mutating func line(_ key: String, chip: String?) throws(ConfigError) -> LineRef {
        guard let entry = take(key) else { throw fail(nil, "missing '\(key)' (a line name or CHIP:OFFSET)") }
        switch entry.value {
        case let .string(text):
            guard let line = LineRef(parsing: text) else { throw fail(entry, "expected a line name or CHIP:OFFSET") }
            return line
        case let .integer(offset) where offset >= 0:
            guard let chip else { throw fail(entry, "a bare offset needs `chip` in [controls]") }
            return .chip(chip, offset: UInt32(offset))
        default:
            throw fail(entry, "expected a line name, CHIP:OFFSET, or an offset on [controls] chip")
        }
    }

    mutating func settings(default base: LineSettings) throws(ConfigError) -> LineSettings {
        var settings = base
        if let entry = keys["bias"] {
            guard let text = try string("bias"), let bias = LineSettings.Bias(rawValue: text) else {
                throw fail(entry, "expected pull-up, pull-down, disabled or as-is")
            }
            settings.bias = bias
        }
        settings.activeLow = try bool("active_low") ?? settings.activeLow
        return settings
    }

    /// `[input-NAME]`: exactly one of `name`, `id` ("VVVV:PPPP") and `phys`, `grab`, and `cards` (a card reader).
    mutating func input(_ item: String) throws(ConfigError) -> InputDeviceConfig {
        let given = ["name", "id", "phys"].filter { keys[$0] != nil }
        guard given.count == 1 else {
            throw fail(given.count > 1 ? keys[given[1]] : nil, "an input device is matched by one of name, id, phys")
        }
        let match: InputDeviceConfig.Match
        if let name = try string("name") {
            guard !name.isEmpty else {
                throw fail(keys["name"], "expected the device's name (N: Name= in /proc/bus/input/devices)")
            }
            match = .name(name)
        } else if let id = try string("id") {
            guard let parsed = InputDeviceConfig.Match.id(parsing: id) else {
                throw fail(keys["id"], "expected vendor:product in hexadecimal, e.g. \"3553:b001\"")
            }
            match = parsed
        } else {
            guard let phys = try string("phys"), !phys.isEmpty else { throw fail(keys["phys"], "expected a path") }
            match = .phys(phys)
        }
        return InputDeviceConfig(name: item, match: match, grab: try bool("grab") ?? true, cards: try bool("cards") ?? false)
    }

    /// An evdev control: `input` names the device; `what` is read by `parse` from a string or a whole number.
    mutating func evdev(_ key: String, _ parse: (String) -> EvdevCode?, expected: String) throws(ConfigError)
        -> LineRef {
        guard let input = try string("input") else { throw fail(nil, "missing 'input'") }
        guard let entry = take(key) else { throw fail(nil, "missing '\(key)' (\(expected))") }
        let text: String
        switch entry.value {
        case let .string(value): text = value
        case let .integer(value) where value >= 0: text = "\(value)"
        default: throw fail(entry, "expected \(expected)")
        }
        guard let code = parse(text) else { throw fail(entry, "expected \(expected)") }
        return .evdev(input: input, code: code)
    }

    mutating func button(_ item: String, settings: LineSettings, chip: String?) throws(ConfigError) -> ButtonConfig {
        let source: LineRef
        if keys["input"] == nil {
            source = try line("line", chip: chip)
        } else if keys["scancode"] != nil {
            source = try evdev("scancode", EvdevCode.scancode(parsing:), expected: "a scancode (e.g. \"0x40bf12\")")
        } else {
            source = try evdev("key", EvdevCode.key(parsing:), expected: "a key name (KEY_B, BTN_0) or code 1–767")
        }
        var button = ButtonConfig(name: item, line: source)
        button.settings = try self.settings(default: settings)
        for gesture in Gesture.allCases {
            if let action = try action(gesture.rawValue), let action { button.actions[gesture] = action }
        }
        button.longPressMs = try int("long_press_ms", 100...10_000)
        button.holdMs = try int("hold_ms", 500...30_000)
        button.repeatDelayMs = try int("repeat_delay_ms", 50...5000)
        button.repeatIntervalMs = try int("repeat_interval_ms", 20...5000)
        if button.actions[.repeat] != nil, button.actions[.longPress] != nil || button.actions[.hold] != nil {
            throw fail(keys["repeat"], "a button with hold-repeat cannot also have a long press or hold")
        }
        return button
    }

    mutating func encoder(_ item: String, settings: LineSettings, chip: String?) throws(ConfigError)
        -> EncoderConfig {
        var encoder: EncoderConfig
        if keys["input"] != nil {
            let axis = try evdev("axis", EvdevCode.axis(parsing:), expected: "an axis (REL_WHEEL, REL_DIAL) or 0–15")
            encoder = EncoderConfig(name: item, a: axis, b: axis, clockwise: nil, counterClockwise: nil)
        } else {
            encoder = EncoderConfig(name: item, a: try line("a", chip: chip), b: try line("b", chip: chip),
                                    clockwise: nil, counterClockwise: nil)
        }
        encoder.settings = try self.settings(default: settings)
        encoder.clockwise = try action("clockwise") ?? nil
        encoder.counterClockwise = try action("counterclockwise") ?? nil
        if let entry = keys["transitions_per_detent"] {
            guard let steps = try int("transitions_per_detent", 1...4), [1, 2, 4].contains(steps) else {
                throw fail(entry, "must be 1, 2 or 4")
            }
            encoder.transitionsPerDetent = steps
        }
        encoder.inverted = try bool("invert") ?? false
        encoder.accelerationMs = try int("acceleration_ms", 0...500) ?? encoder.accelerationMs
        encoder.maxMultiplier = try int("acceleration_max", 1...20) ?? encoder.maxMultiplier
        return encoder
    }

    mutating func chord(_ item: String) throws(ConfigError) -> ChordConfig {
        guard let entry = keys["buttons"], let buttons = try strings("buttons") else {
            throw fail(nil, "missing 'buttons' (two button names)")
        }
        guard buttons.count == 2, buttons[0] != buttons[1] else { throw fail(entry, "a chord is two buttons") }
        guard let action = try action("action"), let action else { throw fail(nil, "missing 'action'") }
        return ChordConfig(name: item, buttons: buttons, action: action)
    }
}
