import Foundation
import Testing
import TestSupport

/// The web remote in a real browser: the built `fermatad` with its web remote on, driven by headless Chromium
/// (Debian's chromium and chromium-driver through python3-selenium) from the scripts in `browser/`, its state read back
/// over the MPD port. Each script prints one JSON line of checks; each check is an expectation here, so a failure
/// names what the page or the daemon did wrong. One test at a time (the nested suites below inherit it): a browser
/// and a daemon each, on a 2-core machine. Every wait in the scripts ends on a condition, bounded only by
/// `Patience.stallSeconds` as a hang detector; a script as a whole by `Patience.ceilingSeconds`.
@Suite(.serialized, .timeLimit(.minutes(30)))
struct WebE2ETests {}

extension WebE2ETests {
    /// Scenarios a and b: the music stand's controls, and an MPD client's changes on the page.
    @Suite struct Stand {
        /// Every control of the stand pressed, the daemon's state read back over MPD after each (status,
        /// loop_status, sections, tempo, metronome; the count-in from GET /api/status, which MPD cannot read).
        @Test(.enabled(if: WebPrograms.hasBrowser, "needs chromium, chromium-driver and python3-selenium (deploy/build-deps.sh)"))
        func everyControlChangesTheDaemon() async throws {
            try await WebDaemon.with { daemon in
                try await Scripts.run("stand.py", daemon.settings)
            }
        }

        /// `pause`, `setvol 40`, `loop_set 1 2`, `play`, `loop_clear` from an MPD client show on the open page
        /// (server-sent events; the page asks for nothing meanwhile).
        @Test(.enabled(if: WebPrograms.hasBrowser, "needs chromium, chromium-driver and python3-selenium (deploy/build-deps.sh)"))
        func anMPDClientsChangesShowOnThePage() async throws {
            try await WebDaemon.with { daemon in
                try await Scripts.run("mpd_to_page.py", daemon.settings)
            }
        }
    }

    /// Scenario c: browsing a library of 20,000 tracks a page at a time.
    @Suite struct Library {
        static let tracks = 20_000

        /// An artist found by scrolling, its album added; an album inserted next; a search; a folder added — each
        /// checked in MPD's queue; no answer longer than a page. The library's generation and scan are timed (they
        /// are what the test costs CI beside the browser: a few seconds each on the 2-core machine).
        @Test(.enabled(if: WebPrograms.hasBrowser, "needs chromium, chromium-driver and python3-selenium (deploy/build-deps.sh)"))
        func browseAndQueueFromTwentyThousandTracks() async throws {
            try await WebDaemon.with(library: .big, tracks: Self.tracks) { daemon in
                print("web e2e: \(Self.tracks) tracks written in \(String(format: "%.1f", daemon.generation)) s, "
                          + "scanned in \(String(format: "%.1f", daemon.scan)) s")
                #expect(daemon.songs == Self.tracks, "the scan found \(daemon.songs) songs")
                try await Scripts.run("library.py", daemon.settings)
            }
        }
    }

    /// Scenarios d and e: the practice page and the cards page.
    @Suite struct PracticeAndCards {
        /// Practice time seeded by playing a loop; the chart (SVG) has today's bar; a section saved from the loop and
        /// edited on the page (name, ends, passes, tempo), MPD's `sections` following; the stand shows its pass.
        @Test(.enabled(if: WebPrograms.hasBrowser, "needs chromium, chromium-driver and python3-selenium (deploy/build-deps.sh)"))
        func sectionsAndTheChart() async throws {
            try await WebDaemon.with { daemon in
                try await Scripts.run("practice.py", daemon.settings)
            }
        }

        /// A card learned for an album (`cardread 0001234567` over MPD as the reader), listed by MPD's `cards`; a
        /// learn stopped from the page; an unknown card assigned from the page.
        @Test(.enabled(if: WebPrograms.hasBrowser, "needs chromium, chromium-driver and python3-selenium (deploy/build-deps.sh)"))
        func learnACard() async throws {
            try await WebDaemon.with { daemon in
                try await Scripts.run("cards.py", daemon.settings)
            }
        }
    }
}

extension WebE2ETests {
    /// Recording yourself on the practice page (`recording.py`).
    @Suite struct Recording {
        /// The daemon as the tests start it, no `record.device`: the Record toggle is shown, says there is no capture
        /// device, and turning it on is refused in words (409); MPD's `record` stays off.
        @Test(.enabled(if: WebPrograms.hasBrowser, "needs chromium, chromium-driver and python3-selenium (deploy/build-deps.sh)"))
        func withNoCaptureDeviceTheToggleSaysSo() async throws {
            try await WebDaemon.with { daemon in
                var settings = daemon.settings
                settings["capture"] = false
                settings["shots"] = try Self.shots()
                try await Scripts.run("recording.py", settings)
            }
        }

        /// A capture device paced in real time with no sound card, as `RecordingServiceTests` does it but through the
        /// built fermatad: alsa-lib's `file` capture reading a FIFO the script feeds 10 ms of noise every 10 ms at
        /// the music's rate and channels (`ALSA_CONFIG_PATH` names the configuration that defines it). Turned on from the page while a 2 s loop plays, takes are
        /// kept and the page lists them under the loop (date, pass, tempo, length); Play queues the take alone,
        /// Alternate the original and the take twice (MPD's queue says so), Together (the slider at 70 %) the
        /// original's loop with the take over it, Delete asks first and then removes it.
        /// `{phone,tablet}-{light,dark}-recording.png` in scenario g's folder show the takes listed.
        @Test(.enabled(if: WebPrograms.hasBrowser, "needs chromium, chromium-driver and python3-selenium (deploy/build-deps.sh)"))
        func takesRecordedFromThePageAreListedAndPlayed() async throws {
            let config = WebDaemon.Config(
                toml: { _ in "[record]\ndevice = \"pacedcap\"\nbudget_mb = 64\n" },
                environment: { root in ["ALSA_CONFIG_PATH": root + "/asoundrc"] },
                files: { root in ["asoundrc": Self.captureConfig(fifo: root + "/capture.fifo")] })
            try await WebDaemon.with(config: config) { daemon in
                var settings = daemon.settings
                settings["capture"] = true
                settings["fifo"] = (daemon.state as NSString).deletingLastPathComponent + "/capture.fifo"
                settings["shots"] = try Self.shots()
                try await Scripts.run("recording.py", settings)
            }
        }

        /// Where the recording part's pictures go: scenario g's folder (`WebScreenshotTests`).
        static func shots() throws -> String {
            try FileManager.default.createDirectory(atPath: WebPrograms.shotsFolder, withIntermediateDirectories: true)
            return WebPrograms.shotsFolder
        }

        /// alsa-lib's configuration of the paced capture: `pacedcap` reads the FIFO.
        static func captureConfig(fifo: String) -> String {
            """
            pcm.pacednull { type null }
            pcm.pacedcap { type file slave.pcm "pacednull" file "/dev/null" infile "\(fifo)" format "raw" }

            """
        }
    }
}
