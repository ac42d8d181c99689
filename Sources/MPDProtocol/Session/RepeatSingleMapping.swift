import FermataCore

/// Maps MPD's two flags `repeat` and `single` to Fermata's `RepeatMode` plus its `single` flag, and back.
///
/// | MPD repeat | MPD single | Fermata                         | Meaning                           |
/// |-----------|------------|---------------------------------|-----------------------------------|
/// | 0         | 0          | `.off`, single off              | play to the end of the queue      |
/// | 1         | 0          | `.queue`, single off            | cycle the queue                   |
/// | 0         | 1          | `.off`, single on               | play the current song, then stop  |
/// | 1         | 1          | `.track`, single off            | repeat the current song           |
///
/// Fermata's `.queue` with single on (reachable only from other front ends) stops after the current song in the
/// player, so it reads back by behaviour: repeat 0, single 1. `.track` ignores single. Pure; callable anywhere.
public enum RepeatSingleMapping {
    /// Fermata's state as MPD's two flags.
    public static func mpd(repeatMode: RepeatMode, single: Bool) -> (repeat: Bool, single: Bool) {
        switch repeatMode {
        case .off: (false, single)
        case .queue: single ? (false, true) : (true, false)
        case .track: (true, true)
        }
    }

    /// MPD's two flags as Fermata's state.
    public static func fermata(repeat: Bool, single: Bool) -> (repeatMode: RepeatMode, single: Bool) {
        switch (`repeat`, single) {
        case (false, let single): (.off, single)
        case (true, false): (.queue, false)
        case (true, true): (.track, false)
        }
    }
}
