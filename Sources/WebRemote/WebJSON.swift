import FermataCore
import Foundation
import MPDProtocol

/// The JSON the web API answers, as `Sources/WebRemote/Assets/openapi.yaml` describes it (keys in snake_case; a nil
/// field is left out, unless the schema requires it: `Cards.learning`). `WebJSONTests` and schemathesis hold the two
/// together.
///
/// Plain values; any thread.
enum WebJSON {
    struct Session: Encodable {
        var role: String
        var loginRequired: Bool
        var passwordSet: Bool
        var version: String
    }

    struct Song: Encodable {
        var id: EntryID?
        var pos: Int?
        var file: String
        var title: String?
        var artist: String?
        var album: String?
        /// A stream's station (its `icy-name`), as MPD's `Name:`.
        var name: String?
        var track: Int?
        /// The length of what the entry plays: a ranged entry's part, else the file's; nil for a stream.
        var duration: Double?
        var priority: Int?
        var section: String?
        var range: String?
        /// A queued section's passes (nil: for ever, or not a part of a file) and own tempo.
        var passes: Int?
        var tempo: Int?

        init(_ song: SongInfo) {
            id = song.queueID
            pos = song.queuePosition
            file = song.uri
            title = song.values(.title).first
            artist = song.values(.artist).first
            album = song.values(.album).first
            name = song.values(.name).first
            track = song.values(.track).first.flatMap { Int($0.split(separator: "/").first ?? "") }
            duration = song.span.map { span in
                // A part of the file: its own length, when its end is known.
                span.endMilliseconds.map { Double($0 - span.startMilliseconds) / 1000 } ?? song.duration
            } ?? song.duration
            if song.queueID != nil { priority = Int(song.priority) }
            section = song.span?.section
            passes = song.span?.passes
            tempo = song.span?.tempoPercent
            range = song.span.map { span in
                let end = span.endMilliseconds.map { String(format: "%.3f", Double($0) / 1000) } ?? ""
                return String(format: "%.3f", Double(span.startMilliseconds) / 1000) + "-" + end
            }
        }
    }

    struct Loop: Encodable {
        var start: Double
        var end: Double
        var passes: Int?
        /// The pass heard now, from 1.
        var pass: Int?
    }

    struct Section: Encodable {
        var index: Int
        var name: String
        var start: Double
        var end: Double
        var passes: Int?
        var tempo: Int?

        init(_ section: PracticeSection, index: Int) {
            self.index = index + 1
            name = section.name
            start = Double(section.startMilliseconds) / 1000
            end = Double(section.endMilliseconds) / 1000
            passes = section.passes
            tempo = section.tempoPercent
        }
    }

    struct Sections: Encodable {
        var file: String?
        var active: Int?
        var sections: [Section]
    }

    /// What a stream playing now says of itself.
    struct Stream: Encodable {
        var name: String?
        var title: String?
    }

    struct Status: Encodable {
        var state: String
        /// The position in the file (a ranged entry's too: `song.range` says which part it plays).
        var elapsed: Double
        /// The file's length (a ranged entry's whole file), nil when unknown or for a stream.
        var duration: Double?
        var song: Song?
        /// Set while a network stream plays (nil for a file).
        var stream: Stream?
        var nextId: EntryID?
        var volume: Int
        var volumeMax: Int
        var `repeat`: Bool
        var random: Bool
        var single: Bool
        var consume: Bool
        var tempo: Int
        var transpose: Double
        var bpm: Double?
        var metronome: Bool
        var countIn: Int?
        /// The step trainer running (`70 5 2 100 [fallback]`), and the tempo of the last loop pass heard to its end.
        var trainer: String?
        var passTempo: Int?
        var loop: Loop?
        var loopA: Double?
        var section: Section?
        var sections: Int
        var queueVersion: Int
        var queueLength: Int
        var error: String?
        /// Seconds until the sleep timer stops the music (nil: none).
        var sleep: Int?
    }

    struct QueuePage: Encodable {
        var version: Int
        var length: Int
        var offset: Int
        var current: EntryID?
        var entries: [Song]
    }

    struct IDs: Encodable {
        var ids: [EntryID]
    }

    struct NamePage: Encodable {
        var total: Int
        var offset: Int
        var items: [String]
    }

    struct Album: Encodable {
        var album: String
        var artist: String?
    }

    struct AlbumPage: Encodable {
        var total: Int
        var offset: Int
        var items: [Album]
    }

    struct SongPage: Encodable {
        var total: Int?
        var offset: Int
        var songs: [Song]
    }

    struct FolderPage: Encodable {
        var path: String
        var total: Int
        var offset: Int
        var folders: [String]
        var songs: [Song]
    }

    struct Playlist: Encodable {
        var name: String
        var modified: String?
    }

    struct Playlists: Encodable {
        var playlists: [Playlist]
    }

    struct PracticeDay: Encodable {
        var day: String
        var seconds: Double
    }

    struct PracticePart: Encodable {
        var name: String
        var seconds: Double
    }

    struct PracticeTrack: Encodable {
        var file: String
        var title: String?
        var artist: String?
        var seconds: Double
        var sections: [PracticePart]
    }

    struct Practice: Encodable {
        var from: String
        var to: String
        var total: Double
        var days: [PracticeDay]
        var tracks: [PracticeTrack]
    }

    struct Card: Encodable {
        var id: String
        var target: String
        var volumeMax: Int?
        var origin: String
    }

    /// The cards page's list. `learning` is always written (null when no card is being learnt), as the schema says.
    struct Cards: Encodable {
        var cards: [Card]
        var unknown: [String]
        var learning: String?

        enum CodingKeys: String, CodingKey {
            case cards, unknown, learning
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(cards, forKey: .cards)
            try container.encode(unknown, forKey: .unknown)
            try container.encode(learning, forKey: .learning)
        }
    }

    struct Finding: Encodable {
        var ok: Bool
        var what: String
        var fix: String?
    }

    struct Output: Encodable {
        var id: Int
        var name: String
        var enabled: Bool
    }

    struct Library: Encodable {
        var songs: Int
        var albums: Int
        var artists: Int
    }

    struct Scan: Encodable {
        var running: Bool
        var phase: String?
        var done: Int?
        var total: Int?
        var summary: String?
    }

    struct Box: Encodable {
        var version: String
        var findings: [Finding]
        var outputs: [Output]
        var volumeMax: Int
        var volumeStart: Int?
        var upload: Bool
        var library: Library
        var scan: Scan
    }

    struct Uploaded: Encodable {
        var file: String
    }

    struct InputEvent: Encodable {
        var device: String?
        var control: String
        var gesture: String
        var action: String?
    }

    struct CardEvent: Encodable {
        var id: String
        var known: Bool
        var learned: String?
    }

    struct Version: Encodable {
        var version: Int
    }

    struct Empty: Encodable {}

    struct Failure: Encodable {
        var error: String
    }

    /// The encoder every answer goes through: snake_case keys, no escaped slashes (paths read as written).
    static func encode(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return (try? encoder.encode(value)) ?? Data(#"{"error":"the answer could not be written"}"#.utf8)
    }
}
