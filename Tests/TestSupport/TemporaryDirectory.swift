import Foundation

/// A fresh, uniquely named directory under /tmp that is deleted (with its contents) when released.
///
/// Immutable after creation; may be shared between test tasks.
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init(prefix: String = "fermata-test") throws {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: "/tmp/\(prefix)-XXXXXX"])
        }
        path = String(cString: made)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The path of `name` inside the directory (not created).
    public func file(_ name: String) -> String { path + "/" + name }

    /// The URL of `name` inside the directory (not created).
    public func url(_ name: String) -> URL { URL(fileURLWithPath: file(name)) }
}
