import DatabaseFile
import Foundation
import Glibc
@testable import Library
import Synchronization
import Testing
import TestSupport

/// The walk starts before the scan thread has loaded what the database knew (`KnownFilesHandoff`): the files a walker
/// meets meanwhile are held and compared once the load ends, a walker holding its limit waits for it, and a failed
/// load drops what was held. Also the path-hash table the walk looks every file up in, against a `Dictionary`.
@Suite("Walk and load side by side")
struct WalkHandoffTests {
    /// A scanned copy of the fixture, what the database knows of it, and each entry's raw path, size and mtime.
    static func scanned() async throws -> (LibraryFixture, KnownFiles, [(path: [UInt8], size: Int64, modified: Int64)]) {
        let fixture = try LibraryFixture()
        _ = try await fixture.openLibrary().scan()
        let database = try FermataDatabase(stateDirectory: fixture.state.path, schema: .library)
        let known = try await database.pool.read { try KnownFiles.load($0) }
        let files = try fixture.entries.map { entry in
            var info = stat()
            guard stat(fixture.file(entry.path), &info) == 0 else { throw POSIXError(.ENOENT) }
            return (Array(entry.path.utf8), Int64(info.st_size), DirectoryWalker.nanoseconds(info.st_mtim))
        }
        return (fixture, known, files)
    }

    @Test("files met before the load ends are compared when it ends; at its limit a walker waits for the load")
    func heldFilesAreComparedOnceTheLoadEnds() async throws {
        let (fixture, known, files) = try await Self.scanned()
        defer { withExtendedLifetime(fixture) {} }
        let handoff = KnownFilesHandoff()
        let jobs = BlockingQueue<[ScanJob]>(capacity: 64)
        let collector = WalkCollector(known: handoff, mode: .incremental, jobs: jobs, progress: ScanProgressSource(),
                                      earlyLimit: 3)
        for file in files[0..<3] { collector.file(file.path, size: file.size, modified: file.modified) }
        #expect(collector.unchanged == 0, "nothing is compared before the load ends")
        #expect((0..<known.entries.count).allSatisfy { !known.isSeen($0) })

        // The fourth file finds the walker at its limit: it must wait until the load is published.
        let published = Flag()
        let publisher = Thread {
            Thread.sleep(forTimeInterval: 0.2)
            published.value.store(true, ordering: .sequentiallyConsistent)
            handoff.publish(known)
        }
        publisher.start()
        collector.file(files[3].path, size: files[3].size, modified: files[3].modified)
        let waited = published.value.load(ordering: .sequentiallyConsistent)
        #expect(waited, "the walker went on before the load was there")
        #expect(collector.unchanged == 4)

        // After the load: compared at once; a changed file becomes a job for the readers, with its track row.
        collector.file(files[4].path, size: files[4].size + 1, modified: files[4].modified)
        collector.file(Array("New/Album/01 New.flac".utf8), size: 1, modified: 1)
        collector.finish()
        jobs.close()
        var queued: [ScanJob] = []
        while let batch = jobs.pop() { queued += batch }
        #expect(queued.map { String(decoding: $0.path, as: UTF8.self) } == [fixture.entries[4].path, "New/Album/01 New.flac"])
        #expect(queued.first?.trackID != nil)
        #expect(queued.last?.trackID == nil)
        for file in files[0..<5] { #expect(known.lookup(file.path).map(known.isSeen) == true) }
        #expect(known.lookup(files[5].path).map(known.isSeen) == false)
    }

    @Test("a walker that ends before the load waits for it and compares what it held")
    func walkerEndingFirstWaits() async throws {
        let (fixture, known, files) = try await Self.scanned()
        defer { withExtendedLifetime(fixture) {} }
        let handoff = KnownFilesHandoff()
        let jobs = BlockingQueue<[ScanJob]>(capacity: 64)
        let collector = WalkCollector(known: handoff, mode: .incremental, jobs: jobs, progress: ScanProgressSource())
        for file in files { collector.file(file.path, size: file.size, modified: file.modified) }
        let publisher = Thread {
            Thread.sleep(forTimeInterval: 0.1)
            handoff.publish(known)
        }
        publisher.start()
        collector.finish()
        #expect(collector.unchanged == files.count)
        #expect(jobs.tryPop() == nil)
    }

    @Test("a failed load drops what was held and queues nothing")
    func failedLoadDropsHeldFiles() async throws {
        let (fixture, _, files) = try await Self.scanned()
        defer { withExtendedLifetime(fixture) {} }
        let handoff = KnownFilesHandoff()
        let jobs = BlockingQueue<[ScanJob]>(capacity: 64)
        let collector = WalkCollector(known: handoff, mode: .incremental, jobs: jobs, progress: ScanProgressSource(),
                                      earlyLimit: 2)
        collector.file(files[0].path, size: files[0].size, modified: files[0].modified)
        handoff.publish(nil)
        for file in files[1...] { collector.file(file.path, size: file.size, modified: file.modified) }
        collector.finish()
        #expect(collector.unchanged == 0)
        #expect(jobs.tryPop() == nil)
    }

    @Test("the path-hash table answers as a Dictionary does, for keys sharing slots and across growth")
    func pathHashIndexMatchesADictionary() {
        var generator = SplitMix(seed: 23)
        var table = PathHashIndex(expected: 4)
        var reference: [UInt64: Int32] = [:]
        for step in 0..<20_000 {
            // A third of the keys differ from an earlier one only above bit 40, so they start at the same slot.
            let key = step % 3 == 0 && !reference.isEmpty
                ? (reference.keys.first! ^ (UInt64(step) << 40)) : generator.next() % 50_000
            let value = Int32(generator.next() % 1_000_000)
            #expect(table.updateValue(value, forKey: key) == reference.updateValue(value, forKey: key))
        }
        #expect(table.count == reference.count)
        for (key, value) in reference { #expect(table[key] == value) }
        for _ in 0..<5_000 {
            let key = generator.next() | (1 << 63)
            #expect(table[key] == reference[key])
        }
    }
}

/// A flag another thread sets.
private final class Flag: Sendable {
    let value = Atomic<Bool>(false)
}

/// A small seeded generator, so the table test is the same on every run.
private struct SplitMix {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
