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
