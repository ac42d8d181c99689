import Foundation

/// ../shared/kernel-lab: a real Linux kernel (gpio-sim, ALSA loopback cards, a size-limited tmpfs) booted in a VM to
/// run a command as root. Whether it can run here is asked once per process (`--check`); runs take turns
/// (`OneAtATime.kernelLab`) and each waits on a thread of its own (a run takes minutes; the test pool must stay free).
/// The one helper of the kernel-lab suites (ControlsKernelTests, DaemonFaultTests, the doorbell clock test); each
/// adds only its own scenarios.
///
/// Threads: any task.
public enum KernelLab {
    /// What a command printed and how it ended.
    public struct Run: Sendable, CustomStringConvertible {
        public var status: Int32
        public var output: String
        public var errors: String
        public var description: String { "exit \(status)\nstdout: \(output)\nstderr: \(errors)" }
    }

    /// The project's top folder.
    public static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    public static let script = repository.deletingLastPathComponent()
        .appendingPathComponent("shared/kernel-lab/run-in-kernel.sh").path
    public static let boards = repository.appendingPathComponent("boards").path

    /// A test target's guest scripts (`Tests/TARGET/guest`).
    public static func guestFolder(of target: String) -> String {
        repository.appendingPathComponent("Tests/\(target)/guest").path
    }

    /// Why the lab cannot run here, or nil when it can. Runs by default (a VM boot is a few seconds, plus the lab's
    /// one-time set-up); FERMATA_KERNEL_TESTS=0 opts out on a machine where that is too slow.
    private static let unavailable: String? = {
        if ProcessInfo.processInfo.environment["FERMATA_KERNEL_TESTS"] == "0" { return "FERMATA_KERNEL_TESTS=0" }
        guard FileManager.default.isExecutableFile(atPath: script) else { return "no kernel lab at \(script)" }
        let check = runBlocking([script, "--check"])
        guard check.status != 0 else { return nil }
        return (check.output + check.errors).trimmingCharacters(in: .whitespacesAndNewlines)
    }()

    /// Whether the lab can run here; prints why not, naming `suite`, when it cannot (its tests then skip).
    public static func available(for suite: String) -> Bool {
        guard let reason = unavailable else { return true }
        print("SKIP \(suite) (kernel lab): \(reason)")
        return false
    }

    /// `run-in-kernel.sh ARGUMENTS...` to completion.
    public static func runInKernel(_ arguments: [String]) async -> Run {
        await run([script] + arguments)
    }

    /// `arguments[0]` with the rest to completion, taking its turn with the lab's VMs (a host-side build the VM
    /// needs takes the same turn).
    public static func run(_ arguments: [String]) async -> Run {
        await OneAtATime.kernelLab.run {
            (try? await onThread { runBlocking(arguments) }) ?? Run(status: 127, output: "", errors: "no thread")
        }
    }

    /// Output into files, not pipes: nothing to drain while waiting.
    private static func runBlocking(_ arguments: [String]) -> Run {
        func failed(_ why: String) -> Run { Run(status: 127, output: "", errors: why) }
        guard let folder = try? TemporaryDirectory(prefix: "fermata-lab") else { return failed("no folder") }
        let files = FileManager.default
        guard files.createFile(atPath: folder.file("out"), contents: nil),
              files.createFile(atPath: folder.file("err"), contents: nil),
              let out = FileHandle(forWritingAtPath: folder.file("out")),
              let err = FileHandle(forWritingAtPath: folder.file("err")) else { return failed("no output files") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.currentDirectoryURL = URL(fileURLWithPath: folder.path)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        do { try process.run() } catch { return failed("\(error)") }
        process.reap()
        try? out.close()
        try? err.close()
        let read = { (name: String) in (try? String(contentsOfFile: folder.file(name), encoding: .utf8)) ?? "" }
        return Run(status: process.reapedTerminationStatus, output: read("out"), errors: read("err"))
    }

    /// A fresh folder under /tmp for one scenario's files (shared with the VM; kept for a look after a failure).
    public static func scratchFolder() throws -> String {
        var template = Array("/tmp/fermata-kl-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        return String(cString: made)
    }

    /// A guest scenario's "key value…" lines, by key (a key written twice keeps the last).
    public static func results(_ path: String) -> [String: [String]] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        var values: [String: [String]] = [:]
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            if let key = words.first { values[key] = Array(words.dropFirst()) }
        }
        return values
    }

    /// A WAV of 16-bit silence, `seconds` long.
    public static func writeSilence(_ path: String, seconds: Int, sampleRate: Int, channels: Int) throws {
        let frameBytes = 2 * channels
        let bytes = sampleRate * seconds * frameBytes
        var data = Data("RIFF".utf8)
        func le<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
        }
        le(UInt32(36 + bytes))
        data.append(Data("WAVEfmt ".utf8))
        // fmt: 16 bytes, PCM, channels, rate, bytes per second, frame size, 16 bits.
        le(UInt32(16)); le(UInt16(1)); le(UInt16(channels)); le(UInt32(sampleRate))
        le(UInt32(sampleRate * frameBytes)); le(UInt16(frameBytes)); le(UInt16(16))
        data.append(Data("data".utf8))
        le(UInt32(bytes))
        data.append(Data(count: bytes))
        try data.write(to: URL(fileURLWithPath: path))
    }
}
