import ArgumentParser
import FermataCore
import Foundation
import Glibc

/// `fermata web`: the web remote's passwords. `password` asks for one (twice, without echo; from a pipe, one line) and
/// gives it to fermatad through its Unix socket only — fermatad refuses it over TCP, where it would cross the network
/// in clear — which stores its hash and ends that role's sessions. `--guest` sets the guest's (play, pause, skip and the
/// volume within its cap); `--remove` takes a password away (that role can no longer log in from the network).
struct WebCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web", abstract: "The web remote's passwords.", subcommands: [WebPassword.self])
}

struct WebPassword: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "password",
        abstract: "Set the web remote's password (asked twice, not echoed), or the guest's with --guest.",
        discussion: """
            From the box itself (or through an SSH tunnel) the page needs no password; from any other address (with
            web.listen opened to the network) it asks for this one. The password goes to fermatad through its Unix
            socket, never over TCP, and only its hash is kept. Setting it logs out every session of that role.
            """)
    @Flag(help: "The guest's password: play, pause, skip and the volume, nothing else.") var guest = false
    @Flag(help: "Remove the password instead: that role cannot log in from the network.") var remove = false
    @Option(help: "fermatad's Unix socket (default $FERMATA_SOCKET, your own fermatad's, or /run/fermata/mpd.sock).")
    var socket: String?

    func run() throws {
        let role = guest ? WebRole.guest : WebRole.owner
        var line = "webpassword \(role.rawValue)"
        if !remove {
            let password = try Self.ask()
            line += " " + ControlConnection.quote(password)
        }
        // Its own connection: a ConnectionOptions made by hand has no parsed values to read (it trapped), and the
        // password goes over the Unix socket only.
        let path = ConnectionOptions.socketPath(socket)
        try withConnection({ try ControlConnection(socketPath: path, host: nil, port: 0) }) { client in
            _ = try client.command(line)
            print(remove ? "the \(role.rawValue)'s web password is removed" : "the \(role.rawValue)'s web password is set")
        }
    }

    /// The password: asked twice without echo on a terminal, else one line of standard input; 8 to 1024 bytes.
    static func ask() throws -> String {
        let terminal = isatty(STDIN_FILENO) == 1
        func read(_ prompt: String) -> String? {
            guard terminal else { return readLine(strippingNewline: true) }
            FileHandle.standardError.write(Data(prompt.utf8))
            var original = termios()
            tcgetattr(STDIN_FILENO, &original)
            var silent = original
            silent.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSANOW, &silent)
            defer {
                tcsetattr(STDIN_FILENO, TCSANOW, &original)
                FileHandle.standardError.write(Data("\n".utf8))
            }
            return readLine(strippingNewline: true)
        }
        guard let first = read("web password: "), !first.isEmpty else { throw ValidationError("no password given") }
        guard (8...1024).contains(first.utf8.count) else { throw ValidationError("a web password is 8 to 1024 bytes") }
        if terminal {
            guard read("again: ") == first else { throw ValidationError("the two passwords differ") }
        }
        return first
    }
}
