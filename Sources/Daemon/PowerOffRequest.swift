import Foundation
import Logging

/// Asks the system to power off when the `shutdown` control action fires (a long hold, off by default): fermatad runs
/// unprivileged and sandboxed, so it only creates a request file, and a root-owned systemd path unit
/// (`deploy/fermata-poweroff.path`) that watches for it runs `systemctl poweroff` — which stops fermatad first, saving
/// its state as on any SIGTERM. The file lives in fermatad's runtime directory, so it never survives a reboot.
/// Threads: a value; `post` may be called from any task (it does blocking I/O of a few bytes on a tmpfs).
public struct PowerOffRequest: Sendable {
    /// The request file; empty means the action is only logged.
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// Creates the request file; logs what happened, or why it could not.
    public func post(logger: Logger) {
        guard !path.isEmpty else {
            logger.notice("controls: shutdown held, but [system] poweroff_request is empty: not powering off")
            return
        }
        let reason = "requested by the shutdown control at \(Date())\n"
        do {
            try Data(reason.utf8).write(to: URL(fileURLWithPath: path))
        } catch {
            logger.error("controls: shutdown held, but the power-off request \(path) cannot be written (\(error))")
            return
        }
        logger.notice("controls: shutdown held: wrote \(path); the fermata-poweroff.path unit powers the board off")
    }
}
