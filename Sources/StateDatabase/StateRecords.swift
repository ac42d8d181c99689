import FermataCore
import GRDB

/// A row of the state database as a Codable GRDB record: properties in camel case, columns in snake case.
protocol StateRecord: Codable, FetchableRecord, PersistableRecord {}

extension StateRecord {
    static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { .convertFromSnakeCase }
    static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy { .convertToSnakeCase }
}

/// The single row of `player_state` as GRDB reads and writes it: the player's saved state and the sequence number of
/// its position. The shuffle columns of the same row belong to the queue (`ShuffleStateRecord`) and are left alone.
///
/// A value type; built and used inside one database access.
struct PlayerStateRecord: StateRecord {
    static let databaseTableName = "player_state"

    /// Always 1 (the table holds one row).
    var id: Int64 = 1
    var transport: String
    var currentEntry: EntryID?
    var positionFrames: Int64
    var sampleRate: Int
    var volume: Int
    var tempoPercent: Int
    var transposeCents: Int
    var beatsPerMinute: Double?
    var beatOffsetMs: Int64
    /// The click over the track: beats per bar (nil: off) and its level.
    var metronomeBeats: Int?
    var metronomeLevel: Double
    var repeatMode: String
    var single: Bool
    var consume: Bool
    var replayGain: String
    var loopEntry: EntryID?
    var loopStart: Int64?
    var loopEnd: Int64?
    var loopCount: Int?
    var queueVersion: Int
    var nextEntryId: EntryID
    /// Orders this position against the checkpoint file beside the database (newer wins); stored as its bit pattern.
    var positionSeq: Int64

    init(_ s: PlayerSnapshot, sequence: UInt64) {
        transport = s.transport.rawValue
        currentEntry = s.currentEntry
        positionFrames = s.positionFrames
        sampleRate = s.sampleRate
        volume = s.volume
        tempoPercent = s.tempoPercent
        transposeCents = s.transposeCents
        beatsPerMinute = s.beat?.bpm
        beatOffsetMs = Int64(((s.beat?.offsetSeconds ?? 0) * 1000).rounded())
        metronomeBeats = s.metronome?.beatsPerBar
        metronomeLevel = s.metronome?.level ?? 1
        repeatMode = s.repeatMode.rawValue
        single = s.single
        consume = s.consume
        replayGain = s.replayGain.rawValue
        loopEntry = s.loop?.entry
        loopStart = s.loop?.region.start
        loopEnd = s.loop?.region.end
        loopCount = s.loop?.region.repeatCount
        queueVersion = s.queueVersion
        nextEntryId = s.nextEntryID
        positionSeq = Int64(bitPattern: sequence)
    }

    /// The snapshot this row holds. A value this version does not know (a hand-edited row) reads as its default.
    var snapshot: PlayerSnapshot {
        var s = PlayerSnapshot()
        s.transport = PlayerSnapshot.Transport(rawValue: transport) ?? .stopped
        s.currentEntry = currentEntry
        s.positionFrames = positionFrames
        s.sampleRate = sampleRate
        s.volume = volume
        s.tempoPercent = tempoPercent
        s.transposeCents = transposeCents
        // A value a hand edit made unusable reads as none.
        s.beat = beatsPerMinute.map { TrackBeat(bpm: $0, offsetSeconds: Double(beatOffsetMs) / 1000) }
            .flatMap { $0.problem == nil ? $0 : nil }
        s.metronome = metronomeBeats.map { MetronomePlan(beatsPerBar: $0, level: metronomeLevel) }
            .flatMap { $0.problem == nil ? $0 : nil }
        s.repeatMode = RepeatMode(rawValue: repeatMode) ?? .off
        s.single = single
        s.consume = consume
        s.replayGain = ReplayGainMode(rawValue: replayGain) ?? .off
        if let loopEntry, let loopStart, let loopEnd {
            s.loop = EntryLoop(entry: loopEntry, region: LoopRegion(start: loopStart, end: loopEnd, repeatCount: loopCount))
        }
        s.queueVersion = queueVersion
        s.nextEntryID = nextEntryId
        return s
    }

    var sequence: UInt64 { UInt64(bitPattern: positionSeq) }

    /// The position columns alone (the frequent checkpoint when the position file cannot be used).
    static func savePosition(entry: EntryID, frame: Int64, sampleRate: Int, sequence: UInt64, _ db: Database) throws {
        try PlayerStateRecord.filter(key: 1).updateAll(db, [
            Column("current_entry").set(to: entry), Column("position_frames").set(to: frame),
            Column("sample_rate").set(to: sampleRate), Column("position_seq").set(to: Int64(bitPattern: sequence)),
        ])
    }
}

/// The queue's columns of the `player_state` row: shuffle on or off and the shuffled order (`QueueSegmentCodec` ids).
struct ShuffleStateRecord: StateRecord {
    static let databaseTableName = "player_state"

    var id: Int64 = 1
    var shuffled: Bool
    var shuffleOrder: String?

    init(order: [EntryID]?) {
        shuffled = order != nil
        shuffleOrder = order.map(QueueSegmentCodec.encode(ids:))
    }
}

/// One `queue_segment` row: a run of queue entries (`QueueSegments`), encoded by `QueueSegmentCodec`.
struct QueueSegmentRecord: StateRecord {
    static let databaseTableName = "queue_segment"
    /// List order.
    static let inListOrder = QueueSegmentRecord.order(Column("sort_key"))

    var id: Int64
    var sortKey: Int64
    var entries: String
}

/// One `output_state` row: whether the named output is enabled.
struct OutputStateRecord: StateRecord {
    static let databaseTableName = "output_state"

    var name: String
    var enabled: Bool
}

/// What the queue's rows must become: the runs that changed, and the shuffled order when it changed.
struct QueueRows: Sendable {
    var clearAll = false
    var change: QueueSegments.Change
    /// nil: the stored order stays; `.some(nil)`: shuffle went off.
    var shuffle: [EntryID]??

    func apply(_ db: Database) throws {
        if clearAll { try QueueSegmentRecord.deleteAll(db) }
        for id in change.removed { try QueueSegmentRecord.deleteOne(db, key: id) }
        for (segment, key) in change.inserted {
            try QueueSegmentRecord(id: segment.id, sortKey: key, entries: QueueSegmentCodec.encode(segment.entries))
                .insert(db)
        }
        for (id, key) in change.rekeyed {
            try QueueSegmentRecord.filter(key: id).updateAll(db, Column("sort_key").set(to: key))
        }
        if let shuffle { try ShuffleStateRecord(order: shuffle).upsert(db) }
    }
}
