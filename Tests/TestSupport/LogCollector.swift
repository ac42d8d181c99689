import Logging
import Synchronization

/// A swift-log handler that keeps every message as "LEVEL: message", for tests that check what was logged.
/// Any thread may log through it and read `lines`.
public final class LogCollector: LogHandler, Sendable {
    public let lines = Mutex<[String]>([])

    public init() {}

    public var metadata: Logger.Metadata {
        get { [:] }
        set {}
    }

    public var logLevel: Logger.Level {
        get { .trace }
        set {}
    }

    public subscript(metadataKey _: String) -> Logger.Metadata.Value? {
        get { nil }
        set {}
    }

    public func log(event: LogEvent) {
        lines.withLock { $0.append("\(event.level): \(event.message)") }
    }
}
