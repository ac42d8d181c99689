import Foundation
import Glibc
import Testing
import TestSupport

/// deploy/build-for-board.sh and installing its artifact: the 16 KiB page-alignment check the Raspberry Pi 5 needs,
/// the build command and artifact name it announces, and install.sh taking the artifact instead of building.
@Suite struct BoardBuildTests {
    static let project = DeployTests.project
    static let script = project + "/deploy/build-for-board.sh"

    func run(_ tool: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await DeployTests().run(tool, arguments)
    }

    /// The Debian release and architecture the tests run on (and the programs were built for): this machine's on
    /// amd64 CI, trixie × arm64 in Tests/Tools/arm64-test-run.sh's emulated root.
    struct Host {
        var release: String
        var arch: String
        /// The ELF machine readelf names for `arch`, and the other architecture with its ELF machine.
        var machine: String { arch == "arm64" ? "AArch64" : "X86-64" }
        var otherArch: String { arch == "arm64" ? "amd64" : "arm64" }
        var glibc: String { release == "bookworm" ? "2.36" : "2.41" }

        static var current: Host {
            let osRelease = (try? String(contentsOfFile: "/etc/os-release", encoding: .utf8)) ?? ""
            let codename = osRelease.split(separator: "\n").first { $0.hasPrefix("VERSION_CODENAME=") }
                .map { String($0.dropFirst("VERSION_CODENAME=".count)) } ?? "bookworm"
            var name = utsname()
            uname(&name)
            let machine = withUnsafeBytes(of: &name.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            return Host(release: codename == "trixie" ? "trixie" : "bookworm", arch: machine == "aarch64" ? "arm64" : "amd64")
        }
    }

    @Test func alignmentCheckPassesOnTheBuiltProgramsAndFailsOnA4KiBLinkedOne() async throws {
        let built = ["fermatad", "fermata"].map { DeployTests.binaries + "/" + $0 }
        for binary in built { try #require(FileManager.default.isExecutableFile(atPath: binary), "built \(binary)") }
        let good = try await run("/bin/bash", [Self.script, "--check-alignment"] + built)
        #expect(good.status == 0, "\(good.output)")
        #expect(good.output.components(separatedBy: "aligned to >= 0x4000").count == 3, "\(good.output)")

        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/cc"), "a C compiler (build-essential)")
        let dir = try TemporaryDirectory(prefix: "fermata-align")
        try "int main(void) { return 0; }\n".write(toFile: dir.file("tiny.c"), atomically: true, encoding: .utf8)
        let cc = try await run("/usr/bin/cc", ["-Wl,-z,max-page-size=4096", "-o", dir.file("tiny"), dir.file("tiny.c")])
        try #require(cc.status == 0, "\(cc.output)")
        let bad = try await run("/bin/bash", [Self.script, "--check-alignment", dir.file("tiny")])
        #expect(bad.status == 1, "\(bad.output)")
        #expect(bad.output.contains("LOAD segment aligned to 0x001000, below 0x4000")
                    || bad.output.contains("LOAD segment aligned to 0x1000, below 0x4000"), "\(bad.output)")
    }

    /// What was built is checked against the target: the architecture, the newest glibc symbol against the release's
    /// glibc, and that the programs start. A program needing a glibc newer than the release's (here a stand-in
    /// library versioned GLIBC_2.99, as a build against a newer Debian would be) is refused, and so is another
    /// architecture.
    @Test func targetCheckPassesTheBuiltProgramsAndRefusesAWrongArchitectureOrANewerGlibc() async throws {
        let built = ["fermatad", "fermata"].map { DeployTests.binaries + "/" + $0 }
        let host = Host.current
        let good = try await run("/bin/bash", [Self.script, "--check-target", host.release, host.arch] + built)
        #expect(good.status == 0, "\(good.output)")
        #expect(good.output.components(separatedBy: "(<= \(host.glibc) for \(host.release)), starts (--help)").count == 3,
                "\(good.output)")
        let other = try await run("/bin/bash", [Self.script, "--check-target", "trixie", host.otherArch, built[1]])
        #expect(other.status == 1 && other.output.contains("\(host.machine), not \(host.otherArch)"), "\(other.output)")

        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/cc"), "a C compiler (build-essential)")
        let dir = try TemporaryDirectory(prefix: "fermata-glibc")
        try "int fake(void) { return 1; }\n".write(toFile: dir.file("fake.c"), atomically: true, encoding: .utf8)
        try "GLIBC_2.99 { global: fake; local: *; };\n".write(toFile: dir.file("v.map"), atomically: true, encoding: .utf8)
        try "int fake(void);\nint main(void) { return fake() - 1; }\n"
            .write(toFile: dir.file("main.c"), atomically: true, encoding: .utf8)
        let library = try await run("/usr/bin/cc", ["-shared", "-fPIC", "-Wl,--version-script=" + dir.file("v.map"),
                                                    "-o", dir.file("libfake.so"), dir.file("fake.c")])
        try #require(library.status == 0, "\(library.output)")
        let program = try await run("/usr/bin/cc", ["-o", dir.file("newer"), dir.file("main.c"), "-L" + dir.path, "-lfake",
                                                    "-Wl,-rpath," + dir.path])
        try #require(program.status == 0, "\(program.output)")
        let newer = try await run("/bin/bash", [Self.script, "--check-target", "trixie", host.arch, dir.file("newer")])
        #expect(newer.status == 1 && newer.output.contains("needs GLIBC_2.99, newer than trixie's 2.41"), "\(newer.output)")
    }

