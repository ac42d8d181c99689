import Library
import MPDProtocol

extension SongInfo {
    /// The protocol's view of a library track.
    init(_ track: Track) {
        var tags: [TagValue] = []
        func add(_ type: TagType, _ value: String?) { if let value, !value.isEmpty { tags.append(TagValue(type, value)) } }
        // In MPD's tag order, so printing needs no sort (`SongInfo.orderedTags`).
        add(.artist, track.artist)
        add(.album, track.album)
        add(.albumArtist, track.albumArtist)
        add(.title, track.title)
        add(.track, track.trackNumber.map(String.init))
        add(.genre, track.genre)
        add(.date, track.date)
        add(.composer, track.composer)
        add(.disc, track.discNumber.map(String.init))
        add(.musicBrainzArtistID, track.musicBrainz.artist)
        add(.musicBrainzAlbumID, track.musicBrainz.album)
        add(.musicBrainzAlbumArtistID, track.musicBrainz.albumArtist)
        add(.musicBrainzTrackID, track.musicBrainz.track)
        add(.musicBrainzReleaseTrackID, track.musicBrainz.releaseTrack)
        let bits = track.bitsPerSample > 0 ? String(track.bitsPerSample) : "f"
        self.init(uri: track.path, tags: tags, duration: track.duration,
                  format: "\(track.sampleRate):\(bits):\(track.channels)",
                  lastModified: track.modifiedNanoseconds / 1_000_000_000,
                  added: track.addedAt > 0 ? track.addedAt : nil)
    }
}
