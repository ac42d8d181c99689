import Foundation
import Testing
import TestSupport

extension WebE2ETests {
    /// Scenario g: screenshots of every page, phone and tablet, light and dark, for a person to look at.
    @Suite struct Screenshots {
        /// `{phone,tablet}-{light,dark}-{stand,library,queue,practice,cards,box,login}.png` in `$FERMATA_WEB_SHOTS` (or
        /// `<temp>/fermata-web-shots`), the box set up to look used (a section playing in its second pass, tempo, key,
        /// beat, sections, a queued section, a playlist, practice time, cards). The login page is opened at this
        /// machine's own address, so fermatad listens on 0.0.0.0 here (no password until the pictures of the form, then
        /// a random one: nobody can do anything through it meanwhile). The practice page ends with recording (no capture
        /// device here: the toggle says so); the pictures of recording with takes, `{phone,tablet}-{light,dark}-
        /// recording.png`, are `WebE2ETests.Recording`'s, written to the same folder.
        @Test(.enabled(if: WebPrograms.hasBrowser, "needs chromium, chromium-driver and python3-selenium (deploy/build-deps.sh)"))
        func everyPageInFourLooks() async throws {
            let folder = WebPrograms.shotsFolder
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try await WebDaemon.with(library: .shelf, webHost: "0.0.0.0") { daemon in
                var settings = daemon.settings
                settings["shots"] = folder
                try await Scripts.run("shots.py", settings)
            }
            let written = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            for size in ["phone", "tablet"] {
                for scheme in ["light", "dark"] {
                    for page in ["stand", "library", "queue", "practice", "cards", "box"] {
                        #expect(written.contains("\(size)-\(scheme)-\(page).png"), "\(size)-\(scheme)-\(page).png in \(folder)")
                    }
                }
            }
            print("web e2e: screenshots in \(folder)")
        }
    }
}