    @Test func dryRunPrintsTheBuildCommandsAndTheArtifactName() async throws {
        let native = try await run("/bin/bash", [Self.script, "--dry-run", "--out", "/tmp/fermata-dist"])
        #expect(native.status == 0, "\(native.output)")
        #expect(native.output.contains("+ swift build --package-path \(Self.project) -c release -j 2 "
            + "--static-swift-stdlib --product fermata\n"), "\(native.output)")
        #expect(!native.output.contains("--product fermatad"), "one program, fermata: \(native.output)")
        let name = #"(?s)artifact: /tmp/fermata-dist/fermata-[0-9a-z.-]+-(bookworm|trixie)-(amd64|arm64)\.tar\.gz\n.*"#
        #expect(native.output.matches(name), "\(native.output)")
        let cross = try await run("/bin/bash", [Self.script, "--dry-run", "--swift-sdk", "debian-trixie-arm64",
                                                "--release", "trixie", "--arch", "aarch64", "--out", "/tmp/d"])
        #expect(cross.status == 0, "\(cross.output)")
        // A cross-build has a scratch path of its own, so it never mixes with the host's `.build`.
        #expect(cross.output.contains("--static-swift-stdlib --scratch-path \(Self.project)/.build-cross-trixie-arm64 "
            + "--swift-sdk debian-trixie-arm64 --product fermata\n"), "\(cross.output)")
        #expect(cross.output.contains("-trixie-arm64.tar.gz"), "\(cross.output)")
        let missing = try await run("/bin/bash", [Self.script, "--dry-run", "--swift-sdk", "x"])
        #expect(missing.status == 2 && missing.output.contains("needs --release"), "\(missing.output)")
    }

    @Test func installTakesAPrebuiltArtifact() async throws {
        let dir = try TemporaryDirectory(prefix: "fermata-artifact")
        let top = dir.file("fermata-test-bookworm-amd64")
        try FileManager.default.createDirectory(atPath: top + "/bin", withIntermediateDirectories: true)
        // A stand-in for the program (the real one is tens of MB in a debug build), which as fermatad prints a
        // configuration; bin/fermatad is a link to it, as build-for-board.sh makes it.
        let path = top + "/bin/fermata"
        try "#!/bin/sh\necho '# fermata stand-in'\necho '#music = \"/srv/music\"'\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        try FileManager.default.createSymbolicLink(atPath: top + "/bin/fermatad", withDestinationPath: "fermata")
        for folder in ["boards", "deploy"] {
            try FileManager.default.copyItem(atPath: Self.project + "/" + folder, toPath: top + "/" + folder)
        }
        try FileManager.default.copyItem(atPath: Self.project + "/README.md", toPath: top + "/README.md")
        try "bookworm amd64 test-1\n".write(toFile: top + "/TARGET", atomically: true, encoding: .utf8)
        let tar = try await run("/bin/tar", ["-C", dir.path, "-czf", dir.file("a.tar.gz"),
                                             "fermata-test-bookworm-amd64"])
        try #require(tar.status == 0, "\(tar.output)")
        let root = try TemporaryDirectory(prefix: "fermata-root-artifact")

        let dry = try await run("/bin/bash", [Self.project + "/deploy/install.sh", "--dry-run", "--root", root.path,
                                              "--from-artifact", dir.file("a.tar.gz"), "--board", "rpi-5"])
        #expect(dry.status == 0, "\(dry.output)")
        #expect(dry.output.contains("artifact: Fermata test-1 for bookworm/amd64"), "\(dry.output)")
        #expect(!dry.output.contains("swift build"), "no build from an artifact: \(dry.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path).isEmpty, "dry run changed nothing")

        let real = try await run("/bin/bash", [Self.project + "/deploy/install.sh", "--root", root.path,
                                               "--from-artifact", dir.file("a.tar.gz"), "--board", "rpi-5"])
        #expect(real.status == 0, "\(real.output)")
        let installed = try String(contentsOfFile: root.file("usr/local/bin/fermatad"), encoding: .utf8)
        #expect(installed.contains("fermata stand-in"), "the artifact's program, not a build: \(installed)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: root.file("usr/local/bin/fermatad")) == "fermata")
        #expect(try String(contentsOfFile: root.file("etc/fermata/fermata.toml"), encoding: .utf8)
            .contains("music = \"/srv/music\""))
        #expect(!real.output.contains("systemctl restart"), "a first install only starts: \(real.output)")
        let upgrade = try await run("/bin/bash", [Self.project + "/deploy/install.sh", "--root", root.path,
                                                  "--from-artifact", dir.file("a.tar.gz"), "--board", "rpi-5"])
        #expect(upgrade.output.contains("skip (--root): systemctl restart fermata.service"),
                "replacing the binaries restarts the daemon: \(upgrade.output)")
        #expect(FileManager.default.fileExists(atPath: root.file("etc/fermata/board.toml")))

        try "trixie arm64 test-2\n".write(toFile: top + "/TARGET", atomically: true, encoding: .utf8)
        _ = try await run("/bin/tar", ["-C", dir.path, "-czf", dir.file("b.tar.gz"), "fermata-test-bookworm-amd64"])
        let wrong = try await run("/bin/bash", [Self.project + "/deploy/install.sh", "--dry-run", "--root", root.path,
                                                "--from-artifact", dir.file("b.tar.gz")])
        #expect(wrong.status == 2 && wrong.output.contains("built for trixie/arm64, this system is bookworm"),
                "\(wrong.output)")
    }
}

extension String {
    /// Whether the whole string matches `pattern`.
    func matches(_ pattern: String) -> Bool {
        guard let regex = try? Regex(pattern) else { return false }
        return wholeMatch(of: regex) != nil
    }
}
