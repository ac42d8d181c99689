import Foundation
import Testing

/// Paths that lead out of the music directory are refused with an ACK by the real daemon (raw protocol and `mpc`),
/// the queue and stored playlists stay unchanged, and the scanner does not index what a symlink leads to outside.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct PathSafetyTests {
    typealias M = MusicFixture

    /// Refused `add` arguments and the ACK each must get.
    static let refusals: [(uri: String, ack: String)] = [
        ("../../etc/passwd", "ACK [50@0] {add} No such directory"),
        ("Beta/../../etc/passwd", "ACK [50@0] {add} No such directory"),
        ("/etc/passwd", "ACK [4@0] {add} Access denied"),
        (M.passwordLink, "ACK [4@0] {add} Access denied"),
        (M.escapingDirectoryLink, "ACK [4@0] {add} Access denied"),
        (M.escapingFileInLink, "ACK [4@0] {add} Access denied"),
    ]

    @Test func addRefusesPathsOutsideTheMusicDirectory() async throws {
        try await Daemon.with { daemon async throws in
            try await daemon.ok("add \"\(M.one.path)\"")
            let version = try await daemon.status()["playlist"]
            for (uri, ack) in Self.refusals {
                #expect(try await daemon.command("add \"\(uri)\"").ack == ack, "add \(uri)")
                let addid = ack.replacingOccurrences(of: "{add}", with: "{addid}")
                    .replacingOccurrences(of: "No such directory", with: "No such song")
                #expect(try await daemon.command("addid \"\(uri)\"").ack == addid, "addid \(uri)")
                #expect(try await daemon.command("playlistadd p \"\(uri)\"").ack?.hasPrefix("ACK [") == true)
            }
            #expect(try await daemon.queue() == [M.one.path], "the queue is unchanged")
            #expect(try await daemon.status()["playlist"] == version, "no queue version was spent")
            #expect(try await daemon.ok("listplaylists").pairs.isEmpty, "no stored playlist was created")
        }
    }

    @Test func mpcAddIsRefusedWithTheDaemonsMessage() async throws {
        try await Daemon.with { daemon async throws in
            for (uri, ack) in Self.refusals {
                let message = String(ack[ack.range(of: "} ")!.upperBound...])
                let add = try await daemon.mpc("add", uri)
                #expect(add.status == 1 && add.stderr == "error adding \(uri): \(message)\n", "\(add)")
                let insert = try await daemon.mpc("insert", uri)
                #expect(insert.status == 1 && insert.stderr.contains(message), "\(insert)")
            }
            #expect(try await daemon.queue() == [])
            #expect(try await daemon.mpc("playlist").output == "")
        }
    }

    @Test func otherCommandsDoNotReadOutside() async throws {
        try await Daemon.with { daemon async throws in
            for command in ["listfiles", "lsinfo", "listall", "listallinfo", "update", "rescan"] {
                for uri in [M.escapingDirectoryLink, "/etc", "../.."] {
                    let reply = try await daemon.command("\(command) \"\(uri)\"")
                    #expect(reply.ack != nil && reply.pairs.isEmpty, "\(command) \(uri): \(reply)")
                }
            }
            for command in ["albumart", "readpicture"] {
                for uri in [M.passwordLink, M.escapingFileInLink, "/etc/passwd", "../../etc/passwd"] {
                    let reply = try await daemon.command("\(command) \"\(uri)\" 0")
                    #expect(reply.ack != nil && reply.pairs.isEmpty, "\(command) \(uri): \(reply)")
                }
            }
            let art = try await daemon.mpc("albumart", M.passwordLink)
            #expect(art.status == 1 && art.stdout.isEmpty && art.stderr == "MPD error: Access denied\n", "\(art)")
            let sticker = try await daemon.command("sticker set song \"\(M.escapingFileInLink)\" rating 5")
            #expect(sticker.ack != nil, "\(sticker)")
        }
    }

    @Test func scanDoesNotFollowLinksOutOfTheLibrary() async throws {
        try await Daemon.with { daemon async throws in
            #expect(try await daemon.mpc("listall").output == M.tracks.map { $0.path + "\n" }.joined())
            #expect(try await daemon.mpc("search", "title", "Secret").output == "")
            #expect(try await daemon.mpc("list", "artist").output == "Alpha Band\nBeta\n")
            #expect(try await daemon.ok("lsinfo").all("directory") == ["Alpha Band", "Beta"])
            #expect(try await daemon.mpc("findadd", "artist", "Outsider").status == 0)
            #expect(try await daemon.queue() == [])
        }
    }
}
