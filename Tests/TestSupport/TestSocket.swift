import Glibc
import Synchronization

/// Connected client sockets for the tests' protocol clients: a failure leaves nothing open, and success hands the
/// caller the only owner of the descriptor.
///
/// Why this exists: a class whose stored properties are all set runs its `deinit` when its initialiser then throws or
/// returns nil. The clients used to close the descriptor on a refused `connect` and again in `deinit`; the second
/// `close` hit whatever another thread had opened under that number meanwhile (CI saw Foundation's run-loop epoll
/// descriptor go that way, then a crash in `Process.run`). Clients call these before storing the descriptor and close
/// it only in `deinit`. Descriptors are close-on-exec, so child processes never hold a test's connection open.
/// Any thread may call them.
public enum TestSocket {
    /// Why a connection could not be made (the errno text).
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// A TCP port on 127.0.0.1 that nothing listens on now, for a daemon under test to listen on.
    ///
    /// Taken below the kernel's ephemeral range (32768 and up): a port the kernel picks for port 0 comes from that
    /// range, so a client's outgoing connection (an `mpc` run, a status poll) could take it as its local port before the
    /// daemon binds it (CI saw "Address already in use"). A process-wide counter keeps two tests from getting the same
    /// port; a bind check skips ports something else holds.
    public static func freePort() -> Int {
        while true {
            let port = nextPort.withLock { next in
                defer { next = next >= 32_000 ? 20_000 : next + 1 }
                return next
            }
            if canBind(port) { return port }
        }
    }

    private static let nextPort = Mutex(20_000 + Int(getpid() % 10_000))

    private static func canBind(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var reuse: Int32 = 1  // as the daemon binds: a port in TIME_WAIT is usable
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// A TCP connection to 127.0.0.1:`port`; `receiveBuffer` shrinks SO_RCVBUF first (to make a server's output back up).
    public static func connect(port: Int, receiveBuffer: Int32? = nil) throws(Failure) -> Int32 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return try connect(family: AF_INET, to: &address, what: "127.0.0.1:\(port)") { fd in
            if var size = receiveBuffer {
                setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            }
        }
    }

    /// A connection to the Unix socket at `path`.
    public static func connect(unixPath path: String) throws(Failure) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw Failure(description: "\(path): path too long for a Unix socket")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        return try connect(family: AF_UNIX, to: &address, what: path) { _ in }
    }

    private static func connect<Address>(
        family: Int32, to address: inout Address, what: String, prepare: (Int32) -> Void
    ) throws(Failure) -> Int32 {
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        prepare(fd)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<Address>.size))
            }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Failure(description: "connect \(what): \(reason)")
        }
        return fd
    }
}
