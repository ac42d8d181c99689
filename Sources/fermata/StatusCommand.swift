import ArgumentParser
import Foundation

/// `fermata status [--json]`: what is playing, the modes and the loop.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show what is playing.")
    @OptionGroup var connection: ConnectionOptions
    @Flag(help: "Machine-readable output.") var json = false

    func run() throws {
        try withConnection(connection) { client in
            let status = dictionary(try client.command("status"))
            let song = dictionary(try client.command("currentsong"))
            let loop = dictionary(try client.command("loop_status"))
            print(json ? Self.json(status, song, loop) : Self.human(status, song, loop), terminator: "")
        }
    }

    static func repeatMode(_ status: [String: String]) -> String {
        status["repeat"] != "1" ? "off" : status["single"] == "1" ? "track" : "queue"
    }

    static func human(_ status: [String: String], _ song: [String: String], _ loop: [String: String]) -> String {
        let state = status["state"] ?? "stop"
        var out = ""
        let word = ["play": "playing", "pause": "paused", "stop": "stopped"][state] ?? state
        if let position = status["song"].flatMap(Int.init), let length = status["playlistlength"] {
            let title = [song["Artist"], song["Title"]].compactMap { $0 }.joined(separator: " - ")
            out += "\(word)  \(position + 1)/\(length)  \(title.isEmpty ? song["file"] ?? "" : title)\n"
            let elapsed = status["elapsed"].flatMap(Double.init) ?? 0
            if let file = song["file"], isStream(file) {
                // A network stream: its station (icy-name) and address; no length, the time since it started.
                out += "stream   \(song["Name"].map { "\($0)  " } ?? "")\(file)\n"
                out += "time     \(clock(elapsed)) (live)\n"
            } else {
                let duration = status["duration"].flatMap(Double.init).map { " / " + clock($0) } ?? ""
                out += "time     \(clock(elapsed))\(duration)\n"
            }
        } else {
            out += "\(word)  queue: \(status["playlistlength"] ?? "0") songs\n"
        }
        out += "volume   \(status["volume"] ?? "-")  repeat \(repeatMode(status))  random \(onOff(status["random"]))  "
            + "consume \(onOff(status["consume"]))\n"
        if let start = loop["loop_start"].flatMap(Double.init), let end = loop["loop_end"].flatMap(Double.init) {
            out += "loop     \(clock(start, millis: true)) - \(clock(end, millis: true))\n"
        } else if let pending = loop["loop_pending_a"].flatMap(Double.init) {
            out += "loop     A at \(clock(pending, millis: true)), waiting for B\n"
        }
        if let error = status["error"] { out += "problem  \(error)\n" }
        return out
    }

    static func onOff(_ value: String?) -> String { value == "1" ? "on" : "off" }

    /// An http(s) URL in the queue: a network stream.
    static func isStream(_ file: String) -> Bool {
        let lower = file.prefix(8).lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    static func json(_ status: [String: String], _ song: [String: String], _ loop: [String: String]) -> String {
        var object: [String: Any] = [
            "state": status["state"] ?? "stop",
            "volume": Int(status["volume"] ?? "") ?? -1,
            "repeat": repeatMode(status),
            "random": status["random"] == "1",
            "consume": status["consume"] == "1",
            "queueLength": Int(status["playlistlength"] ?? "0") ?? 0,
        ]
        if let position = status["song"].flatMap(Int.init) { object["position"] = position + 1 }
        if let id = status["songid"].flatMap(Int.init) { object["id"] = id }
        if let elapsed = status["elapsed"].flatMap(Double.init) { object["elapsed"] = elapsed }
        if let duration = status["duration"].flatMap(Double.init) { object["duration"] = duration }
        for (key, name) in [("file", "file"), ("Artist", "artist"), ("Title", "title"), ("Album", "album"),
                            ("Name", "name")] {
            if let value = song[key] { object[name] = value }
        }
        if let file = song["file"], isStream(file) { object["stream"] = true }
        if let start = loop["loop_start"].flatMap(Double.init), let end = loop["loop_end"].flatMap(Double.init) {
            object["loop"] = ["start": start, "end": end]
        }
        if let error = status["error"] { object["error"] = error }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
