import Foundation
import Logging

/// Asks the system to power off — when the `shutdown` control action fires (a long hold, off by default) or the box
/// has been idle for `timers.idle_poweroff_minutes`: fermatad runs unprivileged and sandboxed, so it only creates a
/// request file, and a root-owned systemd path unit (`deploy/fermata-poweroff.path`) that watches for it runs
/// `systemctl poweroff` — which stops fermatad first, saving its state as on any SIGTERM. The file lives in fermatad's
/// runtime directory, so it never survives a reboot.
/// Threads: a value; `post` may be called from any task (it does blocking I/O of a few bytes on a tmpfs).
public struct PowerOffRequest: Sendable {
    /// The request file; empty means the request is only logged.
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// Creates the request file for the `shutdown` control; logs what happened, or why it could not.
    public func post(logger: Logger) {
        post(by: "controls: shutdown held", logger: logger)
    }

    /// Creates the request file; `who` says what asked ("controls: shutdown held", "timers: idle for 30 min"), in the
    /// file and the log. True when the file was written.
    @discardableResult
    public func post(by who: String, logger: Logger) -> Bool {
        guard !path.isEmpty else {
            logger.notice("\(who), but [system] poweroff_request is empty: not powering off")
            return false
        }
        let reason = "requested (\(who)) at \(Date())\n"
        do {
            try Data(reason.utf8).write(to: URL(fileURLWithPath: path))
        } catch {
            logger.error("\(who), but the power-off request \(path) cannot be written (\(error))")
            return false
        }
        logger.notice("\(who): wrote \(path); the fermata-poweroff.path unit powers the board off")
        return true
    }
}
