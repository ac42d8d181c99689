import Foundation
import TestSupport

/// ../shared/kernel-lab for the fault tests: boots a real Linux kernel (snd-aloop, tmpfs with a size limit) and runs a
/// guest scenario there as root against the built fermatad. The `--check` answer is computed once per process; the
/// other members are called from the tests' tasks.
enum KernelLab {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let script = repository.deletingLastPathComponent()
        .appendingPathComponent("shared/kernel-lab/run-in-kernel.sh").path
    static let guest = repository.appendingPathComponent("Tests/DaemonFaultTests/guest").path

    /// Whether the lab can run here; prints the reason when it cannot (the tests then skip).
    /// FERMATA_KERNEL_TESTS=0 opts out.
    static let available: Bool = {
        if ProcessInfo.processInfo.environment["FERMATA_KERNEL_TESTS"] == "0" {
            print("SKIP DaemonFaultTests (kernel lab): FERMATA_KERNEL_TESTS=0")
            return false
        }
        guard FileManager.default.isExecutableFile(atPath: script) else {
            print("SKIP DaemonFaultTests (kernel lab): no kernel lab at \(script)")
            return false
        }
        let result = runBlocking([script, "--check"])
        if result.status != 0 { print("SKIP DaemonFaultTests (kernel lab): \(result.output)") }
        return result.status == 0
    }()

    /// Runs `guest/SCENARIO OUT FERMATAD` in the VM with `out` shared read-write; the lab's exit status and output.
    static func run(scenario: String, out: String, fermatad: String) async throws -> FaultDaemon.Result {
        try await OneAtATime.kernelLab.run {
            try await onThread { runBlocking([script, "-s", out, "-t", "120", guest + "/" + scenario, out, fermatad]) }
        }
    }

    /// Runs `guest/SCENARIO OUT FERMATAD MODULES` with the lab kernel's loop and ext4 modules copied to `out/modules`
    /// (the lab's initramfs has neither): taken from the kernel package in the lab's cache, unpacked once per host.
    static func run(scenario: String, out: String, fermatad: String, withModules modules: [String]) async throws
        -> FaultDaemon.Result {
        try await onThread { try copyModules(modules, to: out + "/modules") }
        return try await OneAtATime.kernelLab.run {
            try await onThread {
                runBlocking([script, "-s", out, "-t", "120", guest + "/" + scenario, out, fermatad, out + "/modules"])
            }
        }
    }

    /// Copies `names` (.ko without the suffix) for the lab's kernel into `folder`.
    private static func copyModules(_ names: [String], to folder: String) throws {
        let setup = URL(fileURLWithPath: script).deletingLastPathComponent().appendingPathComponent("setup.sh").path
        let paths = runBlocking([setup, "--paths"])
        func value(_ key: String) -> String? {
            let line = paths.output.split(separator: "\n").first { $0.hasPrefix(key + "=") }
            return line.map { String($0.dropFirst(key.count + 1)) }
        }
        guard let vmlinux = value("VMLINUX"), let kver = value("KVER") else {
            throw FaultDaemon.Failure("setup.sh --paths: \(paths.output)")
        }
        let package = URL(fileURLWithPath: vmlinux).deletingLastPathComponent()
            .appendingPathComponent("linux-image.deb").path
        let cache = "/tmp/fermata-kl-modules-\(kver)"
        let files = FileManager.default
        if !names.allSatisfy({ files.fileExists(atPath: "\(cache)/\($0).ko") }) {
            let patterns = names.map { "'*/\($0).ko'" }.joined(separator: " ")
            let unpack = runBlocking(["/bin/sh", "-c", "rm -rf \(cache).tmp && mkdir -p \(cache).tmp && "
                + "dpkg-deb --fsys-tarfile \(package) | tar -x -C \(cache).tmp --wildcards \(patterns) && "
                + "find \(cache).tmp -name '*.ko' -exec mv {} \(cache).tmp/ \\; && "
                + "rm -rf \(cache) && mv \(cache).tmp \(cache)"])
            guard unpack.status == 0 else { throw FaultDaemon.Failure("modules from \(package): \(unpack.output)") }
        }
        try files.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in names { try files.copyItem(atPath: "\(cache)/\(name).ko", toPath: "\(folder)/\(name).ko") }
    }

    private static func runBlocking(_ arguments: [String]) -> FaultDaemon.Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return FaultDaemon.Result(status: 127, output: "", errors: "\(error)") }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.reap()
        return FaultDaemon.Result(status: process.reapedTerminationStatus, output: text, errors: "")
    }

    /// A fresh shared folder with an empty configuration and `music/a.wav`, `music/b.wav` (44.1 kHz stereo 16-bit
    /// silence, `seconds` long).
    static func prepareFolder(seconds: Int) throws -> TemporaryDirectory {
        let out = try TemporaryDirectory(prefix: "fermata-fault-kl")
        try "# fault tests: defaults only\n".write(toFile: out.file("fermata.toml"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: out.file("music"), withIntermediateDirectories: true)
        let frames = 44_100 * seconds
        var data = Data("RIFF".utf8)
        func le<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
        }
        le(UInt32(36 + frames * 4))
        data.append(Data("WAVEfmt ".utf8))
        // fmt: 16 bytes, PCM, 2 channels, 44.1 kHz, bytes per second, 4-byte frames, 16 bits.
        le(UInt32(16)); le(UInt16(1)); le(UInt16(2)); le(UInt32(44_100)); le(UInt32(44_100 * 4))
        le(UInt16(4)); le(UInt16(16))
        data.append(Data("data".utf8))
        le(UInt32(frames * 4))
        data.append(Data(count: frames * 4))
        for name in ["a.wav", "b.wav"] { try data.write(to: out.url("music/" + name)) }
        return out
    }

    /// The scenario's "key value…" lines, by key (a key written twice keeps the last).
    static func results(_ path: String) -> [String: [String]] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        var values: [String: [String]] = [:]
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            if let key = words.first { values[key] = Array(words.dropFirst()) }
        }
        return values
    }
}
