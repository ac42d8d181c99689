import Foundation
import TestSupport

/// The GPIO scenarios' part of the kernel lab (`TestSupport.KernelLab`): the guest scripts, the Raspberry Pi line
/// names gpio-sim is given, and the silence they play.
extension KernelLab {
    static let guest = guestFolder(of: "ControlsKernelTests")
    /// The Raspberry Pi profile's line names, in gpio-sim line order.
    static let piLines = ["GPIO4", "GPIO5", "GPIO6", "GPIO12", "GPIO13", "GPIO17", "GPIO23", "GPIO24", "GPIO27"]
    static let available = available(for: "ControlsKernelTests")

    /// Runs `command ARGS...` in the VM with the Raspberry Pi line names, `share` shared read-write.
    static func runScenario(share: String, command: [String]) async -> Run {
        await runInKernel(["-s", share, "-t", "300", "--label", "pinctrl-bcm2711", "--lines", "\(piLines.count)",
                           "--names", piLines.joined(separator: ",")] + command)
    }

    /// A WAV of silence (8 kHz, 16-bit mono) long enough for the seeks of the scenario.
    /// The fermatad `swift test` built beside the test bundle.
    static var builtFermatad: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("fermatad").path
    }

    /// A fresh scratch folder (the caller removes it) with `music/a.wav` and `music/b.wav`, 90 s of silence each:
    /// the library the real-daemon scenarios play.
    static func folderWithTwoSilentSongs() throws -> String {
        let out = try scratchFolder()
        try FileManager.default.createDirectory(atPath: out + "/music", withIntermediateDirectories: true)
        try writeSilence(out + "/music/a.wav", seconds: 90)
        try writeSilence(out + "/music/b.wav", seconds: 90)
        return out
    }

    static func writeSilence(_ path: String, seconds: Int) throws {
        try writeSilence(path, seconds: seconds, sampleRate: 8000, channels: 1)
    }
}
