import AudioCore
import Foundation
import Synchronization
import Testing
import TestSupport

/// A real `fermatad` with a configuration of the test's choosing (`[output-NAME]` sections) on a library of two
/// 48 kHz 16-bit stereo tracks cut from one sweep, so playing them back to back gives `signal` exactly.
///
/// Created by one test; its methods are called from that test's task only (blocking work goes through `onThread`).
/// Sendable: the running `FermatadProcess` (replaced by each `start`) is in a `Mutex`, the rest is constant.
final class OutputDaemon: Sendable {
    static let rate = 48_000
    /// Frames of each track (3 s and 2.5 s: the cut falls mid-period).
    static let trackFrames = [144_000, 120_000]
    /// Both tracks' samples, interleaved stereo, right-justified 16-bit.
    static let signal: [Int32] = TestSignal.sweep(frames: trackFrames.reduce(0, +), channels: 2, bits: 16,
                                                  sampleRate: rate, seed: 11)
    /// `signal` as the little-endian bytes a 48000:16:2 device or FIFO receives.
    static let signalBytes: [UInt8] = signal.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }

    let root: TemporaryDirectory
    let state: String
    private let running = Mutex<FermatadProcess?>(nil)
    var port: Int { running.withLock { $0?.port ?? 0 } }
    var log: String { (try? String(contentsOfFile: state + "/fermatad.log", encoding: .utf8)) ?? "" }

    /// Writes the library and `config` (the text of fermata.toml; `$ROOT` is replaced by the temporary directory).
    init(config: String) throws {
        root = try TemporaryDirectory(prefix: "fermata-outputs")
        state = root.file("state")
        try FileManager.default.createDirectory(atPath: root.file("music"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        var start = 0
        for (index, frames) in Self.trackFrames.enumerated() {
            try FLACFixture.write(path: root.file("music/\(index + 1).flac"),
                                  samples: Array(Self.signal[(start * 2)..<((start + frames) * 2)]), channels: 2,
                                  bitsPerSample: 16, sampleRate: Self.rate, tags: ["TITLE": "Part \(index + 1)"])
            start += frames
        }
        try Data(config.replacingOccurrences(of: "$ROOT", with: root.path).utf8).write(to: root.url("fermata.toml"))
    }

    /// Starts the daemon (again, on the same state, its log appended) and waits until it answers and has scanned the
    /// library.
    func start() throws {
        let process = try FermatadProcess(
            arguments: ["--config", root.file("fermata.toml"), "--music", root.file("music"), "--state", state,
                        "--socket", state + "/mpd.sock"],
            port: TestSocket.freePort(), logPath: state + "/fermatad.log", environment: Programs.environment)
        running.withLock { $0 = process }
        guard process.waitUntilAnswering(within: Patience.stallSeconds) == .answering else {
            throw MPDTestClient.Failure(description: "fermatad did not start; log:\n\(log)")
        }
        let update = try Programs.run(Programs.mpc, ["-h", "127.0.0.1", "-p", String(port), "update", "--wait"])
        guard update.status == 0 else { throw MPDTestClient.Failure(description: "mpc update --wait: \(update)") }
    }

    /// SIGTERM and wait; the exit status (-1 when it had to be killed).
    func stop() -> Int32 {
        running.withLock { $0 }?.stop() ?? 0
    }

    /// `mpc -h 127.0.0.1 -p PORT ARGUMENTS...` (blocking; call through `onThread`).
    func mpc(_ arguments: String...) throws -> ProgramResult {
        try Programs.run(Programs.mpc, ["-h", "127.0.0.1", "-p", String(port)] + arguments)
    }

    /// One protocol command on a fresh connection (blocking).
    func command(_ line: String) throws -> MPDReply { try MPDTestClient(port: port).command(line) }

    /// Queues both tracks, plays them and waits for the stream to end (blocking).
    ///
    /// Waits on the daemon's own events rather than a fixed delay: a second connection, opened before `play`, keeps
    /// every player change from then on (a session's pending idle changes), so `idle player` returns for the start and
    /// for the end even when both came before it asked (the unpaced `file` capture plays the 5.5 s in a moment). After
    /// each, `status` says whether the stream has ended. The old fixed 200 ms before the first poll assumed playback
    /// had begun by then. Bounded by progress: each `idle` answer is one, and a read that gets nothing for
    /// `Patience.stallSeconds` fails; `ceiling` (seconds) only catches a stream that never ends. (It was 60 s in all,
    /// a bound on the daemon's work that a loaded machine could overrun.)
    func playBothToEnd(ceiling: Double = Patience.ceilingSeconds) throws {
        _ = try command("clear")
        _ = try command("add 1.flac")
        _ = try command("add 2.flac")
        let watcher = try MPDTestClient(port: port)
        _ = try command("play 0")
        let deadline = Date().addingTimeInterval(ceiling)
        while true {
            let changed = try watcher.command("idle player")
            guard changed["changed"] == "player" else { throw MPDTestClient.Failure(description: "idle answered \(changed)") }
            if try command("status")["state"] == "stop" { return }
            guard Date() < deadline else { throw MPDTestClient.Failure(description: "still playing after \(ceiling) s") }
        }
    }

    /// The attributes of output `id` from `outputs` (name → value).
    func attributes(ofOutput id: Int) throws -> [String: String] {
        let reply = try command("outputs")
        var current = -1
        var out: [String: String] = [:]
        for (key, value) in reply.pairs {
            if key == "outputid" { current = Int(value) ?? -1 }
            if key == "attribute" && current == id, let eq = value.firstIndex(of: "=") {
                out[String(value[..<eq])] = String(value[value.index(after: eq)...])
            }
        }
        return out
    }
}

/// Reads a FIFO on a thread of its own: everything, or `stallAfter` bytes and then nothing more while keeping it open
/// (a reader that stops reading). Any thread may call `bytes` and `finish` (the state is in a `Mutex`).
final class FIFOReader: Sendable {
    private struct State {
        var data: [UInt8] = []
        var done = false
    }

    private let state = Mutex(State())
    /// Reads until `finish`, then closes the FIFO; `finish` joins it.
    private let reader = WorkerThread()

    /// Creates the FIFO when missing and opens it (non-blocking, so no writer is needed yet).
    init(path: String, stallAfter: Int? = nil) throws {
        if access(path, F_OK) != 0 {
            guard mkfifo(path, 0o644) == 0 else { throw MPDTestClient.Failure(description: "mkfifo") }
        }
        let fd = open(path, O_RDONLY | O_NONBLOCK)
        guard fd >= 0 else { throw MPDTestClient.Failure(description: "open \(path): \(errno)") }
        reader.start(name: "fifo-reader") { [self] in
            loop(fd: fd, stallAfter: stallAfter)
            close(fd)
        }
    }

    private func loop(fd: Int32, stallAfter: Int?) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !state.withLock({ $0.done }) {
            let limit = stallAfter.map { max(0, $0 - bytes.count) } ?? buffer.count
            let n = limit == 0 ? -1 : read(fd, &buffer, min(limit, buffer.count))
            if n > 0 {
                state.withLock { $0.data += buffer[..<n] }
            } else {
                usleep(2_000)
            }
        }
    }

    var bytes: [UInt8] { state.withLock { $0.data } }

    /// Stops reading and closes the FIFO: returns once the reading thread has ended (blocking, briefly).
    func finish() {
        state.withLock { $0.done = true }
        reader.join()
    }
}

/// Where two byte arrays first differ (nil when equal), for readable failures.
func firstMismatch(_ a: [UInt8], _ b: [UInt8]) -> Int? {
    if let index = zip(a, b).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset { return index }
    return a.count == b.count ? nil : min(a.count, b.count)
}
