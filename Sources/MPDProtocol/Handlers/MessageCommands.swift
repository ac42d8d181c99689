/// Handlers for client-to-client messages (MPD's `MessageCommands.cxx`): `subscribe`, `unsubscribe`, `channels`,
/// `readmessages`, `sendmessage`, over the connection's `ClientMailbox`.
///
/// Stateless; run on the executing command's task.
enum MessageCommands {
    static func subscribe(_ c: inout CommandContext) async throws {
        try mailbox(c).subscribe(to: c.arguments[0])
    }

    static func unsubscribe(_ c: inout CommandContext) async throws {
        try mailbox(c).unsubscribe(from: c.arguments[0])
    }

    static func channels(_ c: inout CommandContext) async throws {
        for channel in try mailbox(c).board.channels { c.response.line("channel", channel) }
    }

    static func readMessages(_ c: inout CommandContext) async throws {
        for message in try mailbox(c).takeMessages() {
            c.response.line("channel", message.channel)
            c.response.line("message", message.text)
        }
    }

    static func sendMessage(_ c: inout CommandContext) async throws {
        try mailbox(c).board.send(c.arguments[1], to: c.arguments[0])
    }

    private static func mailbox(_ c: CommandContext) throws(MPDError) -> ClientMailbox {
        guard let mailbox = c.client.mailbox else { throw MPDError(.unknown, "client-to-client messages are off here") }
        return mailbox
    }
}
