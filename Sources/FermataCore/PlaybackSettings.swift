import AudioCore

/// How to come back after a restart: play on, come back paused, or stay stopped (`playback.resume`).
public enum ResumePolicy: String, Sendable, Hashable, CaseIterable {
    case playing
    case paused
    case off
}

/// How the device format is chosen (`audio.format`, `fermata play --format`): `fixed` keeps the device at the first
/// track's format and converts the others, `follow` reopens it at each track's own, `exact` keeps it at one format.
public enum DeviceFormatSetting: Sendable, Hashable, CustomStringConvertible {
    case fixed
    case follow
    case exact(AudioFormat)

    /// "fixed", "follow" or RATE:ENCODING:CHANNELS such as 48000:s32:2; nil for anything else.
    public init?(text: String) {
        switch text {
        case "fixed": self = .fixed
        case "follow": self = .follow
        default:
            guard let format = AudioFormat(spec: text) else { return nil }
            self = .exact(format)
        }
    }

    public var description: String {
        switch self {
        case .fixed: "fixed"
        case .follow: "follow"
        case let .exact(format): format.spec
        }
    }

    /// What a refused value is told.
    public static let problem = "must be fixed, follow or RATE:ENCODING:CHANNELS such as 48000:s32:2"
}
