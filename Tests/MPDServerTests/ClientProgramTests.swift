import FermataCore
import Foundation
import TestSupport
import MPDProtocol
import MPDServer
import MPDTestSupport
import Testing

/// Real MPD clients against the server with the in-memory backend: `mpc` (Debian `mpc`) and python-mpd2
/// (Debian `python3-mpd`). Each test is skipped when its client is not installed.
@Suite(.serialized) struct ClientProgramTests {
    static let mpc = "/usr/bin/mpc"
    static let python = "/usr/bin/python3"

    static var hasMPC: Bool { FileManager.default.isExecutableFile(atPath: mpc) }
    static var hasPythonMPD: Bool {
        (try? run(python, ["-c", "import mpd"]).status) == 0
    }

    @Test(.enabled(if: hasMPC)) func mpcStatusAndFriends() async throws {
        let harness = try await ServerHarness.start()
        _ = try await harness.backend.editQueue(.add(.uri("", recursive: true), at: .end))
        try await harness.backend.perform(.playEntry(2))
        try await harness.backend.perform(.seek(seconds: 13))
        let port = String(harness.port)
        let status = try await onThread { try Self.run(Self.mpc, ["-h", "127.0.0.1", "-p", port, "status"]) }
        #expect(status.status == 0)
        #expect(
            status.output == """
                J. S. Bach - Allemande
                [playing] #2/5   0:13/4:00 (5%)
                volume:100%   repeat: off   random: off   single: off   consume: off

                """)
        let more = try await onThread { () -> [String] in
            let mpc = { (args: [String]) throws -> String in
                try Self.run(Self.mpc, ["-h", "127.0.0.1", "-p", port] + args).output
            }
            return [
                try mpc(["volume", "40"]), try mpc(["repeat", "on"]), try mpc(["playlist"]), try mpc(["ls", "Bach"]),
                try mpc(["list", "album"]), try mpc(["outputs"]), try mpc(["version"]),
            ]
        }
        #expect(more[0].contains("volume: 40%"))
        #expect(more[1].contains("repeat: on"))
        #expect(
            more[2]
                == "J. S. Bach - Prelude\nJ. S. Bach - Allemande\nJ. S. Bach - Aria\n"
                + "Erik Satie - Gymnopédie No. 1\nUnknown - Loose\n"
        )
        #expect(more[3] == "Bach/Cello Suites\nBach/Goldberg\n")
        #expect(more[4] == "Cello Suites\nGoldberg Variations\nGymnopédies\nSingles\n")
        #expect(more[5] == "Output 1 (ALSA default) is enabled\n\tdop=\"0\"\nOutput 2 (Null) is disabled\n")
        #expect(more[6] == "mpd version: 0.24.0\n")
        try await harness.stop()
    }

    @Test(.enabled(if: hasPythonMPD)) func pythonMPD2Session() async throws {
        let harness = try await ServerHarness.start()
        await harness.backend.setPicture(
            uri: "loose.wav", bytes: (0..<20_000).map { UInt8($0 % 251) }, mime: "image/png")
        let script = """
            import mpd, sys, threading
            c = mpd.MPDClient()
            c.connect("127.0.0.1", \(harness.port))
            assert c.mpd_version == "0.24.0", c.mpd_version
            c.add("Bach")
            c.command_list_ok_begin()
            c.setvol(30)
            c.status()
            c.playlistinfo()
            r = c.command_list_end()
            assert r[1]["volume"] == "30" and len(r[2]) == 3, r
            pic = c.readpicture("loose.wav")
            assert pic["type"] == "image/png" and len(pic["binary"]) == 20000, len(pic["binary"])
            assert pic["binary"] == bytes(i % 251 for i in range(20000))
            try:
                c.playid(99)
                sys.exit("no error")
            except mpd.CommandError as e:
                assert str(e) == "[50@0] {playid} No such song", str(e)
            assert "mixer" in c.idle()  # our own setvol, kept for the next idle as MPD does
            def change_volume():
                c2 = mpd.MPDClient(); c2.connect("127.0.0.1", \(harness.port)); c2.setvol(55); c2.disconnect()
            threading.Timer(0.3, change_volume).start()
            assert c.idle("mixer") == ["mixer"]
            assert c.status()["volume"] == "55"
            print("python-mpd2 ok")
            """
        let result = try await onThread { try Self.run(Self.python, ["-c", script]) }
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.hasSuffix("python-mpd2 ok\n"))
        try await harness.stop()
    }

    /// Runs a program to completion; returns its exit status and standard output plus error.
    static func run(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.environment = ["LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"]
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.reap()
        return (process.reapedTerminationStatus, String(decoding: data, as: UTF8.self))
    }
}
