import FermataCore

/// What changed, for MPD `idle` and status displays.
public enum PlayerChange: Sendable, Hashable {
    case player
    case queue
    case mixer
    case options
}
