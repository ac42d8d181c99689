import DatabaseFile
import Decoders
import Foundation
@testable import Library
import Testing
import TestSupport

@Suite("Library scan")
struct ScanTests {
    @Test("a first scan finds every file with its tags; a rescan without changes opens nothing")
    func firstScanAndNoChangeRescan() async throws {
        let fixture = try LibraryFixture()
        let library = try fixture.openLibrary()
        let first = try await library.scan()
        #expect(first.added == LibraryFixture.count)
        #expect(first.filesSeen == LibraryFixture.count)
        #expect(first.filesOpened == LibraryFixture.count)
        #expect(first.tracks == LibraryFixture.count)
        #expect(first.issues == 0)
        #expect(library.progress.phase == .finished)
        #expect(library.progress.filesSeen == LibraryFixture.count)

        for entry in fixture.entries {
            let track = try #require(try await library.track(path: entry.path), "\(entry.path)")
            #expect(track.format == entry.format)
            #expect(track.artist == entry.artist)
            #expect(track.album == entry.album)
            #expect(track.title == entry.title)
            #expect(track.trackNumber == entry.track)
            #expect(track.genre == entry.genre)
            #expect(track.duration != nil)
            #expect(track.directory == (entry.path as NSString).deletingLastPathComponent)
        }
        let flac = try #require(try await library.track(path: fixture.entries[3].path))
        #expect(flac.albumArtist == fixture.entries[3].artist)
        #expect(flac.discNumber == 1)
        #expect(flac.date == "2001")
        #expect(flac.composer == "Composer 1")
        #expect(flac.bpm == 120)
        #expect(flac.replayGain.trackGain == -3.5)
        #expect(flac.replayGain.trackPeak == 0.9)
        #expect(flac.duration == 0.25)
        #expect(flac.sampleRate == 8_000 && flac.channels == 1 && flac.bitsPerSample == 16)
        #expect(flac.fingerprint.hasPrefix("flac-md5:"))
        let wav = try #require(try await library.track(path: fixture.entries[LibraryFixture.flacCount].path))
        #expect(wav.date == "2002")
        #expect(wav.fingerprint.hasPrefix("wav:"))
        let ogg = try #require(try await library.track(path: fixture.entries[LibraryFixture.count - 1].path))
        #expect(ogg.fingerprint.hasPrefix("vorbis:"))

        let again = try await library.scan()
        #expect(again.filesOpened == 0)
        #expect(again.filesSeen == LibraryFixture.count)
        #expect(again.unchanged == LibraryFixture.count)
        #expect(again.added == 0 && again.updated == 0 && again.removed == 0)
        #expect(again.tracks == LibraryFixture.count)
    }

    @Test("touching, deleting and adding 1 % each gives exact counts")
    func onePercentChanges() async throws {
        let fixture = try LibraryFixture()
        let library = try fixture.openLibrary()
        _ = try await library.scan()
        let onePercent = LibraryFixture.count / 100
        let touched = [fixture.entries[10].path, fixture.entries[180].path]
        let deleted = [fixture.entries[20].path, fixture.entries[199].path]
        #expect(touched.count == onePercent && deleted.count == onePercent)
        let trash = try TemporaryDirectory()

        for path in touched { try fixture.touch(path) }
        var summary = try await library.scan()
        #expect(summary.updated == onePercent && summary.filesOpened == onePercent)
        #expect(summary.added == 0 && summary.removed == 0)

        for (index, path) in deleted.enumerated() { try fixture.move(path, to: trash.file("\(index)")) }
        summary = try await library.scan()
        #expect(summary.removed == onePercent && summary.filesOpened == 0)
        #expect(summary.added == 0 && summary.updated == 0)
        #expect(summary.tracks == LibraryFixture.count - onePercent)
        #expect(try await library.track(path: deleted[0]) == nil)

        try fixture.addFLAC("New Artist/New Album/01 One.flac", seed: 9_001, tags: ["TITLE": "One"])
        try fixture.addFLAC("New Artist/New Album/02 Two.flac", seed: 9_002, tags: ["TITLE": "Two"])
        summary = try await library.scan()
        #expect(summary.added == onePercent && summary.filesOpened == onePercent)
        #expect(summary.updated == 0 && summary.removed == 0 && summary.identitiesRestored == 0)
        #expect(summary.tracks == LibraryFixture.count)

        // All three at once.
        try fixture.touch(fixture.entries[30].path, seconds: 20)
        try fixture.touch(fixture.entries[31].path, seconds: 20)
        try fixture.move(fixture.entries[40].path, to: trash.file("a"))
        try fixture.move(fixture.entries[41].path, to: trash.file("b"))
        try fixture.addFLAC("New Artist/New Album/03 Three.flac", seed: 9_003)
        try fixture.addFLAC("New Artist/Other/01 Four.flac", seed: 9_004)
        summary = try await library.scan()
        #expect(summary.updated == 2 && summary.removed == 2 && summary.added == 2)
        #expect(summary.filesOpened == 4)
        #expect(summary.tracks == LibraryFixture.count)
    }

