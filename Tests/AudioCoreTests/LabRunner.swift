import Foundation
import TestSupport

/// ../shared/kernel-lab for this target's clock test: whether it can run here, and one run of it.
/// (ControlsKernelTests has a fuller helper; test targets cannot share code outside TestSupport.)
/// Any task may call `run`; runs take turns with the other suites' VMs through `OneAtATime.kernelLab`.
enum LabRunner {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("shared/kernel-lab/run-in-kernel.sh").path

    /// Whether the lab can run here (FERMATA_KERNEL_TESTS=0 opts out, as for the other kernel tests); prints why not.
    static let available: Bool = {
        if ProcessInfo.processInfo.environment["FERMATA_KERNEL_TESTS"] == "0" { return false }
        guard FileManager.default.isExecutableFile(atPath: script) else {
            print("SKIP kernel-lab tests: no kernel lab at \(script)")
            return false
        }
        let check = runBlocking(["--check"])
        if check.status != 0 { print("SKIP kernel-lab tests: \(check.output)\(check.errors)") }
        return check.status == 0
    }()

    /// `run-in-kernel.sh ARGUMENTS...` to completion, on a thread of its own.
    static func run(_ arguments: [String]) async -> (status: Int32, output: String, errors: String) {
        await OneAtATime.kernelLab.run {
            (try? await onThread { runBlocking(arguments) }) ?? (127, "", "no thread")
        }
    }

    /// Output into files, not pipes: nothing to drain while waiting.
    private static func runBlocking(_ arguments: [String]) -> (status: Int32, output: String, errors: String) {
        guard let folder = try? TemporaryDirectory(prefix: "fermata-lab") else { return (127, "", "no folder") }
        _ = FileManager.default.createFile(atPath: folder.file("out"), contents: nil)
        _ = FileManager.default.createFile(atPath: folder.file("err"), contents: nil)
        guard let out = FileHandle(forWritingAtPath: folder.file("out")),
              let err = FileHandle(forWritingAtPath: folder.file("err")) else { return (127, "", "no output files") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder.path)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        do { try process.run() } catch { return (127, "", "\(error)") }
        process.reap()
        try? out.close()
        try? err.close()
        let read = { (name: String) in (try? String(contentsOfFile: folder.file(name), encoding: .utf8)) ?? "" }
        return (process.reapedTerminationStatus, read("out"), read("err"))
    }
}
