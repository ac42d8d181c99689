/// How streams are buffered and bounded (`[streams]` in the configuration).
public struct StreamSettings: Sendable, Equatable {
    /// Audio held ahead of the decoder: what absorbs the network's jitter. Playback starts once this much is in.
    public var bufferMilliseconds: Int
    /// Audio kept behind the decoder, so a splice (a tempo change, words over the music) can decode again from what
    /// the listener hears: at least the engine's decode-ahead.
    public var historyMilliseconds: Int
    /// Reconnects after a playing stream's connection failed, each after twice the wait of the one before (1 s, 2 s,
    /// 4 s … up to 16 s); then the stream ends with the last error.
    public var maxReconnects: Int
    /// Name resolution, TCP and TLS together.
    public var connectTimeoutMilliseconds: Int
    /// A connection delivering nothing for this long is given up (and reconnected).
    public var stallSeconds: Int

    public init(bufferMilliseconds: Int = 2000, historyMilliseconds: Int = 2500, maxReconnects: Int = 5,
                connectTimeoutMilliseconds: Int = 10_000, stallSeconds: Int = 10) {
        self.bufferMilliseconds = bufferMilliseconds
        self.historyMilliseconds = historyMilliseconds
        self.maxReconnects = maxReconnects
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        self.stallSeconds = stallSeconds
    }

    var limits: HTTPConnection.Limits {
        var limits = HTTPConnection.Limits()
        limits.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        limits.stallSeconds = stallSeconds
        limits.headTimeout = .seconds(max(5, stallSeconds + connectTimeoutMilliseconds / 1000))
        return limits
    }
}

/// What a stream tells its listener besides audio, in order: the station's name, each new title, and notices worth a
/// log line (a reconnect, an underrun). Delivered on the stream's thread.
public enum StreamReport: Sendable, Equatable {
    case name(String)
    case title(String)
    case notice(String)
}