    @Test("a full scan rereads everything and changes nothing")
    func fullScan() async throws {
        let fixture = try LibraryFixture()
        let library = try fixture.openLibrary()
        let first = try await library.scan()
        let before = try await library.track(path: fixture.entries[5].path)
        let full = try await library.scan(.full)
        #expect(full.filesOpened == first.filesOpened)
        #expect(full.updated == LibraryFixture.count && full.added == 0 && full.removed == 0)
        #expect(try await library.track(path: fixture.entries[5].path)?.identityID == before?.identityID)
        // 200 changed tracks: the search index was rebuilt once rather than edited row by row.
        #expect(try await library.fullTextSearch("submarine").map(\.title) == ["Yellow Submarine"])
        #expect(try await library.fullTextSearch("title").count == 100)
        // Combining marks (an accent typed apart from its letter, or marks alone): the search answers, never an FTS5
        // error (a word the tokenizer cut in two was sent as a phrase, which `detail=none` refuses).
        #expect(try await library.fullTextSearch("Submari\u{301}ne").map(\.title) == ["Yellow Submarine"])
        #expect(try await library.fullTextSearch("sub\u{20DD}marine yel\u{488}low").isEmpty)
        #expect(try await library.fullTextSearch("\u{301}\u{302}\u{20DD}").isEmpty)
        #expect(LibrarySearch.tokens("sub\u{20DD}marine e\u{301}te\u{301}") == ["sub", "marine", "\u{E9}t\u{E9}"])
    }

    @Test("a music directory that cannot be listed fails the scan and removes nothing")
    func missingMusicDirectory() async throws {
        let fixture = try LibraryFixture()
        _ = try await fixture.openLibrary().scan()
        let elsewhere = Library(database: try FermataDatabase(stateDirectory: fixture.state.path, schema: .library),
                                musicDirectory: fixture.state.path + "/no-such-dir")
        await #expect(throws: LibraryError.self) { try await elsewhere.scan() }
        #expect(try await elsewhere.count().first?.songs == LibraryFixture.count)
        #expect(elsewhere.progress.phase == .failed)
    }

    @Test("scans wait for each other and are numbered like MPD update jobs")
    func concurrentScans() async throws {
        let fixture = try LibraryFixture()
        let library = try fixture.openLibrary()
        async let first = library.scan()
        async let second = library.scan()
        let (a, b) = try await (first, second)
        #expect(Set([a.job, b.job]) == [1, 2])
        #expect(a.added + b.added == LibraryFixture.count)
        #expect(min(a.filesOpened, b.filesOpened) == 0)
    }

    @Test("a cancelled scan stops, keeps what it committed and removes nothing")
    func cancelled() async throws {
        let fixture = try LibraryFixture()
        let library = try fixture.openLibrary()
        _ = try await library.scan()
        try FileManager.default.removeItem(atPath: fixture.file(fixture.entries[0].path))
        let settings = Scanner.Settings(root: fixture.music.path, mode: .incremental, job: 9, readers: 2, walkers: 2,
                                        niceness: 0)
        let scanner = Scanner(database: library.database, settings: settings, progress: ScanProgressSource())
        scanner.cancel()
        #expect(throws: Scanner.Failure.self) { try scanner.run() }
        #expect(try await library.count().first?.songs == LibraryFixture.count)

        let task = Task { try await library.scan() }
        task.cancel()
        switch await task.result {
        case .success(let summary): #expect(summary.removed == 1)
        case .failure(let error): #expect(error is CancellationError)
        }
        #expect(try await library.scan().tracks == LibraryFixture.count - 1)
    }

    @Test("progress updates stream to observers")
    func progressStream() async throws {
        let fixture = try LibraryFixture()
        let library = try fixture.openLibrary()
        var updates = library.progressUpdates().makeAsyncIterator()
        // The current snapshot comes first; read it before the scan, since the stream keeps only the newest four.
        #expect(await updates.next()?.phase == .idle)
        _ = try await library.scan()
        var phases: [ScanProgress.Phase] = []
        while let update = await updates.next() {
            phases.append(update.phase)
            if update.phase == .finished { break }
        }
        #expect(phases.contains(.scanning))
        #expect(phases.last == .finished)
    }
}
