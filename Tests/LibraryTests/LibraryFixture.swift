import DatabaseFile
import Foundation
import Glibc
import Library
import Logging
import TestSupport

/// A generated music library for the tests: 200 tagged files (170 FLAC, 25 WAV with LIST/INFO, 5 Ogg Vorbis),
/// each with its own audio, laid out `Artist/Album/NN Title.ext`. Built once per test process into a template
/// directory, then copied for each test (tests change their copy).
struct LibraryFixture {
    /// One generated file.
    struct Entry: Sendable {
        var path: String
        var format: String
        var artist: String
        var album: String
        var title: String
        var track: Int
        var genre: String
    }

    static let flacCount = 170
    static let wavCount = 25
    static let oggCount = 5
    static var count: Int { flacCount + wavCount + oggCount }

    /// The template, generated on first use.
    nonisolated(unsafe) private static var template: (dir: TemporaryDirectory, entries: [Entry])?
    private static let lock = NSLock()

    let music: TemporaryDirectory
    let state: TemporaryDirectory
    let entries: [Entry]

    /// A fresh copy of the template library and an empty state directory.
    init() throws {
        let (source, entries) = try Self.makeTemplate()
        music = try TemporaryDirectory(prefix: "fermata-library-music")
        state = try TemporaryDirectory(prefix: "fermata-library-state")
        for item in try FileManager.default.contentsOfDirectory(atPath: source.path) {
            try FileManager.default.copyItem(atPath: source.file(item), toPath: music.file(item))
        }
        self.entries = entries
    }

    /// Opens the library database in the state directory and a `Library` on the music directory.
    func openLibrary(readers: Int = 2) throws -> Library {
        var logger = Logger(label: "fermata.library.test")
        logger.logLevel = .warning
        return Library(database: try FermataDatabase(stateDirectory: state.path, schema: .library), musicDirectory: music.path,
                       options: LibraryOptions(readers: readers, walkers: 2, niceness: 0), logger: logger)
    }

    /// Absolute path of a library-relative path.
    func file(_ relative: String) -> String { music.path + "/" + relative }

    /// Sets a file's modification time `seconds` in the future (a "touch" that a scan must notice).
    func touch(_ relative: String, seconds: Int = 10) throws {
        let when = timespec(tv_sec: time(nil) + seconds, tv_nsec: 0)
        var times = [when, when]
        guard utimensat(AT_FDCWD, file(relative), &times, 0) == 0 else { throw POSIXError(.EIO) }
    }

    /// Moves a file inside or out of the library (creating the target's directory).
    func move(_ from: String, to target: String) throws {
        let destination = target.hasPrefix("/") ? target : file(target)
        try FileManager.default.createDirectory(atPath: (destination as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: from.hasPrefix("/") ? from : file(from), toPath: destination)
    }

    /// Writes a new FLAC at `relative` with audio from `seed` and the given tags.
    func addFLAC(_ relative: String, seed: UInt64, tags: [String: String] = [:], rawComments: [[UInt8]] = [],
                 pictureBytes: Int? = nil) throws {
        try FileManager.default.createDirectory(atPath: (file(relative) as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try Self.writeFLAC(file(relative), seed: seed, tags: tags, rawComments: rawComments, pictureBytes: pictureBytes)
    }

    static func writeFLAC(_ path: String, seed: UInt64, tags: [String: String], rawComments: [[UInt8]] = [],
                          pictureBytes: Int? = nil) throws {
        let samples = TestSignal.sweep(frames: 2_000, channels: 1, bits: 16, sampleRate: 8_000, seed: seed)
        try FLACFixture.write(path: path, samples: samples, channels: 1, bitsPerSample: 16, sampleRate: 8_000,
                              blockSize: 1_024, tags: tags, rawComments: rawComments, pictureBytes: pictureBytes)
    }

    private static func makeTemplate() throws -> (TemporaryDirectory, [Entry]) {
        lock.lock()
        defer { lock.unlock() }
        if let template { return template }
        let dir = try TemporaryDirectory(prefix: "fermata-library-template")
        var entries: [Entry] = []
        let genres = ["Rock", "Jazz", "Ambient", "Folk"]
        for index in 0..<count {
            let artistIndex = index / 20
            let artist = index == 7 ? "Björk" : index == 8 ? "The Beatles" : "Artist \(artistIndex)"
            let album = "Album \(index / 10)"
            let title = index == 8 ? "Yellow Submarine" : "Title \(index)"
            let track = index % 10 + 1
            let format = index < flacCount ? "flac" : index < flacCount + wavCount ? "wav" : "vorbis"
            let ext = format == "vorbis" ? "ogg" : format
            let relative = "\(artist)/\(album)/\(String(format: "%02d", track)) \(title).\(ext)"
            let entry = Entry(path: relative, format: format, artist: artist, album: album, title: title, track: track,
                              genre: genres[index % genres.count])
            try FileManager.default.createDirectory(atPath: dir.file("\(artist)/\(album)"),
                                                    withIntermediateDirectories: true)
            try write(entry, seed: UInt64(index + 1), into: dir)
            entries.append(entry)
        }
        template = (dir, entries)
        atexit { LibraryFixture.template = nil }   // deletes the template directory when the test process ends
        return (dir, entries)
    }

    private static func write(_ entry: Entry, seed: UInt64, into dir: TemporaryDirectory) throws {
        let path = dir.file(entry.path)
        switch entry.format {
        case "flac":
            try writeFLAC(path, seed: seed, tags: [
                "ARTIST": entry.artist, "ALBUMARTIST": entry.artist, "ALBUM": entry.album, "TITLE": entry.title,
                "TRACKNUMBER": "\(entry.track)", "DISCNUMBER": "1", "DATE": "2001", "GENRE": entry.genre,
                "COMPOSER": "Composer \(seed % 3)", "BPM": "120", "REPLAYGAIN_TRACK_GAIN": "-3.5 dB",
                "REPLAYGAIN_TRACK_PEAK": "0.9",
            ])
        case "wav":
            let samples = TestSignal.sweep(frames: 2_000, channels: 1, bits: 16, sampleRate: 8_000, seed: seed)
            try WAVFixture.write(path: path, samples: samples, channels: 1, sampleRate: 8_000, kind: .pcm16, infoTags: [
                "IART": entry.artist, "IPRD": entry.album, "INAM": entry.title, "ITRK": "\(entry.track)",
                "IGNR": entry.genre, "ICRD": "2002",
            ])
        default:
            let wav = path + ".wav"
            let samples = TestSignal.sweep(frames: 8_000, channels: 1, bits: 16, sampleRate: 8_000, seed: seed)
            try WAVFixture.write(path: wav, samples: samples, channels: 1, sampleRate: 8_000, kind: .pcm16)
            try VorbisFixture.write(path: path, wavPath: wav, quality: 1, tags: [
                "ARTIST": entry.artist, "ALBUM": entry.album, "TITLE": entry.title,
                "TRACKNUMBER": "\(entry.track)", "GENRE": entry.genre,
            ], serial: Int32(seed))
            try FileManager.default.removeItem(atPath: wav)
        }
    }
}
