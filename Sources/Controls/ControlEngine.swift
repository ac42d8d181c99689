/// All the controls' state machines together: per-line debounce, button gestures, chords and encoder decoding, fed
/// with edges (line index into `Keymap.lines`, logical level, kernel timestamp) and with the passing of time, and
/// answering with `ControlEvent`s. Time is only ever an input, so a recorded edge sequence replays exactly.
///
/// Whatever is due before an edge's timestamp is processed first, so the order of events never depends on when the
/// GPIO thread happened to wake up. A value; owned and driven by one thread (the GPIO thread) or a test.
public struct ControlEngine: Sendable {
    public let keymap: Keymap
    private var debouncers: [Debouncer]
    private var gestures: [ButtonGestures]
    private var encoders: [EncoderTracker]
    private var accelerators: [DetentAccelerator]

    /// - Parameters:
    ///   - userDebounce: debounce button lines here (the v1 API); false when the kernel already does (v2).
    ///   - levels: each line's logical level when requested (missing lines read as released).
    public init(keymap: Keymap, userDebounce: Bool, levels: [Bool]? = nil) {
        self.keymap = keymap
        let levels = levels ?? Array(repeating: false, count: keymap.lines.count)
        debouncers = zip(keymap.lines, levels).map { line, level in
            Debouncer(period: userDebounce ? line.debounce : 0, initial: level)
        }
        gestures = keymap.buttons.map { ButtonGestures(timing: $0.timing) }
        encoders = keymap.encoders.indices.map { index in
            let e = keymap.encoders[index]
            let a = keymap.lines.indices.first { keymap.lines[$0].role == .encoderA(index) }.map { levels[$0] }
            let b = keymap.lines.indices.first { keymap.lines[$0].role == .encoderB(index) }.map { levels[$0] }
            return EncoderTracker(QuadratureDecoder(transitionsPerDetent: e.transitionsPerDetent, inverted: e.inverted,
                                                    a: a ?? false, b: b ?? false))
        }
        accelerators = keymap.encoders.map { DetentAccelerator(window: $0.accelerationWindow,
                                                               maxMultiplier: $0.maxMultiplier) }
    }

    /// The earliest time `advance` has work, or nil when nothing is pending (the GPIO thread then sleeps in poll).
    public var deadline: UInt64? {
        var earliest: UInt64?
        for d in debouncers { if let due = d.deadline, due < earliest ?? .max { earliest = due } }
        for g in gestures { if let due = g.deadline, due < earliest ?? .max { earliest = due } }
        return earliest
    }

    /// One edge on line `line` (an index into `keymap.lines`).
    public mutating func edge(line: Int, level: Bool, at time: UInt64) -> [ControlEvent] {
        var out = advance(to: time)
        guard debouncers.indices.contains(line) else { return out }
        if let stable = debouncers[line].edge(level: level, at: time) {
            levelChanged(line: line, level: stable, at: time, into: &out)
        }
        return out
    }

    /// `count` signed steps (clockwise positive) on line `line`, the relative axis of an evdev encoder: each step is a
    /// detent, accelerated like a GPIO encoder's.
    public mutating func steps(line: Int, _ count: Int, at time: UInt64) -> [ControlEvent] {
        var out = advance(to: time)
        guard keymap.lines.indices.contains(line), case let .steps(encoder) = keymap.lines[line].role else {
            return out
        }
        let detents = accelerators[encoder].scale(keymap.encoders[encoder].inverted ? -count : count, at: time)
        emit(detents: detents, encoder: encoder, at: time, into: &out)
        return out
    }

    /// Processes everything due at or before `now`, in time order.
    public mutating func advance(to now: UInt64) -> [ControlEvent] {
        var out: [ControlEvent] = []
        while let due = deadline, due <= now {
            for line in debouncers.indices where debouncers[line].deadline == due {
                if let (level, at) = debouncers[line].expire(now: due) {
                    levelChanged(line: line, level: level, at: at, into: &out)
                }
            }
            for button in gestures.indices where gestures[button].deadline == due {
                for (gesture, at) in gestures[button].expire(now: due) {
                    emit(gesture, button: button, at: at, into: &out)
                }
            }
        }
        return out
    }

    private mutating func levelChanged(line: Int, level: Bool, at time: UInt64, into out: inout [ControlEvent]) {
        switch keymap.lines[line].role {
        case let .button(button):
            out.append(.button(keymap.buttons[button].name, pressed: level, at: time))
            if level {
                if claimChord(pressed: button, at: time, into: &out) { return }
                for gesture in gestures[button].press(at: time) { emit(gesture, button: button, at: time, into: &out) }
            } else {
                for gesture in gestures[button].release(at: time) {
                    emit(gesture, button: button, at: time, into: &out)
                }
            }
        case let .encoderA(encoder), let .encoderB(encoder):
            var isA = false
            if case .encoderA = keymap.lines[line].role { isA = true }
            let detents = accelerators[encoder].scale(encoders[encoder].edge(isA: isA, level: level, at: time),
                                                      at: time)
            emit(detents: detents, encoder: encoder, at: time, into: &out)
        case .steps:
            break  // steps come through `steps(line:_:at:)`, never as levels
        }
    }

    private func emit(detents: Int, encoder: Int, at time: UInt64, into out: inout [ControlEvent]) {
        guard detents != 0 else { return }
        let e = keymap.encoders[encoder]
        out.append(.detents(e.name, detents, at: time))
        guard let action = detents > 0 ? e.clockwise : e.counterClockwise else { return }
        let source = "\(e.name) \(detents > 0 ? "clockwise" : "counterclockwise")"
        out.append(.action(action.scaled(by: abs(detents)), source: source, at: time))
    }

    /// A press that completes a chord (its partner down, nothing fired for it yet) fires the chord instead.
    private mutating func claimChord(pressed button: Int, at time: UInt64, into out: inout [ControlEvent]) -> Bool {
        for chord in keymap.chords where chord.buttons.0 == button || chord.buttons.1 == button {
            let partner = chord.buttons.0 == button ? chord.buttons.1 : chord.buttons.0
            guard gestures[partner].isFreshlyDown else { continue }
            gestures[partner].claim()
            gestures[button].claim()
            out.append(.chord(chord.name, at: time))
            out.append(.action(chord.action, source: "chord \(chord.name)", at: time))
            return true
        }
        return false
    }

    private func emit(_ gesture: Gesture, button: Int, at time: UInt64, into out: inout [ControlEvent]) {
        let b = keymap.buttons[button]
        out.append(.gesture(b.name, gesture, at: time))
        if let action = b.actions[gesture] {
            out.append(.action(action, source: "\(b.name) \(gesture.rawValue)", at: time))
        }
    }
}
