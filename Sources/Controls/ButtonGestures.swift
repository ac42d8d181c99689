/// What one button did, as recognised by `ButtonGestures`.
public enum Gesture: String, Sendable, Hashable, CaseIterable {
    /// A short press (or the first and only tap when a double press is configured).
    case press
    /// Held past the long-press time.
    case longPress = "long"
    /// Held past the (longer) hold time, e.g. for shutdown.
    case hold
    /// Another step while held, after the repeat delay (seek, volume).
    case `repeat`
    /// Two presses within the double-press window.
    case doublePress = "double"
    /// The button came up, however the press went (a pedal's hold-to-play: `press = "play"`, `release = "pause"`).
    case release
}

/// The timing a button's gestures need; nil means the gesture has no action, so it is not waited for.
public struct GestureTiming: Sendable, Equatable {
    /// Fire `press` as soon as the button goes down (only when nothing else needs the release to decide).
    public var pressOnDown = true
    public var longPress: UInt64?
    public var hold: UInt64?
    public var repeatDelay: UInt64?
    public var repeatInterval: UInt64 = 200_000_000
    public var doubleWindow: UInt64?
    /// Whether every release fires `release` (only when the button has a release action, so other buttons' gesture
    /// streams stay as they were).
    public var reportsRelease = false

    public init(pressOnDown: Bool = true, longPress: UInt64? = nil, hold: UInt64? = nil, repeatDelay: UInt64? = nil,
                repeatInterval: UInt64 = 200_000_000, doubleWindow: UInt64? = nil, reportsRelease: Bool = false) {
        self.reportsRelease = reportsRelease
        self.pressOnDown = pressOnDown
        self.longPress = longPress
        self.hold = hold
        self.repeatDelay = repeatDelay
        self.repeatInterval = repeatInterval
        self.doubleWindow = doubleWindow
    }
}

/// The gesture state machine of one button, fed with debounced press/release edges and timer expiries. Time is an
/// input (nanoseconds, any monotonic origin), so recorded sequences replay deterministically.
///
/// * `press` fires on the way down, or on release when the button also has a long press, hold, double press or a
///   chord (which all need to see how the press ends), or on release before the repeat delay when the repeat action
///   differs from the press action.
/// * `longPress` fires while held at `longPress`; with a `hold` configured too, it fires on a release between the two
///   and `hold` fires while held at `hold`.
/// * `repeat` fires at `repeatDelay` and then every `repeatInterval` until release.
/// * `doublePress` fires on the second press within `doubleWindow` of the first release; a single tap then fires
///   `press` when the window closes.
/// * `release` fires on every release, after whatever the release decided (with `reportsRelease`).
///
/// A value type; owned and driven by one thread (the GPIO thread) or a test.
public struct ButtonGestures: Sendable, Equatable {
    /// Where the button is in its gesture.
    enum State: Sendable, Equatable {
        case idle
        /// Down since `since`; `fired`: something was emitted for this press; `longReached`: past the long-press
        /// time with a hold still to come; `nextRepeat`: when the next repeat is due.
        case down(since: UInt64, fired: Bool, longReached: Bool, nextRepeat: UInt64?)
        /// Released after a first tap, waiting to see whether a second one comes.
        case awaitingSecond(releasedAt: UInt64)
        /// Down, but everything for this press has been decided (long, hold, double, chord): wait for the release.
        case consumed
    }

    public let timing: GestureTiming
    private(set) var state: State = .idle

    public init(timing: GestureTiming) {
        self.timing = timing
    }

    /// Down and nothing emitted yet: a chord may still claim this press.
    public var isFreshlyDown: Bool {
        if case .down(_, false, false, _) = state { return true }
        return false
    }

    public var isDown: Bool {
        switch state {
        case .down, .consumed: true
        case .idle, .awaitingSecond: false
        }
    }

    /// When `expire` must next be called, or nil when no timer is needed.
    public var deadline: UInt64? {
        switch state {
        case .idle, .consumed:
            return nil
        case let .awaitingSecond(releasedAt):
            return timing.doubleWindow.map { releasedAt + $0 }
        case let .down(since, _, longReached, nextRepeat):
            var due = nextRepeat
            if let long = timing.longPress, !longReached, long < timing.hold ?? .max {
                due = min(due ?? .max, since + long)
            }
            if let hold = timing.hold { due = min(due ?? .max, since + hold) }
            return due
        }
    }

    /// The button went down at `time`.
    public mutating func press(at time: UInt64) -> [Gesture] {
        switch state {
        case .awaitingSecond:
            state = .consumed
            return [.doublePress]
        case .down, .consumed:
            return []
        case .idle:
            let fires = timing.pressOnDown
            state = .down(since: time, fired: fires, longReached: false,
                          nextRepeat: timing.repeatDelay.map { time + $0 })
            return fires ? [.press] : []
        }
    }

    /// The button came up at `time`.
    public mutating func release(at time: UInt64) -> [Gesture] {
        let wasDown = isDown
        let gestures = decideOnRelease(at: time)
        return timing.reportsRelease && wasDown ? gestures + [.release] : gestures
    }

    private mutating func decideOnRelease(at time: UInt64) -> [Gesture] {
        guard case let .down(_, fired, longReached, _) = state else {
            if state == .consumed { state = .idle }
            return []
        }
        if fired {
            state = .idle
            return []
        }
        if longReached {
            state = .idle
            return [.longPress]
        }
        if timing.doubleWindow != nil {
            state = .awaitingSecond(releasedAt: time)
            return []
        }
        state = .idle
        return [.press]
    }

    /// Gives this press to a chord (the button is down): nothing more fires until it is released, and a single tap
    /// still waiting for a possible second one is dropped.
    public mutating func claim() {
        state = .consumed
    }

    /// Emits what is due at or before `now`, each with the time it was due.
    public mutating func expire(now: UInt64) -> [(Gesture, UInt64)] {
        var out: [(Gesture, UInt64)] = []
        while let due = deadline, due <= now {
            switch state {
            case .idle, .consumed:
                return out
            case .awaitingSecond:
                state = .idle
                out.append((.press, due))
            case let .down(since, fired, longReached, nextRepeat):
                if let repeatAt = nextRepeat, repeatAt == due {
                    state = .down(since: since, fired: true, longReached: longReached,
                                  nextRepeat: repeatAt + max(1, timing.repeatInterval))
                    out.append((.repeat, due))
                } else if let hold = timing.hold, since + hold == due {
                    state = .consumed
                    out.append((.hold, due))
                } else if timing.hold != nil {
                    state = .down(since: since, fired: fired, longReached: true, nextRepeat: nextRepeat)
                } else {
                    state = .consumed
                    out.append((.longPress, due))
                }
            }
        }
        return out
    }
}
