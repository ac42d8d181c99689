import DatabaseFile
import Foundation
import GRDB

/// A measured round trip from an output device to a capture device (`fermata audio latency`).
public struct RoundTripLatency: Sendable, Equatable {
    public var outputDevice: String
    public var captureDevice: String
    public var sampleRate: Int
    /// How many frames after its heard instant a sound arrives in the capture (may be negative when the devices'
    /// position reports are late).
    public var frames: Int
    public var measuredAt: Date

    public init(outputDevice: String, captureDevice: String, sampleRate: Int, frames: Int, measuredAt: Date) {
        self.outputDevice = outputDevice
        self.captureDevice = captureDevice
        self.sampleRate = sampleRate
        self.frames = frames
        self.measuredAt = measuredAt
    }

    /// In milliseconds.
    public var milliseconds: Double { sampleRate > 0 ? Double(frames) * 1000 / Double(sampleRate) : 0 }

    /// In frames at `rate` (the take's), rounded.
    public func frames(atRate rate: Int) -> Int {
        sampleRate > 0 ? Int((Double(frames) * Double(rate) / Double(sampleRate)).rounded()) : 0
    }
}

/// The measured latencies (`record_latency`, migration `v16-record-latency`), one per pair of devices.
/// Sendable; any task may call it.
public struct LatencyStore: Sendable {
    let database: FermataDatabase

    public init(database: FermataDatabase) { self.database = database }

    public func save(_ latency: RoundTripLatency) async throws {
        try await database.pool.write { db in
            try db.execute(sql: """
                INSERT OR REPLACE INTO record_latency (output_device, capture_device, sample_rate, frames, measured_at)
                VALUES (?, ?, ?, ?, ?)
                """, arguments: [latency.outputDevice, latency.captureDevice, latency.sampleRate, latency.frames,
                                 Int64(latency.measuredAt.timeIntervalSince1970)])
        }
    }

    public func latency(output: String, capture: String) async throws -> RoundTripLatency? {
        try await database.pool.read { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT * FROM record_latency WHERE output_device = ? AND capture_device = ?
                """, arguments: [output, capture]) else { return nil }
            return RoundTripLatency(outputDevice: row["output_device"], captureDevice: row["capture_device"],
                                    sampleRate: row["sample_rate"], frames: row["frames"],
                                    measuredAt: Date(timeIntervalSince1970: TimeInterval(row["measured_at"] as Int64)))
        }
    }
}
