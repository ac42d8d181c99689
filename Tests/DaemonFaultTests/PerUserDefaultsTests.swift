import Foundation
import Glibc
import Testing
import TestSupport

/// `fermatad` started by hand by a normal user, with no configuration file: it used to say "ready" and stop (the
/// system's `/srv/music`, `/var/lib/fermata` and `/run/fermata` are the service's, not the user's). It now keeps its
/// state under `~/.local/state/fermata`, its socket under `$XDG_RUNTIME_DIR/fermata`, plays `~/Music`, and `fermata`
/// finds it with no flags. Run as `nobody` through `setpriv` (the test process is root here; elsewhere it is skipped).
@Suite struct PerUserDefaultsTests {
    @Test func aNormalUserWithNoConfigurationGetsPlacesOfTheirOwn() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: FaultDaemon.binary), "`swift build` builds fermatad")
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
              !FileManager.default.fileExists(atPath: "/etc/fermata/fermata.toml") else { return }
        let dir = try TemporaryDirectory(prefix: "fermata-user")
        let home = dir.file("home"), runtime = dir.file("home/run")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        for path in [dir.path, home, runtime] { chown(path, 65534, 65534) }
        chmod(dir.path, 0o755)
        let environment = "env -i HOME=\(home) XDG_RUNTIME_DIR=\(runtime) PATH=/usr/bin:/bin"
        let asNobody = "setpriv --reuid=65534 --regid=65534 --clear-groups \(environment)"
        let fermata = FaultDaemon.binary.replacingOccurrences(of: "/fermatad", with: "/fermata")
        // fermatad in the background as nobody; `fermata status` as nobody, with no flags, once the socket is there.
        let tries = Int(Patience.stallSeconds * 10)  // 0.1 s apart
        let script = """
            \(asNobody) \(FaultDaemon.binary) --output null --listen "" > \(dir.file("fermatad.log")) 2>&1 &
            daemon=$!
            for _ in $(seq 1 \(tries)); do [ -S \(runtime)/fermata/mpd.sock ] && break; sleep 0.1; done
            \(asNobody) \(fermata) status; status=$?
            kill -TERM $daemon; wait $daemon; echo "fermatad exit $?"; exit $status
            """
        // Hang detectors only (the start above, the whole run here): a loaded machine can take many seconds to start
        // a debug build, and the old 30 s and 60 s were bounds it could overrun.
        let run = try await FaultDaemon.run("/bin/sh", ["-c", script], environment: ["PATH": "/usr/bin:/bin"],
                                            timeout: Patience.ceilingSeconds)
        let log = (try? String(contentsOfFile: dir.file("fermatad.log"), encoding: .utf8)) ?? ""
        #expect(run.status == 0, "\(run)\n\(log)")
        #expect(run.output.hasPrefix("stopped  queue: 0 songs"), "\(run)")
        #expect(run.output.contains("fermatad exit 0"), "\(run)\n\(log)")
        #expect(FileManager.default.fileExists(atPath: home + "/.local/state/fermata/library.sqlite"), "\(log)")
        #expect(log.contains("music directory \(home)/Music is missing"), "\(log)")
    }
}
