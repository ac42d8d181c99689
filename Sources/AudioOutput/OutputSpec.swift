import CALSA

/// Where audio goes, as written on the command line or in the config: `null` (real-time paced, discarded), `file:PATH`
/// (raw PCM captured through alsa-lib's `file` plugin over a `null` slave — unpaced, for tests and checks), or an ALSA
/// PCM name (`default`, `plughw:CARD=sndrpihifiberry,DEV=0`, optionally prefixed `alsa:`).
public enum OutputSpec: Sendable, Hashable, CustomStringConvertible {
    case null
    case capture(path: String)
    case alsa(device: String)

    public init(parsing text: String) {
        if text == "null" {
            self = .null
        } else if text.hasPrefix("file:") {
            self = .capture(path: String(text.dropFirst(5)))
        } else if text.hasPrefix("alsa:") {
            self = .alsa(device: String(text.dropFirst(5)))
        } else {
            self = .alsa(device: text)
        }
    }

    public var description: String {
        switch self {
        case .null: "null"
        case let .capture(path): "file:\(path)"
        case let .alsa(device): device
        }
    }

    /// Makes the sink. Threads: hand the result to the engine, which owns it from then on.
    public func makeSink() -> any AudioSink {
        switch self {
        case .null: PacedNullSink()
        case let .capture(path): ALSASink(device: "fermata_capture", configText: Self.captureConfig(path: path))
        case let .alsa(device): ALSASink(device: device)
        }
    }

    /// Plain words for where the audio goes, for the first log line.
    public var destination: String {
        switch self {
        case .null: "the paced null output: audio is discarded in real time (no sound card is used)"
        case let .capture(path): "raw PCM captured to \(path) through ALSA's file plugin (not paced, nothing audible)"
        case let .alsa(device): "ALSA device \(device)"
        }
    }

    /// An ALSA configuration defining PCM `fermata_capture`: the `file` plugin writing raw frames to `path`, with an
    /// inline `null` slave (so no global configuration is needed).
    public static func captureConfig(path: String) -> String {
        let escaped = path.flatMap { $0 == "\\" || $0 == "\"" ? ["\\", $0] : [$0] }.map(String.init).joined()
        return """
        pcm.fermata_capture {
            type file
            slave { pcm { type null } }
            file "\(escaped)"
            format "raw"
        }
        """
    }

    /// Tries to open an ALSA playback PCM and closes it again; returns nil when it opens, else the reason.
    public static func probeALSA(device: String) -> String? {
        var handle: OpaquePointer?
        let result = snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, Int32(SND_PCM_NONBLOCK))
        if result >= 0, let handle {
            snd_pcm_close(handle)
            return nil
        }
        return String(cString: snd_strerror(result))
    }
}
