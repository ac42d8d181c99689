import Foundation
import TestSupport

/// The fault scenarios' part of the kernel lab (`TestSupport.KernelLab`): snd-aloop, a tmpfs with a size limit, and a
/// guest scenario run there as root against the built fermatad.
extension KernelLab {
    static let guest = guestFolder(of: "DaemonFaultTests")
    static let available = available(for: "DaemonFaultTests")

    /// Runs `guest/SCENARIO OUT FERMATAD` in the VM with `out` shared read-write; the lab's exit status and output.
    static func run(scenario: String, out: String, fermatad: String) async -> Run {
        await runInKernel(["-s", out, "-t", "120", guest + "/" + scenario, out, fermatad])
    }

    /// Runs `guest/SCENARIO OUT FERMATAD MODULES` with the lab kernel's loop and ext4 modules copied to `out/modules`
    /// (the lab's initramfs has neither): taken from the kernel package in the lab's cache, unpacked once per host.
    static func run(scenario: String, out: String, fermatad: String, withModules modules: [String]) async throws
        -> Run {
        try await copyModules(modules, to: out + "/modules")
        return await runInKernel(["-s", out, "-t", "120", guest + "/" + scenario, out, fermatad, out + "/modules"])
    }

    /// Copies `names` (.ko without the suffix) for the lab's kernel into `folder`.
    private static func copyModules(_ names: [String], to folder: String) async throws {
        let setup = URL(fileURLWithPath: script).deletingLastPathComponent().appendingPathComponent("setup.sh").path
        let paths = await run([setup, "--paths"])
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
            let unpack = await run(["/bin/sh", "-c", "rm -rf \(cache).tmp && mkdir -p \(cache).tmp && "
                + "dpkg-deb --fsys-tarfile \(package) | tar -x -C \(cache).tmp --wildcards \(patterns) && "
                + "find \(cache).tmp -name '*.ko' -exec mv {} \(cache).tmp/ \\; && "
                + "rm -rf \(cache) && mv \(cache).tmp \(cache)"])
            guard unpack.status == 0 else { throw FaultDaemon.Failure("modules from \(package): \(unpack)") }
        }
        try files.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in names { try files.copyItem(atPath: "\(cache)/\(name).ko", toPath: "\(folder)/\(name).ko") }
    }

    /// A fresh shared folder with an empty configuration and `music/a.wav`, `music/b.wav` (44.1 kHz stereo 16-bit
    /// silence, `seconds` long).
    static func prepareFolder(seconds: Int) throws -> TemporaryDirectory {
        let out = try TemporaryDirectory(prefix: "fermata-fault-kl")
        try "# fault tests: defaults only\n".write(toFile: out.file("fermata.toml"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: out.file("music"), withIntermediateDirectories: true)
        try KernelLab.writeSilence(out.file("music/a.wav"), seconds: seconds, sampleRate: 44_100, channels: 2)
        try FileManager.default.copyItem(atPath: out.file("music/a.wav"), toPath: out.file("music/b.wav"))
        return out
    }
}
