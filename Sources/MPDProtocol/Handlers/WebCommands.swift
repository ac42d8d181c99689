import FermataCore

/// The web remote's password: `webpassword owner|guest [PASSWORD]` sets it (stored as a yescrypt hash; the role's
/// sessions end), without PASSWORD removes it (that role can no longer log in from the network). `fermata web password`
/// sends it. Only through the Unix socket (`ClientSettings.local`): on TCP the password would cross the network in
/// clear, so it is refused there whatever the client's permissions.
///
/// Stateless; run on the executing command's task.
enum WebCommands {
    static func webPassword(_ c: inout CommandContext) async throws {
        guard c.client.local else {
            throw MPDError(.permission, "webpassword is taken only through the Unix socket (fermata web password on the box)")
        }
        guard let role = WebRole(rawValue: c.arguments[0]) else { throw MPDError.badArgument("role must be owner or guest") }
        let password = c.argument(1)
        if let password {
            guard (8...1024).contains(password.utf8.count) else {
                throw MPDError.badArgument("a web password is 8 to 1024 bytes")
            }
        }
        try await c.backend.setWebPassword(password, for: role)
    }
}
