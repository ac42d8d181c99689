import Foundation
import Testing
import TestSupport

/// The install script and the systemd unit, checked as a user's machine would see them.
@Suite struct DeployTests {
    static let project = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static var binaries: String { URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path }

    /// Runs `tool` to completion on a thread of its own (see `onThread`).
    func run(_ tool: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await onThread {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.reap()
            return (process.reapedTerminationStatus, output)
        }
    }

    @Test func installIntoARootPutsEveryFileInPlace() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binaries + "/fermatad"))
        let root = try TemporaryDirectory(prefix: "fermata-root")
        let (status, output) = try await run("/bin/bash", [Self.project + "/deploy/install.sh", "--root", root.path,
                                                     "--binaries", Self.binaries, "--board", "rpi-4"])
        #expect(status == 0, "\(output)")
        for file in ["usr/local/bin/fermatad", "usr/local/bin/fermata", "etc/systemd/system/fermata.service",
                     "etc/fermata/fermata.toml", "etc/fermata/board.toml", "etc/udev/rules.d/99-fermata-gpio.rules",
                     "etc/udev/rules.d/99-fermata-input.rules", "etc/fermata/boards/inputs/pcsensor-footswitch.toml",
                     "usr/local/share/doc/fermata/asound.conf.example", "etc/systemd/system/fermata-poweroff.path",
                     "etc/systemd/system/fermata-poweroff.service"] {
            #expect(FileManager.default.fileExists(atPath: root.file(file)), "\(file) installed")
        }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: root.file("usr/local/bin/fermatad")) == "fermata",
                "fermatad is the one program, fermata, called so")
        let config = try String(contentsOfFile: root.file("etc/fermata/fermata.toml"), encoding: .utf8)
        #expect(config.contains("music = \"/srv/music\""))
        #expect(output.contains("skip (--root): useradd --system --home-dir /var/lib/fermata"))
        #expect(output.contains("skip (--root): systemctl enable --now fermata.service fermata-poweroff.path"))
        // Idempotent: a second run keeps the edited configuration.
        try (config + "\n# edited\n").write(toFile: root.file("etc/fermata/fermata.toml"), atomically: true, encoding: .utf8)
        let again = try await run("/bin/bash", [Self.project + "/deploy/install.sh", "--root", root.path,
                                          "--binaries", Self.binaries, "--board", "rpi-4"])
        #expect(again.status == 0)
        #expect(try String(contentsOfFile: root.file("etc/fermata/fermata.toml"), encoding: .utf8).hasSuffix("# edited\n"))
        let removed = try await run("/bin/bash", [Self.project + "/deploy/install.sh", "--root", root.path, "--uninstall"])
        #expect(removed.status == 0)
        #expect(!FileManager.default.fileExists(atPath: root.file("usr/local/bin/fermatad")))
        #expect(!FileManager.default.fileExists(atPath: root.file("etc/systemd/system/fermata-poweroff.path")))
        #expect(FileManager.default.fileExists(atPath: root.file("var/lib/fermata")), "the state is kept")
    }

    @Test func dryRunChangesNothingAndPrintsEveryAction() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binaries + "/fermatad"))
        let root = try TemporaryDirectory(prefix: "fermata-dry")
        let (status, output) = try await run("/bin/bash", [Self.project + "/deploy/install.sh", "--dry-run", "--root", root.path,
                                                     "--binaries", Self.binaries, "--board", "pirate-audio"])
        #expect(status == 0, "\(output)")
        #expect(output.contains("+ install -m 0755 -D \(Self.binaries)/fermata \(root.path)/usr/local/bin/fermata"))
        #expect(output.contains("+ ln -sfn fermata \(root.path)/usr/local/bin/fermatad"), "one program: \(output)")
        #expect(output.contains("boards/pirate-audio.toml"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path).isEmpty)
        let unknown = try await run("/bin/bash", [Self.project + "/deploy/install.sh", "--dry-run", "--board", "toaster"])
        #expect(unknown.status == 2)
        #expect(unknown.output.contains("no board profile boards/toaster.toml"))
    }

    /// Issue 15: the board had two detectors that disagreed — install.sh matched "Orange Pi" anywhere in the model
    /// and installed the Orange Pi PC's pins on any Orange Pi, while the daemon's `board = "auto"` matched the
    /// profiles' `model` prefixes and found none. install.sh now asks `fermatad --detect-board`, the daemon's own rule.
    /// Failed on the old script: an Orange Pi Zero got orangepi-pc.
    @Test func installerAndDaemonPickTheSameBoard() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binaries + "/fermatad"))
        let cases = [("Xunlong Orange Pi PC\0", "orangepi-pc"), ("Xunlong Orange Pi Zero\0", "generic-40pin"),
                     ("Raspberry Pi 4 Model B Rev 1.5\0", "rpi-4"), ("Raspberry Pi 400 Rev 1.0\0", "rpi-4"),
                     ("Raspberry Pi 5 Model B Rev 1.0\0", "rpi-5"), ("Raspberry Pi Compute Module 4 Rev 1.1\0", "generic-40pin")]
        for (model, expected) in cases {
            let root = try TemporaryDirectory(prefix: "fermata-board")
            try FileManager.default.createDirectory(atPath: root.file("proc/device-tree"), withIntermediateDirectories: true)
            try model.write(toFile: root.file("proc/device-tree/model"), atomically: true, encoding: .utf8)
            let daemon = try await run(Self.binaries + "/fermatad", ["--detect-board", "--boards", Self.project + "/boards",
                                                                    "--model-file", root.file("proc/device-tree/model")])
            #expect(daemon.status == (expected == "generic-40pin" ? 1 : 0), "\(model): \(daemon.output)")
            if expected != "generic-40pin" { #expect(daemon.output == expected + "\n", "\(model)") }
            let install = try await run("/bin/bash", [Self.project + "/deploy/install.sh", "--dry-run", "--root", root.path,
                                                      "--binaries", Self.binaries])
            #expect(install.status == 0, "\(install.output)")
            #expect(install.output.contains("boards/\(expected).toml"), "\(model) → \(expected): \(install.output)")
        }
    }

    /// Issue 13: on a fresh clone (nothing built) `--dry-run` ran the unbuilt `.build/release/fermatad` to print its
    /// default configuration and exited 127. A clone of this repository's HEAD (only what is committed, no `.build`)
    /// must dry-run to the end and name the build it would do. Failed with status 127 on the old script.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/git")))
    func dryRunWorksOnAFreshClone() async throws {
        let folder = try TemporaryDirectory(prefix: "fermata-clone")
        let clone = folder.file("fermata")
        let cloned = try await run("/usr/bin/git", ["clone", "--quiet", Self.project, clone])
        try #require(cloned.status == 0, "git clone: \(cloned.output)")
        try #require(!FileManager.default.fileExists(atPath: clone + "/.build"), "a fresh clone has no build")
        let (status, output) = try await run("/bin/bash",
                                             [clone + "/deploy/install.sh", "--dry-run", "--board", "rpi-4"])
        #expect(status == 0, "\(output)")
        #expect(output.contains("+ swift build --package-path \(clone) -c release"), "\(output)")
        #expect(output.contains("+ install -m 0755 -D \(clone)/.build/release/fermata /usr/local/bin/fermata"), "\(output)")
        #expect(output.contains("+ ln -sfn fermata /usr/local/bin/fermatad"), "one program: \(output)")
        #expect(output.contains("fermatad --print-default-config"), "the configuration step is printed, not run")
        #expect(!FileManager.default.fileExists(atPath: clone + "/.build"), "a dry run builds nothing")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze")))
    func unitVerifiesAndItsExposureIsAtMostTwoAndAHalf() async throws {
        let dir = try TemporaryDirectory(prefix: "fermata-unit")
        var unit = try String(contentsOfFile: Self.project + "/deploy/fermata.service", encoding: .utf8)
        unit = unit.replacingOccurrences(of: "/usr/local/bin/fermatad", with: Self.binaries + "/fermatad")
        try unit.write(toFile: dir.file("fermata.service"), atomically: true, encoding: .utf8)
        let verify = try await run("/usr/bin/systemd-analyze", ["verify", dir.file("fermata.service")])
        #expect(!verify.output.contains("fermata.service:"), "systemd-analyze verify: \(verify.output)")
        let security = try await run("/usr/bin/systemd-analyze", ["security", "--offline=true", dir.file("fermata.service")])
        let line = security.output.split(separator: "\n").first { $0.contains("Overall exposure level") } ?? ""
        let exposure = line.split(separator: " ").compactMap { Double($0) }.first
        #expect(exposure != nil && exposure! <= 2.5, "exposure line: \(line)")
    }
}
