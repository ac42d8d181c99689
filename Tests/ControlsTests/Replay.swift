@testable import Controls
import Foundation

/// Replays a recorded edge sequence through a `ControlEngine`, as the GPIO thread would: edges in order, then time
/// running on until nothing is pending.
enum Replay {
    /// The repository's boards/ folder.
    static let boards = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("boards").path

    static func profile(_ name: String, overrides: String = "") throws -> BoardProfile {
        try BoardProfile.load(file: "\(boards)/\(name).toml",
                              overrides: ProfileFile.parse(overrides, file: "overrides.toml"))
    }

    /// Parses "TIME_NS LINE LEVEL" lines.
    static func edges(_ text: String) -> [(time: UInt64, line: String, level: Bool)] {
        text.split(separator: "\n").compactMap { row in
            let parts = row.split(separator: " ")
            guard parts.count == 3, let time = UInt64(parts[0]) else { return nil }
            return (time, String(parts[1]), parts[2] == "1")
        }
    }

    /// All events of the replay.
    static func events(_ text: String, keymap: Keymap, userDebounce: Bool = true) -> [ControlEvent] {
        var engine = ControlEngine(keymap: keymap, userDebounce: userDebounce)
        var out: [ControlEvent] = []
        for edge in edges(text) {
            guard let line = keymap.lines.firstIndex(where: { $0.ref.description == edge.line }) else {
                fatalError("no line \(edge.line) in the keymap")
            }
            out += engine.edge(line: line, level: edge.level, at: edge.time)
        }
        while let due = engine.deadline { out += engine.advance(to: due) }
        return out
    }

    /// The actions of the replay with their times.
    static func actions(_ text: String, keymap: Keymap, userDebounce: Bool = true) -> [Timed] {
        events(text, keymap: keymap, userDebounce: userDebounce).compactMap { event in
            guard case let .action(action, _, at) = event else { return nil }
            return Timed(action, at)
        }
    }

    /// An action and when it fired (ns).
    struct Timed: Equatable, CustomStringConvertible {
        var action: KeyAction
        var at: UInt64

        init(_ action: KeyAction, _ at: UInt64) {
            self.action = action
            self.at = at
        }

        var description: String { "\(action)@\(at)" }
    }
}
