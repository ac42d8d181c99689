import Foundation
import TestSupport

/// The generated music library every end-to-end test starts from: two albums of short tagged FLAC files, a
/// `cover.jpg` beside the first album, and two symlinks that lead out of the music directory (one to a directory
/// holding a playable FLAC, one to `/etc/passwd`).
///
/// Stateless; `write` may be called from any thread.
enum MusicFixture {
    /// One generated track and its tags.
    struct Track: Sendable {
        let path: String
        let title: String
        let artist: String
        let album: String
        let number: Int
        let date: String
        let genre: String
        let seconds: Double

        /// How `mpc playlist` shows it.
        var mpcLine: String { "\(artist) - \(title)" }
    }

    static let rate = 44_100

    /// In library (path) order. Uno and Dos are the longest (2 s): tests that need a song to stay current use them.
    static let tracks: [Track] = [
        Track(path: "Alpha Band/First Album/01 One.flac", title: "One", artist: "Alpha Band", album: "First Album",
              number: 1, date: "2001", genre: "Rock", seconds: 1.0),
        Track(path: "Alpha Band/First Album/02 Two.flac", title: "Two", artist: "Alpha Band", album: "First Album",
              number: 2, date: "2001", genre: "Rock", seconds: 1.5),
        Track(path: "Beta/Second/01 Uno.flac", title: "Uno", artist: "Beta", album: "Second",
              number: 1, date: "2010", genre: "Jazz", seconds: 2.0),
        Track(path: "Beta/Second/02 Dos.flac", title: "Dos", artist: "Beta", album: "Second",
              number: 2, date: "2010", genre: "Jazz", seconds: 2.0),
        Track(path: "Beta/Second/03 Tres.flac", title: "Tres", artist: "Beta", album: "Second",
              number: 3, date: "2010", genre: "Jazz", seconds: 0.5),
    ]

    static let one = tracks[0], two = tracks[1], uno = tracks[2], dos = tracks[3], tres = tracks[4]

    /// The album directory holding `cover.jpg`.
    static let coverAlbum = "Alpha Band/First Album"
    /// `cover.jpg`: a JPEG start marker then a pattern; larger than MPD's default 8 KiB binary chunk.
    static let cover: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + (0..<20_000).map { UInt8(($0 * 7 + 3) % 253) }

    /// Links inside the music directory that lead outside it.
    static let escapingDirectoryLink = "Elsewhere"
    static let escapingFileInLink = "Elsewhere/Secret.flac"
    static let passwordLink = "passwd.flac"

    /// One sweep long enough for the longest track; tracks take consecutive slices.
    static let signal: [Int32] = TestSignal.sweep(frames: 2 * rate, channels: 2, bits: 16, seed: 7)

    /// Writes the library under `root`: `root/music` (returned) and `root/outside` (the symlinks' target).
    static func write(root: String) throws -> String {
        let music = root + "/music"
        let files = FileManager.default
        for track in tracks {
            try files.createDirectory(atPath: music + "/" + (track.path as NSString).deletingLastPathComponent,
                                      withIntermediateDirectories: true)
            try writeFLAC(music + "/" + track.path, seconds: track.seconds, tags: [
                "TITLE": track.title, "ARTIST": track.artist, "ALBUM": track.album,
                "TRACKNUMBER": String(track.number), "DATE": track.date, "GENRE": track.genre,
            ])
        }
        try Data(cover).write(to: URL(fileURLWithPath: music + "/" + coverAlbum + "/cover.jpg"))
        try files.createDirectory(atPath: root + "/outside", withIntermediateDirectories: true)
        try writeFLAC(root + "/outside/Secret.flac", seconds: 0.5, tags: ["TITLE": "Secret", "ARTIST": "Outsider"])
        try files.createSymbolicLink(atPath: music + "/" + escapingDirectoryLink,
                                     withDestinationPath: root + "/outside")
        try files.createSymbolicLink(atPath: music + "/" + passwordLink, withDestinationPath: "/etc/passwd")
        return music
    }

    /// A stereo 16-bit FLAC file of `seconds` of the sweep.
    static func writeFLAC(_ path: String, seconds: Double, tags: [String: String]) throws {
        let frames = Int(seconds * Double(rate))
        try FLACFixture.write(path: path, samples: Array(signal[..<(frames * 2)]), channels: 2, bitsPerSample: 16,
                              sampleRate: rate, tags: tags)
    }
}
