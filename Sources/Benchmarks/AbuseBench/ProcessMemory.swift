import AudioCore
import Glibc

/// Memory figures of one process from /proc/PID/status, in KiB.
struct MemoryReading: Sendable {
    /// VmRSS: resident memory, shared libraries' pages included.
    var rss: Int
    /// RssAnon: the process's own heap and stacks (MPD's RSS is mostly shared libraries, so this compares better).
    var anon: Int
    /// VmHWM: the peak of VmRSS since the process started or since `resetPeak`.
    var peak: Int

    /// Reads the process's figures; nil once it has gone.
    static func of(_ pid: Int32) -> MemoryReading? {
        guard let text = readSmallFile("/proc/\(pid)/status") else { return nil }
        var reading = MemoryReading(rss: -1, anon: -1, peak: -1)
        for line in text.split(separator: "\n") {
            if line.hasPrefix("VmRSS:") { reading.rss = kibibytes(line) }
            else if line.hasPrefix("RssAnon:") { reading.anon = kibibytes(line) }
            else if line.hasPrefix("VmHWM:") { reading.peak = kibibytes(line) }
        }
        return reading.rss < 0 ? nil : reading
    }

    /// Sets VmHWM back to the current VmRSS (`clear_refs` value 5); false where the kernel refuses it.
    @discardableResult
    static func resetPeak(_ pid: Int32) -> Bool {
        let fd = open("/proc/\(pid)/clear_refs", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "5", 1) == 1
    }

    private static func kibibytes(_ line: Substring) -> Int {
        Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
    }
}

/// Reads a /proc file (a few KiB) without Foundation, so polling it every few milliseconds stays cheap.
func readSmallFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes = [UInt8](repeating: 0, count: 8192)
    let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    guard n > 0 else { return nil }
    return String(decoding: bytes[0..<n], as: UTF8.self)
}

/// Watches a daemon's memory while a scenario runs: resets VmHWM at the start (so the kernel's own peak covers
/// exactly the scenario, however short a spike), and polls VmRSS and RssAnon every 5 ms for the anonymous peak,
/// which the kernel does not keep.
///
/// Threads: `start` and `finish` from the scenario's thread; the polling runs on its own.
struct MemoryWatch {
    /// The peaks seen during the scenario, in KiB.
    struct Peaks: Sendable {
        var rss: Int
        var anon: Int
        /// Whether VmHWM could be reset (otherwise `rss` is the polled peak only).
        var kernelPeak: Bool
    }

    private let pid: Int32
    private let stop = StopFlag()
    private let kernelPeak: Bool
    private let poller: BackgroundWork<Peaks>

    init(pid: Int32) {
        self.pid = pid
        kernelPeak = MemoryReading.resetPeak(pid)
        let stop = stop
        let kernelPeak = kernelPeak
        poller = BackgroundWork(name: "memory-watch") {
            var peaks = Peaks(rss: 0, anon: 0, kernelPeak: kernelPeak)
            repeat {
                if let reading = MemoryReading.of(pid) {
                    peaks.rss = max(peaks.rss, reading.rss)
                    peaks.anon = max(peaks.anon, reading.anon)
                }
                MonotonicClock.sleep(seconds: 0.005)
            } while !stop.isRaised
            return peaks
        }
    }

    func finish() -> Peaks {
        stop.raise()
        var peaks = poller.join()
        if kernelPeak, let reading = MemoryReading.of(pid) { peaks.rss = max(peaks.rss, reading.peak) }
        return peaks
    }
}
