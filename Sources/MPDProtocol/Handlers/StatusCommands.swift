/// Handlers that report state: `status`, `currentsong`, `stats`.
///
/// Stateless; run on the executing command's task.
enum StatusCommands {
    static func status(_ c: inout CommandContext) async throws {
        c.response.status(try await c.backend.status())
    }

    static func currentSong(_ c: inout CommandContext) async throws {
        guard let id = try await c.backend.status().player.entryID else { return }
        guard let song = try? await c.backend.queueSongs(.id(id)).first else { return }
        c.printSong(song)
    }

    static func stats(_ c: inout CommandContext) async throws {
        c.response.stats(try await c.backend.stats())
    }
}
