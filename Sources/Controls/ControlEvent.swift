import Foundation

/// Something the controls noticed, from a raw edge up to the action it produced. Times are CLOCK_MONOTONIC
/// nanoseconds: the kernel's edge timestamp, or when a debounce period or gesture timer ran out. A value; any thread.
public enum ControlEvent: Sendable, Hashable, CustomStringConvertible {
    /// The GPIO thread has requested what it could: `opened` of the keymap's `of` lines (first event of a run).
    case ready(opened: Int, of: Int, at: UInt64)
    /// A raw edge as the kernel reported it (only when the service is asked for raw edges, e.g. by the monitor).
    case edge(line: String, level: Bool, at: UInt64)
    /// A button's debounced level changed.
    case button(String, pressed: Bool, at: UInt64)
    case gesture(String, Gesture, at: UInt64)
    /// Signed detents (clockwise positive), after acceleration.
    case detents(String, Int, at: UInt64)
    case chord(String, at: UInt64)
    /// An action for the player; `source` says which control made it ("play press", "volume clockwise").
    case action(KeyAction, source: String, at: UInt64)
    /// A card reader (the `[input-NAME]` `input`) read a card: its id as the reader typed it.
    case card(String, input: String, at: UInt64)

    public var time: UInt64 {
        switch self {
        case let .ready(_, _, at), let .edge(_, _, at), let .button(_, _, at), let .gesture(_, _, at),
             let .detents(_, _, at), let .chord(_, at), let .action(_, _, at), let .card(_, _, at): at
        }
    }

    /// The action, for `.action` events.
    public var action: KeyAction? {
        if case let .action(action, _, _) = self { return action }
        return nil
    }

    /// One line for `fermata gpio monitor` (without the time).
    public var description: String {
        switch self {
        case let .ready(opened, total, _): "ready   \(opened) of \(total) lines"
        case let .edge(line, level, _): "edge    \(line) \(level ? 1 : 0)"
        case let .button(name, pressed, _): "button  \(name) \(pressed ? "down" : "up")"
        case let .gesture(name, gesture, _): "gesture \(name) \(gesture.rawValue)"
        case let .detents(name, n, _): "encoder \(name) \(n > 0 ? "+" : "")\(n)"
        case let .chord(name, _): "chord   \(name)"
        case let .action(action, source, _): "action  \(action) (\(source))"
        case let .card(id, input, _): "card    \(id) (\(input))"
        }
    }

    /// The line `fermata gpio monitor` prints: seconds since `start` (CLOCK_MONOTONIC ns), then the description;
    /// raw edges also carry their kernel timestamp (the format of recorded test fixtures: "@TIME_NS").
    public func monitorLine(since start: UInt64) -> String {
        let seconds = Double(Int64(bitPattern: time &- start)) / 1e9
        var text = description
        if case let .edge(_, _, at) = self { text += " @\(at)" }
        return String(format: "%10.6f  ", seconds) + text
    }
}
