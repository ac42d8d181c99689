import AudioCore
import Decoders
import Foundation
@testable import Recording
import TestSupport
import Testing

/// Recording on this machine through alsa-lib's `file` plugin (a capture PCM that reads a raw file, `infile`): takes
/// of exact capture frames, committed whole (synced, renamed, the folder synced) and decoding to the captured samples;
/// a failed write or a stop mid-take leaves no take; leftovers of an interrupted take are removed; a rate the device
/// refuses is a clear error.
@Suite struct TakeWriterTests {
    static let format = AudioFormat(sampleRate: 44_100, channels: 2, encoding: .s16)

    /// A capture PCM named `capin` reading `path` (raw S16LE stereo), through the `null` slave.
    static func captureConfig(infile path: String, rate: Int = 44_100) -> String {
        """
        pcm.null { type null }
        pcm.capin {
            type file
            slave.pcm "null"
            file "/dev/null"
            infile "\(path)"
            format "raw"
        }
        """
    }

    /// Writes `samples` (interleaved Int16) as the capture's source.
    static func writeRaw(_ samples: [Int16], to path: String) throws {
        let data = samples.withUnsafeBytes { Data($0) }
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// A distinct value per frame and channel, so a frame out of place shows.
    static func signal(frames: Int) -> [Int16] {
        (0..<(frames * 2)).map { Int16(truncatingIfNeeded: ($0 * 7919) % 60_001 - 30_000) }
    }

    /// Decodes a take to interleaved samples.
    static func decode(_ path: String) throws -> [Int16] {
        let decoder = try DecoderRegistry.open(path: path)
        var out: [Int16] = []
        var buffer = [UInt8](repeating: 0, count: 4096 * decoder.format.bytesPerFrame)
        while true {
            let n = try buffer.withUnsafeMutableBytes { try decoder.read(into: $0) }
            if n == 0 { break }
            buffer.withUnsafeBytes { raw in
                for i in 0..<(n * decoder.format.channels) {
                    out.append(raw.loadUnaligned(fromByteOffset: i * 2, as: Int16.self))
                }
            }
        }
        return out
    }

    struct Rig {
        let directory: TemporaryDirectory
        let folder: TakeFolder
        let device: CaptureDevice
        let source: [Int16]

        init(frames: Int) throws {
            directory = try TemporaryDirectory(prefix: "fermata-takes")
            folder = TakeFolder(stateDirectory: directory.path)
            try folder.create()
            source = TakeWriterTests.signal(frames: frames)
            let raw = directory.file("in.raw")
            try TakeWriterTests.writeRaw(source, to: raw)
            device = CaptureDevice(name: "capin", configText: TakeWriterTests.captureConfig(infile: raw))
            try device.open(TakeWriterTests.format, periodFrames: 1024)
        }
    }

    /// Runs the capture and the writer with `takes` asked for up front, until the writer reports `count` outcomes.
    /// The ring holds `ringSeconds` (the capture from the file is not paced: it fills a small ring at once).
    static func record(_ rig: Rig, takes: [(id: Int64, start: Int, end: Int)], ringSeconds: Int = 1) async
        -> [TakeWriter.Outcome] {
        let loop = CaptureLoop(device: rig.device, seconds: ringSeconds)
        let writer = TakeWriter(loop: loop, folder: rig.folder, format: format)
        for take in takes {
            writer.begin(id: take.id, atFrame: take.start)
            writer.end(id: take.id, atFrame: take.end)
        }
        let capture = WorkerThread.started(name: "test-capture") { loop.run() }
        let writing = WorkerThread.started(name: "test-writer") { writer.run() }
        var outcomes: [TakeWriter.Outcome] = []
        for await outcome in writer.finished {
            outcomes.append(outcome)
            if outcomes.count == takes.count { break }
        }
        loop.stop()
        writer.stop()
        capture.join()
        writing.join()
        return outcomes
    }

    @Test func takesHoldExactlyTheirCaptureFrames() async throws {
        let rig = try Rig(frames: 44_100)
        let outcomes = await Self.record(rig, takes: [(1, 1_000, 12_025), (2, 12_025, 30_000)])
        #expect(outcomes == [.committed(id: 1, frames: 11_025, format: Self.format),
                             .committed(id: 2, frames: 17_975, format: Self.format)])
        #expect(try Self.decode(rig.folder.takePath(1)) == Array(rig.source[2_000..<24_050]))
        #expect(try Self.decode(rig.folder.takePath(2)) == Array(rig.source[24_050..<60_000]))
        #expect(rig.folder.takeIDs() == [1, 2])
        #expect(!FileManager.default.fileExists(atPath: rig.folder.partialPath(1)))
    }

    @Test func aFullDiskAbandonsTheTakeAndLeavesNothing() throws {
        let rig = try Rig(frames: 4_410)
        // /dev/full: every write fails with ENOSPC, as on a full card — the header already, or a block later.
        do {
            let encoder = try TakeEncoder(path: "/dev/full", format: Self.format, exclusive: false)
            let samples = Self.signal(frames: 4_096)
            let appended = samples.withUnsafeBytes { encoder.append($0.baseAddress!, frames: 4_096) } && encoder.finish()
            #expect(!appended && encoder.writeError == ENOSPC)
        } catch {
            #expect(error.description.hasSuffix("No space left on device (error \(ENOSPC))"), "\(error)")
        }
        #expect(rig.folder.takeIDs().isEmpty)
    }

    @Test func leftoversOfAnInterruptedTakeAreRemoved() throws {
        let directory = try TemporaryDirectory(prefix: "fermata-takes")
        let folder = TakeFolder(stateDirectory: directory.path)
        try folder.create()
        _ = FileManager.default.createFile(atPath: folder.partialPath(7), contents: Data([0x66, 0x4c]))
        _ = FileManager.default.createFile(atPath: folder.takePath(3), contents: Data([0x66]))
        #expect(folder.removeLeftovers() == 1)
        #expect(folder.takeIDs() == [3])
        #expect(!FileManager.default.fileExists(atPath: folder.partialPath(7)))
    }

    @Test func aRateTheDeviceRefusesIsAClearError() throws {
        let directory = try TemporaryDirectory(prefix: "fermata-takes")
        let device = CaptureDevice(name: "hwish", configText: """
            pcm.hwish { type hw card 99 }
            """)
        #expect(throws: CaptureDevice.OpenError.self) { try device.open(Self.format) }
        let missing = CaptureDevice(name: "nosuchpcm", configText: "pcm.other { type null }")
        do {
            try missing.open(Self.format)
            Issue.record("a PCM that does not exist opened")
        } catch {
            #expect(error.description.hasPrefix("cannot open the capture device nosuchpcm"))
        }
        _ = directory
    }

    /// The capture clock's readings carry the device's own stamp of its position (`ALSAPosition`, CLOCK_MONOTONIC),
    /// taken inside the status call, not an instant read after it: alsa-lib's `null` capture stamps its status.
    @Test func aCaptureReadingIsStampedByTheDeviceInsideTheRead() throws {
        let device = CaptureDevice(name: "stampedcapture", configText: "pcm.stampedcapture { type null }")
        try device.open(Self.format, periodFrames: 441)
        defer { device.close() }
        device.start()
        var buffer = [UInt8](repeating: 0, count: 441 * Self.format.bytesPerFrame)
        let result = buffer.withUnsafeMutableBytes { device.read(into: $0.baseAddress!, frames: 441) }
        #expect(result == .read(frames: 441))
        let before = MonotonicClock.nanoseconds()
        let reading = try #require(device.stampedPosition())
        let after = MonotonicClock.nanoseconds()
        #expect(reading.stamped, "not stamped on CLOCK_MONOTONIC: \(reading)")
        #expect(reading.nanoseconds >= before && reading.nanoseconds <= after)
    }

    /// The disk fell behind: the ring (1 s) filled and the capture dropped frames after it. A take that ended before
    /// the gap is whole; the take across it is lost, its partial file removed, and nothing is committed of it.
    @Test(.timeLimit(.minutes(10))) func aTakeAcrossTheGapAFullRingLeftIsLostAndTheOneBeforeKept() async throws {
        let rig = try Rig(frames: 120_000)
        let loop = CaptureLoop(device: rig.device, seconds: 1)
        let writer = TakeWriter(loop: loop, folder: rig.folder, format: Self.format)
        writer.begin(id: 1, atFrame: 100)
        writer.end(id: 1, atFrame: 5_000)
        writer.begin(id: 2, atFrame: 10_000)
        writer.end(id: 2, atFrame: 100_000)
        // The capture runs alone until the ring is full and dropping: the writer is "the disk", late.
        let capture = WorkerThread.started(name: "test-capture") { loop.run() }
        #expect(try await Patience.wait { loop.droppedFrames.load(ordering: .relaxed) > 0 })
        let writing = WorkerThread.started(name: "test-writer") { writer.run() }
        var outcomes: [TakeWriter.Outcome] = []
        for await outcome in writer.finished {
            outcomes.append(outcome)
            if outcomes.count == 2 { break }
        }
        loop.stop()
        writer.stop()
        capture.join()
        writing.join()
        #expect(outcomes == [.committed(id: 1, frames: 4_900, format: Self.format),
                             .failed(id: 2, reason: "the disk fell behind: the capture dropped frames")])
        #expect(try Self.decode(rig.folder.takePath(1)) == Array(rig.source[200..<10_000]))
        #expect(rig.folder.takeIDs() == [1])
        #expect(!FileManager.default.fileExists(atPath: rig.folder.partialPath(2)))
    }

    /// The capture device went away (its error published as the capture thread does) in the middle of a take, and a
    /// stop in the middle of another: neither leaves a take or a partial file, and each says why. The capture thread's
    /// part is played by the test (the ring filled and the counters published as `CaptureLoop.run` does), so the
    /// device is gone exactly mid-take.
    @Test(.timeLimit(.minutes(10))) func aDeviceGoneOrAStopMidTakeLeavesNoTake() async throws {
        for gone in [true, false] {
            let rig = try Rig(frames: 20_000)
            let loop = CaptureLoop(device: rig.device, seconds: 8)
            let writer = TakeWriter(loop: loop, folder: rig.folder, format: Self.format, holdFrames: 0)
            writer.begin(id: 1, atFrame: 1_000)  // no end yet: the pass goes on
            let writing = WorkerThread.started(name: "test-writer") { writer.run() }
            rig.source.withUnsafeBytes { _ = loop.ring.write($0) }
            loop.capturedFrames.add(20_000, ordering: .releasing)
            loop.written.ring()
            #expect(try await Patience.wait { writer.position.load(ordering: .relaxed) == 20_000 })
            #expect(FileManager.default.fileExists(atPath: rig.folder.partialPath(1)), "the take is being written")
            if gone {
                loop.lostCode.store(-19, ordering: .releasing)  // ENODEV, as a USB device pulled out
                loop.written.ring()
            } else {
                writer.stop()
            }
            var outcomes: [TakeWriter.Outcome] = []
            for await outcome in writer.finished { outcomes.append(outcome) }
            writer.stop()
            writing.join()
            #expect(outcomes == [.failed(id: 1, reason: gone ? "the capture device went away (error -19)" : "recording stopped")])
            #expect(rig.folder.takeIDs().isEmpty)
            #expect(!FileManager.default.fileExists(atPath: rig.folder.partialPath(1)))
        }
    }
}
