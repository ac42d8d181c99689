import Foundation
import Glibc

/// fermatad's claim on its state directory: an exclusive `flock` on `fermatad.lock` there, held until the process ends
/// (the kernel drops it however the process ends, SIGKILL and power cut included; the descriptor is close-on-exec, so
/// no child keeps it). A second fermatad on the same directory — started by hand over SSH while the service runs — is
/// refused before it opens the database or binds the socket: two daemons would each save their own queue over the
/// other's, and the second would unlink the first's control socket.
///
/// A state directory that cannot hold the file (a read-only or full disk, no permission) is not locked: the daemon
/// starts as before and the database opener reports what it finds there.
///
/// Made once by `DaemonRuntime.run`, which keeps it for the daemon's life. Sendable: the descriptor is a constant.
final class StateDirectoryLock: Sendable {
    static let fileName = "fermatad.lock"

    /// Another process holds the lock.
    struct Held: Error, CustomStringConvertible {
        var directory: String
        /// The holder's process id, as it wrote it into the file (nil when unreadable).
        var holder: Int32?

        var description: String {
            let who = holder.map { "another fermatad (pid \($0))" } ?? "another fermatad"
            return "\(who) is using the state directory \(directory); stop it first (`systemctl stop fermata`), "
                + "or give this one its own --state"
        }
    }

    /// How taking the lock went, when nobody else holds it.
    enum Outcome {
        case locked(StateDirectoryLock)
        /// The file could not be opened or locked here: why, for one warning.
        case unavailable(reason: String)
    }

    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// Takes the lock on `directory` (created when missing) and writes this process's id into the file; throws `Held`
    /// when another process has it.
    static func acquire(in directory: String) throws(Held) -> Outcome {
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/" + fileName
        var fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if fd < 0 { fd = open(path, O_RDONLY | O_CLOEXEC) }  // a read-only disk: an existing file still locks
        guard fd >= 0 else { return .unavailable(reason: "cannot open \(path): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let error = errno
            let holder = readHolder(fd)
            close(fd)
            if error == EWOULDBLOCK { throw Held(directory: directory, holder: holder) }
            return .unavailable(reason: "cannot lock \(path): \(String(cString: strerror(error)))")
        }
        let text = Array("\(getpid())\n".utf8)
        if ftruncate(fd, 0) == 0 { _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } }
        return .locked(StateDirectoryLock(descriptor: fd))
    }

    /// The process id written in the lock file, if it reads as one.
    private static func readHolder(_ fd: Int32) -> Int32? {
        var bytes = [UInt8](repeating: 0, count: 16)
        let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: bytes[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
