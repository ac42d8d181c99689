import Dispatch
import MPDProtocol
import Synchronization
import TestSupport

/// The in-process mode of `MPDTestClient`: the protocol session (`ConnectionSession` and `CommandExecutor`, through
/// `SessionDriver`) over an `InMemoryBackend`, with no socket and no server. What a real connection would carry goes
/// through it byte for byte: the greeting, each complete line's answer, and an `idle`'s answer when the backend
/// publishes a change (read waits for it up to the timeout, as a socket would).
///
/// Sendable: the session lives in an actor, the bytes not read yet in a `Mutex`. Blocking like a socket: call it off
/// the cooperative pool (`onThread`), since each line waits for the session's task.
public final class MPDSessionTransport: MPDTestTransport {
    /// Owns the session; one line at a time.
    private actor Host {
        var driver: SessionDriver
        init(_ driver: sending SessionDriver) { self.driver = driver }
        func feed(_ line: [UInt8]) async -> (output: [UInt8], closed: Bool) {
            var driver = self.driver
            let output = await driver.feed(line)
            self.driver = driver
            return (output, driver.closed)
        }
        func deliverPublished() -> (output: [UInt8], closed: Bool) { (driver.deliverPublished(), driver.closed) }
    }

    /// What the server side has written and the test has not read, and what the test has written short of a newline.
    private struct Buffers {
        var unread: [UInt8] = []
        var partialLine: [UInt8] = []
        var closed = false
        var timeout: Double
    }

    private let host: Host
    private let buffers: Mutex<Buffers>
    /// Signalled by the backend's change callback, so a read waiting for an idle answer looks again.
    private let published = DispatchSemaphore(value: 0)

    /// A fresh session over `backend`, its greeting ready to read. `timeout`: how long a read waits for an answer
    /// that is not there yet (an `idle`'s), by default the sockets' `Patience.stallSeconds`.
    public init(backend: InMemoryBackend = InMemoryBackend(), config: SessionConfig = SessionConfig(),
                timeout: Double = Patience.stallSeconds) {
        let published = published
        let driver = SessionDriver(backend: backend, config: config) { published.signal() }
        host = Host(driver)
        buffers = Mutex(Buffers(unread: ConnectionSession.greeting, timeout: timeout))
    }

    public func setTimeout(_ seconds: Double) { buffers.withLock { $0.timeout = seconds } }

    public func write(_ bytes: [UInt8]) throws(MPDTestClient.Failure) {
        let lines = buffers.withLock { buffers -> [[UInt8]] in
            buffers.partialLine += bytes
            var lines: [[UInt8]] = []
            while let newline = buffers.partialLine.firstIndex(of: 0x0A) {
                lines.append(Array(buffers.partialLine[..<newline]))
                buffers.partialLine.removeSubrange(...newline)
            }
            return lines
        }
        for line in lines {
            let host = host
            let (output, closed) = Self.blocking { await host.feed(line) }
            buffers.withLock { buffers in
                buffers.unread += output
                buffers.closed = buffers.closed || closed
            }
        }
    }

    public func read() throws(MPDTestClient.Failure) -> [UInt8] {
        let timeout = buffers.withLock { $0.timeout }
        let deadline = DispatchTime.now() + timeout
        while true {
            let host = host
            let (output, closed) = Self.blocking { await host.deliverPublished() }
            let taken = buffers.withLock { buffers -> [UInt8]? in
                buffers.unread += output
                buffers.closed = buffers.closed || closed
                defer { buffers.unread = [] }
                return buffers.unread.isEmpty && !buffers.closed ? nil : buffers.unread
            }
            if let taken { return taken }
            guard published.wait(timeout: deadline) == .success else {
                throw MPDTestClient.Failure(description: "read timed out")
            }
        }
    }

    /// Runs `work` as a task and waits for it on this thread (which must not be one of the pool's).
    private static func blocking<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
        let result = Outcome<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            let value = await work()
            result.value.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.value.withLock { $0! }
    }

    private final class Outcome<T: Sendable>: Sendable {
        let value = Mutex<T?>(nil)
    }
}
