import Foundation
import Testing
import TestSupport

/// The committed manual pages (docs/man, what the package installs) describe the programs as they are: every
/// subcommand and every long option the programs' own help lists (`--experimental-dump-help`, the argument parser's
/// description of itself) is on the page. A command or option added without `deploy/make-man-pages.sh` fails here.
@Suite struct ManPageTests {
    /// A command of the dump, with what the page must name.
    struct Command: Decodable {
        struct Argument: Decodable {
            struct Name: Decodable {
                let kind: String
                let name: String
            }
            let names: [Name]?
            let shouldDisplay: Bool
        }
        let commandName: String
        let shouldDisplay: Bool?
        let arguments: [Argument]?
        let subcommands: [Command]?
    }

    struct Dump: Decodable {
        let command: Command
    }

    /// The subcommand names (`Em NAME` items) and long options (`Fl -NAME`) the page must hold.
    static func names(_ command: Command, top: Bool) -> [String] {
        var out: [String] = top ? [] : ["Em \(command.commandName)"]
        for argument in command.arguments ?? [] where argument.shouldDisplay {
            for name in argument.names ?? [] where name.kind == "long" { out.append("Fl -\(name.name)") }
        }
        for sub in command.subcommands ?? [] where sub.shouldDisplay != false { out += names(sub, top: false) }
        return out
    }

    @Test(arguments: [("fermata", "fermata.1"), ("fermatad", "fermatad.8")])
    func thePageNamesEverySubcommandAndOption(_ program: String, _ page: String) async throws {
        let result = try await onThread {
            try ProgramResult.run(DeployTests.binaries + "/" + program, ["--experimental-dump-help"])
        }
        let dump = try JSONDecoder().decode(Dump.self, from: Data(result.output.utf8))
        let text = try String(contentsOfFile: DeployTests.project + "/docs/man/" + page, encoding: .utf8)
        let wanted = Self.names(dump.command, top: true)
        #expect(wanted.count > (program == "fermata" ? 40 : 8), "the dump lists \(wanted.count) names")
        // An option with a short name too is written "Fl q , -quiet".
        let missing = wanted.filter { !text.contains($0) && !text.contains(", " + $0.dropFirst(3)) }
        #expect(missing.isEmpty, "docs/man/\(page) lacks \(missing): run deploy/make-man-pages.sh")
    }
}
