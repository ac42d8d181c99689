import Foundation
import TestSupport

/// ../shared/kernel-lab: boots a real Linux kernel with a simulated GPIO chip (gpio-sim) and runs a command in it.
/// Used by the tests on their own task; the `--check` answer is computed once per process.
enum KernelLab {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let script = repository.deletingLastPathComponent()
        .appendingPathComponent("shared/kernel-lab/run-in-kernel.sh").path
    static let guest = repository.appendingPathComponent("Tests/ControlsKernelTests/guest").path
    static let boards = repository.appendingPathComponent("boards").path
    /// The Raspberry Pi profile's line names, in gpio-sim line order.
    static let piLines = ["GPIO4", "GPIO5", "GPIO6", "GPIO12", "GPIO13", "GPIO17", "GPIO23", "GPIO24", "GPIO27"]

    /// Whether the lab can run here; prints the reason when it cannot (the tests then skip).
    static let available: Bool = {
        // Runs by default (about 40 s per libgpiod variant, plus a one-time v2 build and the lab's first set-up);
        // FERMATA_KERNEL_TESTS=0 opts out on a machine where that is too slow.
        if ProcessInfo.processInfo.environment["FERMATA_KERNEL_TESTS"] == "0" {
            print("SKIP ControlsKernelTests: FERMATA_KERNEL_TESTS=0")
            return false
        }
        guard FileManager.default.isExecutableFile(atPath: script) else {
            print("SKIP ControlsKernelTests: no kernel lab at \(script)")
            return false
        }
        let result = runBlocking([script, "--check"])
        if result.status != 0 {
            let reason = (result.output + result.errors).trimmingCharacters(in: .whitespacesAndNewlines)
            print("SKIP ControlsKernelTests: \(reason)")
        }
        return result.status == 0
    }()

    /// Runs `command ARGS...` in the VM with the Raspberry Pi line names, `share` shared read-write.
    static func runScenario(share: String, command: [String]) async -> (status: Int32, output: String, errors: String) {
        await run([script, "-s", share, "-t", "300", "--label", "pinctrl-bcm2711", "--lines", "\(piLines.count)",
             "--names", piLines.joined(separator: ",")] + command)
    }

    /// Runs `arguments` to completion on a thread of its own (the lab takes minutes; the test pool must stay free).
    static func run(_ arguments: [String], environment: [String: String]? = nil) async
        -> (status: Int32, output: String, errors: String) {
        await OneAtATime.kernelLab.run {
            (try? await onThread { runBlocking(arguments, environment: environment) }) ?? (127, "", "no thread")
        }
    }

    private static func runBlocking(_ arguments: [String], environment: [String: String]? = nil)
        -> (status: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        if let environment { process.environment = environment }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return (127, "", "\(error)") }
        // Read both pipes concurrently so neither fills up.
        let errorText = ErrorReader(errors.fileHandleForReading)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.reap()
        return (process.reapedTerminationStatus, text, errorText.finish())
    }

    /// A fresh folder under /tmp for one scenario's files.
    static func scratchFolder() throws -> String {
        var template = Array("/tmp/fermata-kl-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        return String(cString: made)
    }

    /// A WAV of silence (8 kHz, 16-bit mono) long enough for the seeks of the scenario.
    static func writeSilence(_ path: String, seconds: Int) throws {
        let frames = 8000 * seconds
        var data = Data("RIFF".utf8)
        func le<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
        }
        le(UInt32(36 + frames * 2))
        data.append(Data("WAVEfmt ".utf8))
        // PCM, mono, 8000 Hz, 16000 bytes/s, 2-byte frames, 16 bits.
        for value in [UInt32(16)] { le(value) }
        for value: UInt16 in [1, 1] { le(value) }
        for value: UInt32 in [8000, 16000] { le(value) }
        for value: UInt16 in [2, 16] { le(value) }
        data.append(Data("data".utf8))
        le(UInt32(frames * 2))
        data.append(Data(count: frames * 2))
        try data.write(to: URL(fileURLWithPath: path))
    }
}

/// Drains a pipe on a thread of its own.
final class ErrorReader: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }.start()
    }

    func finish() -> String {
        done.wait()
        return String(decoding: data, as: UTF8.self)
    }
}
