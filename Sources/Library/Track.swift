import Decoders
import Foundation
import GRDB

/// One file of the library as the last scan read it: where it is, its tags and stream properties, and the identity
/// its custom metadata hangs on.
///
/// A value type; safe to pass anywhere.
public struct Track: Sendable, Hashable, Identifiable {
    /// Row id: stable while the file stays at this path (a moved file gets a new one; see `identityID`).
    public var id: Int64
    /// Path relative to the music directory, '/'-separated (an MPD URI). A name that is not valid UTF-8 shows
    /// U+FFFD for each bad byte here; `pathBytes` then holds the real name.
    public var path: String
    /// The raw relative path when the file name is not valid UTF-8, else nil.
    public var pathBytes: [UInt8]?
    /// The stable identity custom metadata attaches to (survives moves, renames and absences).
    public var identityID: Int64
    /// The audio fingerprint the identity is recognised by (`AudioIdentity`).
    public var fingerprint: String
    public var size: Int64
    /// Modification time in nanoseconds since 1970.
    public var modifiedNanoseconds: Int64
    /// "flac", "vorbis" or "wav".
    public var format: String
    public var title: String?
    public var artist: String?
    public var albumArtist: String?
    public var album: String?
    public var trackNumber: Int?
    public var discNumber: Int?
    public var date: String?
    public var genre: String?
    public var composer: String?
    public var bpm: Double?
    /// Seconds, when known.
    public var duration: Double?
    public var sampleRate: Int
    public var channels: Int
    public var bitsPerSample: Int
    public var replayGain: ReplayGainInfo
    /// Content hash of the embedded cover art (the image itself is never stored), and its size in bytes.
    public var pictureHash: String?
    public var pictureBytes: Int?
    /// When the file first entered the library (Unix seconds; MPD's "Added").
    public var addedAt: Int64

    /// Modification time as a `Date` (MPD's "Last-Modified").
    public var lastModified: Date { Date(timeIntervalSince1970: Double(modifiedNanoseconds) / 1e9) }

    /// The directory part of `path` ("" at the top).
    public var directory: String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
    }

    /// The columns `init(row:)` expects, in order, for `SELECT \(Track.columns) FROM track`.
    static let columns = """
        track.id, track.path, track.path_bytes, track.identity_id, track.size, track.mtime, track.format, \
        track.title, track.artist, track.album_artist, track.album, track.track_number, track.disc_number, \
        track.date, track.genre, track.composer, track.bpm, track.duration, track.sample_rate, track.channels, \
        track.bits_per_sample, track.rg_track_gain, track.rg_track_peak, track.rg_album_gain, track.rg_album_peak, \
        track.picture_hash, track.picture_bytes, track.added_at, track.fingerprint
        """

    /// Decodes a row selected with `columns`.
    init(row: Row) {
        id = row[0]
        path = row[1]
        pathBytes = (row[2] as Data?).map { [UInt8]($0) }
        identityID = row[3]
        size = row[4]
        modifiedNanoseconds = row[5]
        format = row[6]
        title = row[7]
        artist = row[8]
        albumArtist = row[9]
        album = row[10]
        trackNumber = row[11]
        discNumber = row[12]
        date = row[13]
        genre = row[14]
        composer = row[15]
        bpm = row[16]
        duration = row[17]
        sampleRate = row[18]
        channels = row[19]
        bitsPerSample = row[20]
        replayGain = ReplayGainInfo(trackGain: row[21], trackPeak: row[22], albumGain: row[23], albumPeak: row[24])
        pictureHash = row[25]
        pictureBytes = row[26]
        addedAt = row[27]
        fingerprint = row[28]
    }

    /// Fetches tracks with a query that selects `columns`.
    static func fetchAll(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> [Track] {
        var tracks: [Track] = []
        let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
        while let row = try rows.next() { tracks.append(Track(row: row)) }
        return tracks
    }
}
