import Foundation
import Testing
import TestSupport

extension WebE2ETests {
    /// Pages that come and go, and a network stream played from the page.
    @Suite struct Pages {
        /// 40 reloads of the stand in a row: each shows the status and gets its event stream within 10 s (a closed
        /// page's place among the 16 streams is free at once; before, the 17th reload was refused for up to 30 s and
        /// its stand stayed blank). Then 8 tabs in one browser all load (a hidden tab lets its stream go: a browser
        /// keeps 6 connections per host), and the first, shown again, follows the box.
        @Test(.enabled(if: WebPrograms.hasBrowser, "needs chromium, chromium-driver and python3-selenium (deploy/build-deps.sh)"))
        func fortyReloadsAndEightTabs() async throws {
            try await WebDaemon.with { daemon in
                try await Scripts.run("reloads.py", daemon.settings)
            }
        }

        /// A stream URL played from the queue page's field (`Tests/Tools/streams/hostile_server.py`: an endless MP3
        /// with ICY titles A and B): the stand shows the station and the title as it changes, no length, no seeking;
        /// "Add", a stored playlist of streams, and bad URLs refused with a 400. Screenshots of the stand playing it
        /// (`phone-{light,dark}-stand-stream.png` in the screenshots folder).
        @Test(.enabled(if: WebPrograms.hasBrowser, "needs chromium, chromium-driver and python3-selenium (deploy/build-deps.sh)"))
        func aStreamFromThePage() async throws {
            let folder = WebPrograms.shotsFolder
            try await WebDaemon.with { daemon in
                var settings = daemon.settings
                settings["shots"] = folder
                try await Scripts.run("stream.py", settings)
            }
            print("web e2e: stream screenshots in \(folder)")
        }
    }
}
