import Foundation
import Testing
import TestSupport

/// Internet radio from a real Icecast 2 on loopback, fed by ffmpeg (`icecast.py`): an MP3, an AAC (ADTS), an Ogg
/// Vorbis, an Ogg Opus and an Ogg FLAC mount each play, and what fermatad wrote to its output is, sample for sample,
/// the reference decoder's decode of what was sent (`reference.py`: the capture is found in the decode of the source
/// and compared from the decoder's warm-up on: a listener joins mid-stream). Titles set through Icecast's admin reach
/// `currentsong` and wake an `idle player` client.
@Suite(.serialized) struct IcecastStreamTests {
    /// Mount, source file, the capture's sample format, the least audio compared (seconds).
    static let mounts: [(mount: String, file: String, format: String)] = [
        ("mp3", "src.mp3", "f32le"), ("aac", "src.aac", "f32le"), ("vorbis", "src.ogg", "f32le"),
        ("opus", "src.opus", "f32le"), ("flac", "src.oga", "s32le"),
    ]

    /// The Icecast server of one test, stopped when released.
    final class Icecast: Sendable {
        let directory: TemporaryDirectory
        let port: Int

        init() throws {
            directory = try TemporaryDirectory(prefix: "fermata-icecast")
            try StreamTools.run("icecast.py", ["fixtures", directory.path, "--seconds", "20"])
            let out = try StreamTools.run("icecast.py", ["start", directory.path])
            port = Int(out.split(separator: "\n").last.map(String.init) ?? "") ?? 0
        }

        deinit { _ = try? StreamTools.run("icecast.py", ["stop", directory.path]) }

        /// Feeds `file` to `/mount`; its listen URL.
        func feed(_ mount: String, _ file: String) throws -> String {
            try StreamTools.run("icecast.py", ["feed", directory.path, mount, directory.file(file)])
                .split(separator: "\n").last.map(String.init) ?? ""
        }

        func title(_ mount: String, _ text: String) throws {
            try StreamTools.run("icecast.py", ["title", directory.path, mount, text])
        }
    }

    @Test func everyFormatPlaysAsTheReferenceDecodesIt() async throws {
        let icecast = try await onThread { try Icecast() }
        let urls = try await onThread { try Self.mounts.map { try icecast.feed($0.mount, $0.file) } }
        // One daemon a mount, side by side, each capturing its output (8 bytes a frame: stereo f32 or s32). A network
        // buffer of 5 s, not the default 2: the suite runs beside the others on 2 busy cores, and a reader starved for
        // longer than its buffer inserts a silence the comparison rightly refuses (the capture is then not the
        // stream's samples); 5 s of Icecast's burst and real time still leaves 15 s of the 20 s source to compare.
        let daemons = try await onThread {
            try Self.mounts.map { _ in
                try StreamDaemon(output: "file:$ROOT/capture.raw", config: "[streams]\nbuffer_ms = 5000\n")
            }
        }
        try await onThread {
            for (daemon, url) in zip(daemons, urls) {
                try daemon.ok("add " + url.quoted)
                try daemon.ok("play")
            }
        }
        // Six seconds of audio each (Icecast's burst, then real time), judged by what the captures hold.
        let captured = try await Patience.wait {
            daemons.allSatisfy { Self.size($0.root.file("capture.raw")) >= 6 * 48_000 * 8 }
        }
        #expect(captured, "\(daemons.map(\.log))")
        for daemon in daemons { #expect(try await onThread { daemon.stop() } == 0, "\(daemon.log)") }
        for (mount, daemon) in zip(Self.mounts, daemons) {
            let verdict = try await onThread {
                try Self.compare(icecast.directory.file(mount.file), daemon.root.file("capture.raw"), mount.format)
            }
            #expect(verdict.verdict == "exact", "\(mount.mount): \(verdict.text)")
            #expect(verdict.comparedFrames >= 4 * verdict.rate && verdict.rate > 0, "\(mount.mount): \(verdict.text)")
            #expect(verdict.maxDifference == 0, "\(mount.mount): \(verdict.text)")
        }
    }

    /// A title set through Icecast's admin is the song's `Title:` and wakes `idle player`; the station's name is
    /// `Name:`. MP3 (ICY metadata) and Ogg Vorbis (a new chained stream's comments) carry titles differently.
    @Test(arguments: ["mp3", "vorbis"])
    func titlesReachClients(mount: String) async throws {
        let icecast = try await onThread { try Icecast() }
        let file = Self.mounts.first { $0.mount == mount }!.file
        let url = try await onThread { try icecast.feed(mount, file) }
        let daemon = try await onThread { try StreamDaemon() }
        try await onThread {
            try daemon.ok("add " + url.quoted)
            try daemon.ok("play")
        }
        let playing = try await Patience.wait { Double((try? daemon.status()["elapsed"]) ?? nil ?? "0") ?? 0 > 1 }
        #expect(playing, "\(daemon.log)")
        for round in 1...2 {
            let text = "Fermata title \(round) \(mount)"
            let (woke, seconds, song) = try await onThread { () -> (Bool, Double, MPDReply) in
                let idle = try daemon.client()
                try idle.sendLine("idle player")
                let started = ContinuousClock.now
                try icecast.title(mount, text)
                // Other player changes may come first: idle again until the title is the new one.
                while true {
                    let reply = try idle.readReply()
                    let song = try daemon.ok("currentsong")
                    if song.all("Title") == [text] {
                        let took = ContinuousClock.now - started
                        return (reply.all("changed").contains("player"),
                                Double(took.components.seconds) + Double(took.components.attoseconds) * 1e-18, song)
                    }
                    try idle.sendLine("idle player")
                }
            }
            #expect(woke, "idle player woke for \(text)")
            #expect(song.all("Name").count == 1, "the station's name: \(song)")
            // The admin call's time included; Icecast sends titles at its 16,000-byte metadata points (about 1 s at
            // 128 kb/s). The bound is for a loaded machine; docs/streams.md has the measured figures.
            #expect(seconds < 10, "\(mount): the title took \(seconds) s")
            print("stream title \(mount) round \(round): \(String(format: "%.3f", seconds)) s from the admin call")
        }
        #expect(try await onThread { daemon.stop() } == 0)
    }

    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    /// reference.py's verdict on a capture: its words, the frames compared, the rate, the largest difference.
    struct Verdict: Sendable {
        var verdict: String
        var comparedFrames: Int
        var rate: Int
        var maxDifference: Double
        var text: String
    }

    static func compare(_ source: String, _ capture: String, _ format: String) throws -> Verdict {
        let result = try ProgramResult.run(StreamTools.python, [StreamTools.tool("reference.py"), "compare", source,
                                                                 capture, "--capture-format", format])
        guard let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] else {
            throw FermatadProcess.Failure(description: "reference.py: \(result)")
        }
        return Verdict(verdict: object["verdict"] as? String ?? "", comparedFrames: object["compared_frames"] as? Int ?? 0,
                       rate: object["rate"] as? Int ?? 0,
                       maxDifference: (object["max_abs_diff"] as? NSNumber)?.doubleValue ?? .infinity,
                       text: result.output)
    }
}
