import Controls
import WebRemote

extension ControlEvent {
    /// What the web remote's live strip shows of this event (what `fermata input monitor` would print): a gesture, an
    /// encoder's turn, a chord, or the action it produced; nil for what no one needs to see (raw edges, levels).
    var webSignal: WebSignal? {
        switch self {
        case let .gesture(name, gesture, _): .input(device: nil, control: name, gesture: gesture.rawValue, action: nil)
        case let .detents(name, count, _):
            .input(device: nil, control: name, gesture: count > 0 ? "clockwise" : "counterclockwise", action: nil)
        case let .chord(name, _): .input(device: nil, control: name, gesture: "chord", action: nil)
        case let .action(action, source, _): .input(device: nil, control: source, gesture: "action", action: "\(action)")
        case .ready, .edge, .button, .card: nil
        }
    }
}
