import Foundation
import Glibc
import Testing
import TestSupport

/// The web remote's life inside the real fermatad: it never takes the jukebox down with it, and it never holds the
/// jukebox's stop.
@Suite struct WebLifecycleTests {
    /// A port another program holds at start (or an address the board has not been given yet at boot): the jukebox
    /// starts and answers MPD clients, the failure is logged once, and the web remote listens as soon as the port is
    /// free. Then, with a page's event stream open, SIGTERM stops the daemon with status 0 and nothing logged as an
    /// error: the stream ends, the server drains (before, the server was cancelled under the open stream and logged
    /// "Waiting on child channel: CancellationError()" and "Server shutdown error" at every stop).
    @Test func aTakenPortWaitsAndAStopClosesTheStreams() async throws {
        let root = try TemporaryDirectory(prefix: "fermata-web-life")
        // The holder binds a port the kernel picks, and keeps it: a "free" port looked up first may be another
        // suite's by the time it is bound (a CI-like run: errno 98).
        let held = try Self.listenOnAFreePort()
        var holder = held.fd
        let webPort = held.port
        defer { if holder >= 0 { close(holder) } }
        try FileManager.default.createDirectory(atPath: root.file("music"), withIntermediateDirectories: true)
        let daemon = try FermatadProcess(
            arguments: ["--music", root.file("music"), "--state", root.file("state"), "--output", "null",
                        "--socket", "", "--board", "off", "--web", "127.0.0.1:\(webPort)"],
            port: TestSocket.freePort(), logPath: root.file("fermatad.log"))
        try #require(try await onThread { daemon.waitUntilAnswering(within: Patience.stallSeconds) } == .answering,
                     "\(daemon.log)")
        let refused = try await Patience.wait { daemon.log.contains("web remote: cannot listen on 127.0.0.1:\(webPort)") }
        #expect(refused, "the failure is logged\n\(daemon.log)")
        #expect(MPDTestClient.answers(port: daemon.port), "the jukebox goes on")

        close(holder)
        holder = -1
        let listening = try await Patience.wait { daemon.log.contains("web remote on http://127.0.0.1:\(webPort)/") }
        #expect(listening, "it listens once the port is free\n\(daemon.log)")
        #expect(daemon.log.components(separatedBy: "cannot listen").count == 2, "logged once\n\(daemon.log)")

        let stream = try await onThread { try Self.openEvents(port: webPort) }
        defer { close(stream) }
        #expect(stream >= 0)
        let status = try await onThread { daemon.stop() }
        #expect(status == 0, "\(daemon.log)")
        let stopLines = daemon.log.split(separator: "\n").drop { !$0.contains("web remote on") }
        #expect(!stopLines.contains { $0.contains(" error ") || $0.contains(" critical ") },
                "a stop with a page open logs no error:\n\(stopLines.joined(separator: "\n"))")
    }

    /// A socket listening on 127.0.0.1 at a port the kernel picked, as another program holding the port; its port.
    static func listenOnAFreePort() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(bound == 0 && Glibc.listen(fd, 4) == 0, "holding a port: errno \(errno)")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        try #require(named == 0, "getsockname: errno \(errno)")
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A connection reading `GET /api/events`, once its first event (the status) has arrived.
    static func openEvents(port: Int) throws -> Int32 {
        let fd = try TestSocket.connect(port: port)
        var timeout = timeval(tv_sec: Int(Patience.stallSeconds), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        var received = ""
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !received.contains("event: status") {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else {
                close(fd)
                throw Stalled(description: "the event stream ended or stalled: \(received)")
            }
            received += String(decoding: buffer[..<count], as: UTF8.self)
        }
        return fd
    }
}
