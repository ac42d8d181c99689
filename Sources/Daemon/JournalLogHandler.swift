import Foundation
import Logging

/// Writes one line per log event to stderr. Under systemd (`$JOURNAL_STREAM` set) each line starts with the syslog
/// priority (`<3>` … `<7>`), which journald turns into the entry's level; on a terminal it starts with a timestamp and
/// the level in words. Metadata follows as `key=value`.
/// Threads: any (each event is one `write(2)` of a whole line).
public struct JournalLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    let label: String
    let journald: Bool

    public init(label: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.label = label
        journald = environment["JOURNAL_STREAM"] != nil
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var all = metadata
        if let extra = event.metadata { all.merge(extra) { $1 } }
        let tail = all.isEmpty ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let text = "\(event.message)\(tail)".replacingOccurrences(of: "\n", with: " ")
        let line: String
        if journald {
            line = "<\(Self.priority(event.level))>\(label): \(text)\n"
        } else {
            let stamp = ISO8601DateFormatter.string(from: Date(), timeZone: .current,
                                                    formatOptions: [.withInternetDateTime, .withFractionalSeconds])
            line = "\(stamp) \(event.level) \(label): \(text)\n"
        }
        _ = line.withCString { write(2, $0, strlen($0)) }
    }

    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}
