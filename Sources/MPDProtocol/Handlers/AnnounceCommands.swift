import FermataCore

/// Spoken announcements: `announce [TEXT]` and `announce_mode over|before [tracks]`.
///
/// Stateless; run on the executing command's task.
enum AnnounceCommands {
    /// `announce [TEXT]`: speak TEXT, or what is playing.
    static func announce(_ c: inout CommandContext) async throws {
        let text = c.arguments.isEmpty ? nil : c.arguments.joined(separator: " ")
        let limit = ControlAction.maxAnnouncementCharacters
        if let text, text.count > limit {
            throw MPDError(.argument, "announcement text is limited to \(limit) characters (got \(text.count))")
        }
        try await c.backend.perform(.announce(text))
    }

    /// `announce_mode over|before [tracks]`: ducked over the music or before it; `tracks`: at every track change.
    static func announceMode(_ c: inout CommandContext) async throws {
        guard ["over", "before"].contains(c.arguments[0]), c.arguments.dropFirst().allSatisfy({ $0 == "tracks" }) else {
            throw MPDError.badArgument("announce_mode over|before [tracks]")
        }
        try await c.backend.perform(.setAnnouncements(duck: c.arguments[0] == "over", onTrackChange: c.arguments.count == 2))
    }
}
