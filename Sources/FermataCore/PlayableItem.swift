/// A queue entry's stable identity. Unique within one queue for the life of the daemon (and across restarts once
/// persisted).
public typealias EntryID = Int64

/// What the engine needs to play one queue entry: which file, under which entry id, with which ReplayGain, and which
/// part of it.
public struct PlayableItem: Sendable, Hashable {
    public var entryID: EntryID
    public var path: String
    /// Linear gain from ReplayGain (1 = none), already limited so the tagged peak does not clip.
    public var replayGain: Double
    /// The part of the file to play, its passes and its tempo (nil: all of it, once, at the listener's tempo).
    public var span: PlaySpan?

    /// Whether it is a network stream (an http or https URL) rather than a file: played live, with no length, no
    /// seeking and no loop.
    public var isLive: Bool { Self.isLive(path) }

    /// Whether a queue URI or path names a network stream (http or https, any case).
    public static func isLive(_ uri: String) -> Bool {
        let scheme = uri.prefix(8).lowercased()
        return scheme.hasPrefix("http://") || scheme.hasPrefix("https://")
    }

    public init(entryID: EntryID, path: String, replayGain: Double = 1, span: PlaySpan? = nil) {
        self.entryID = entryID
        self.path = path
        self.replayGain = replayGain
        self.span = span
    }
}

/// An A–B loop inside one track, in source frames (`start` inclusive, `end` exclusive).
public struct LoopRegion: Sendable, Hashable, CustomStringConvertible {
    public var start: Int64
    public var end: Int64
    /// How many times to jump back from B to A before playing on (nil: for ever).
    public var repeatCount: Int?

    public init(start: Int64, end: Int64, repeatCount: Int? = nil) {
        self.start = start
        self.end = end
        self.repeatCount = repeatCount
    }

    public var length: Int64 { end - start }
    public var description: String { "\(start)..<\(end)" }
}

/// Which end of a loop region an action refers to.
public enum LoopEndpoint: String, Sendable, Hashable {
    case a
    case b
}

/// Transport state as the listener hears it.
public enum PlayState: String, Sendable, Hashable {
    case stopped
    case playing
    case paused
}

/// What happens at the end of a track.
public enum RepeatMode: String, Sendable, Hashable, CaseIterable {
    /// Play to the end of the queue, then stop.
    case off
    /// Repeat the current track forever.
    case track
    /// Cycle the whole queue forever (the set list).
    case queue
}

/// Which ReplayGain value to apply.
public enum ReplayGainMode: String, Sendable, Hashable, CaseIterable {
    case off
    case track
    case album
    /// MPD's "auto": track gain while random is on, album gain (track gain where a song has none) otherwise.
    case auto
}
