import Foundation
import Testing
import TestSupport

/// Queue commands resolve positions in the same player turn as the edit: many clients sending `delete 0` at once
/// each delete whatever is first at that moment, as MPD does. Before, the position was looked up in one turn and the
/// entry removed in another, so two clients could pick the same entry and the second got "No such song" while the
/// queue still had songs.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct ConcurrentQueueEditTests {
    static let clients = 8, rounds = 4

    @Test func concurrentDeletesAtOnePositionEachRemoveOneEntry() async throws {
        try await Daemon.with { daemon async throws in
            let total = Self.clients * Self.rounds
            for _ in 0..<total { try await daemon.ok("add \"\(MusicFixture.one.path)\"") }
            let port = daemon.port
            let refusals = await withTaskGroup(of: [String].self) { group in
                for _ in 0..<Self.clients {
                    group.addTask {
                        (try? await onThread { () throws -> [String] in
                            var refused: [String] = []
                            for _ in 0..<Self.rounds {
                                let reply = try MPDTestClient(port: port).command("delete 0")
                                if let ack = reply.ack { refused.append(ack) }
                            }
                            return refused
                        }) ?? ["a connection failed"]
                    }
                }
                return await group.reduce(into: []) { $0 += $1 }
            }
            #expect(refusals.isEmpty, "every delete found an entry at position 0: \(refusals)")
            #expect(try await daemon.queue().isEmpty, "\(total) deletes emptied the \(total)-entry queue")
        }
    }

    @Test func concurrentMovesKeepEveryEntryOnce() async throws {
        try await Daemon.with { daemon async throws in
            for track in MusicFixture.tracks { try await daemon.ok("add \"\(track.path)\"") }
            let before = try await daemon.ok("playlistinfo").all("Id")
            let port = daemon.port, last = before.count - 1
            let refusals = await withTaskGroup(of: [String].self) { group in
                for client in 0..<Self.clients {
                    group.addTask {
                        (try? await onThread { () throws -> [String] in
                            var refused: [String] = []
                            for round in 0..<Self.rounds {
                                let line = (client + round) % 2 == 0 ? "move 0 \(last)" : "move \(last) 0"
                                if let ack = try MPDTestClient(port: port).command(line).ack { refused.append(ack) }
                            }
                            return refused
                        }) ?? ["a connection failed"]
                    }
                }
                return await group.reduce(into: []) { $0 += $1 }
            }
            #expect(refusals.isEmpty, "\(refusals)")
            #expect(try await daemon.ok("playlistinfo").all("Id").sorted() == before.sorted())
        }
    }
}
