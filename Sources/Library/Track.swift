import Decoders
import FermataCore
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
    public var musicBrainz: MusicBrainzIDs
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
}

/// A track is a GRDB record of the `track` table: `Track.filter(…).fetchAll(db)` selects `databaseSelection`, and
/// SQL written by hand (joins with the search index) selects `Track.columns`; both are made from `Field`, the one list
/// `init(row:)` reads by.
///
/// Reads are positional on purpose: a listing (`listallinfo`, searches) reads every column of tens of thousands of
/// rows, and a name lookup in GRDB's cursor rows compares column names one by one, per column, per row. `Field`'s
/// case order is the selection order, so a column and its index cannot drift apart.
extension Track: FetchableRecord, TableRecord {
    public static let databaseTableName = "track"

    /// The columns read, in selection order; each column is its case's name in snake case.
    enum Field: Int, CaseIterable {
        case id, path, pathBytes, identityId, size, mtime, format, title, artist, albumArtist, album, trackNumber
        case discNumber, date, genre, composer, bpm, duration, sampleRate, channels, bitsPerSample
        case rgTrackGain, rgTrackPeak, rgAlbumGain, rgAlbumPeak, pictureHash, pictureBytes, addedAt, fingerprint
        case mbTrackId, mbAlbumId, mbArtistId, mbAlbumArtistId, mbReleaseTrackId

        /// The column's name: `identityId` is `identity_id`.
        var column: String {
            String("\(self)".flatMap { $0.isUppercase ? ["_", Character($0.lowercased())] : [$0] })
        }
    }

    public static var databaseSelection: [any SQLSelectable] { names.map { Column($0) } }

    /// The column names in `Field` order.
    private static let names = Field.allCases.map(\.column)

    /// The same selection for SQL written by hand, qualified with the table name.
    static let columns = names.map { "track." + $0 }.joined(separator: ", ")

    /// Decodes a row selected with `databaseSelection` or `columns`.
    public init(row: Row) {
        id = row[Field.id.rawValue]
        path = row[Field.path.rawValue]
        pathBytes = (row[Field.pathBytes.rawValue] as Data?).map { [UInt8]($0) }
        identityID = row[Field.identityId.rawValue]
        size = row[Field.size.rawValue]
        modifiedNanoseconds = row[Field.mtime.rawValue]
        format = row[Field.format.rawValue]
        title = row[Field.title.rawValue]
        artist = row[Field.artist.rawValue]
        albumArtist = row[Field.albumArtist.rawValue]
        album = row[Field.album.rawValue]
        trackNumber = row[Field.trackNumber.rawValue]
        discNumber = row[Field.discNumber.rawValue]
        date = row[Field.date.rawValue]
        genre = row[Field.genre.rawValue]
        composer = row[Field.composer.rawValue]
        bpm = row[Field.bpm.rawValue]
        duration = row[Field.duration.rawValue]
        sampleRate = row[Field.sampleRate.rawValue]
        channels = row[Field.channels.rawValue]
        bitsPerSample = row[Field.bitsPerSample.rawValue]
        replayGain = ReplayGainInfo(trackGain: row[Field.rgTrackGain.rawValue], trackPeak: row[Field.rgTrackPeak.rawValue],
                                    albumGain: row[Field.rgAlbumGain.rawValue], albumPeak: row[Field.rgAlbumPeak.rawValue])
        pictureHash = row[Field.pictureHash.rawValue]
        pictureBytes = row[Field.pictureBytes.rawValue]
        addedAt = row[Field.addedAt.rawValue]
        fingerprint = row[Field.fingerprint.rawValue]
        musicBrainz = MusicBrainzIDs()
        musicBrainz.track = row[Field.mbTrackId.rawValue]
        musicBrainz.album = row[Field.mbAlbumId.rawValue]
        musicBrainz.artist = row[Field.mbArtistId.rawValue]
        musicBrainz.albumArtist = row[Field.mbAlbumArtistId.rawValue]
        musicBrainz.releaseTrack = row[Field.mbReleaseTrackId.rawValue]
    }
}
