import Foundation
import Synchronization
@testable import Library
import Testing
import TestSupport

/// MPD's `update DIR`: a scan of one folder sees only that folder; what changed elsewhere waits for its own scan, and
/// is neither added nor removed meanwhile.
@Suite("Scanning part of the library")
struct ScopedScanTests {
    /// Two album folders of the fixture that do not contain each other, and the files in the first.
    private static func albums(_ fixture: LibraryFixture) -> (inside: String, outside: String, count: Int) {
        let folders = Set(fixture.entries.map { ($0.path as NSString).deletingLastPathComponent }).sorted()
        let inside = folders[0], outside = folders[folders.count - 1]
        return (inside, outside, fixture.entries.count { $0.path.hasPrefix(inside + "/") })
    }

    @Test func aScanOfOneFolderChangesThatFolderOnly() async throws {
        let fixture = try LibraryFixture()
        let library = try fixture.openLibrary()
        _ = try await library.scan()
        let (inside, outside, count) = Self.albums(fixture)
        let goneOutside = try #require(fixture.entries.first { $0.path.hasPrefix(outside + "/") }).path
        try FileManager.default.removeItem(atPath: fixture.file(goneOutside))
        try fixture.addFLAC(inside + "/99 New.flac", seed: 9_001)
        try fixture.addFLAC(outside + "/99 Elsewhere.flac", seed: 9_002)

        let scoped = try await library.scan(under: inside + "/")
        #expect(scoped.filesSeen == count + 1)
        #expect(scoped.added == 1 && scoped.removed == 0)
        #expect(scoped.tracks == LibraryFixture.count + 1)
        #expect(try await library.track(path: inside + "/99 New.flac") != nil)
        #expect(try await library.track(path: goneOutside) != nil, "not this scan's to remove")
        #expect(try await library.track(path: outside + "/99 Elsewhere.flac") == nil)
        #expect(try await library.directory(outside) != nil)

        let whole = try await library.scan()
        #expect(whole.added == 1 && whole.removed == 1 && whole.tracks == LibraryFixture.count + 1)
    }

    @Test func aFolderDeletedSinceTheLastScanIsFoundGoneFromItsParent() async throws {
        let fixture = try LibraryFixture()
        let library = try fixture.openLibrary()
        _ = try await library.scan()
        let (inside, _, count) = Self.albums(fixture)
        try FileManager.default.removeItem(atPath: fixture.file(inside))

        let scoped = try await library.scan(under: inside)
        #expect(scoped.removed == count)
        #expect(scoped.tracks == LibraryFixture.count - count)
        #expect(try await library.directory(inside) == nil)
        let parent = (inside as NSString).deletingLastPathComponent
        #expect(scoped.filesSeen == fixture.entries.count { $0.path.hasPrefix(parent + "/") } - count)
    }

    @Test func aFileNamedScansItsFolderAndTheRootMeansEverything() async throws {
        let fixture = try LibraryFixture()
        let library = try fixture.openLibrary()
        _ = try await library.scan()
        let (inside, _, count) = Self.albums(fixture)
        let file = try #require(fixture.entries.first { $0.path.hasPrefix(inside + "/") }).path
        try fixture.touch(file)
        let one = try await library.scan(under: file)
        #expect(one.filesSeen == count && one.updated == 1)
        #expect(try await library.scan(under: "/").filesSeen == LibraryFixture.count)
        #expect(try await library.scan(under: "").filesSeen == LibraryFixture.count)
    }
}

/// Whoever sees a scan's phase `finished` finds that scan's summary as the last one (`scan_status` reads the two one
/// after the other; `fermata scan` failed a scan that had succeeded when it read "finished" before the summary was
/// kept, as a loaded CI run showed).
@Suite("Scan end")
struct ScanEndTests {
    @Test func theFinishedPhaseComesAfterItsSummary() async throws {
        let fixture = try LibraryFixture()
        let library = try fixture.openLibrary()
        let stop = Atomic<Bool>(false)
        let mismatches = Atomic<Int>(0)
        let watcher = Thread {
            while !stop.load(ordering: .relaxed) {
                let progress = library.progress
                guard progress.phase == .finished else { continue }
                if (library.lastScan?.job ?? 0) < progress.job { mismatches.add(1, ordering: .relaxed) }
            }
        }
        watcher.start()
        for _ in 0..<40 { _ = try await library.scan() }
        stop.store(true, ordering: .relaxed)
        #expect(mismatches.load(ordering: .relaxed) == 0)
    }
}
