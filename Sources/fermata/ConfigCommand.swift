import ArgumentParser
import FermataConfig
import FermataCore
import Foundation

/// `fermata config show`: the effective configuration and where each value came from; `fermata config reference`:
/// every key documented (docs/configuration.md, or the manual page fermata.toml(5) with `--man`).
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "config", abstract: "Show the configuration.",
                                                    subcommands: [Show.self, Reference.self], defaultSubcommand: Show.self)

    struct Reference: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reference",
            abstract: "Print every configuration key with its default and meaning (Markdown, or roff with --man).")
        @Flag(help: "The manual page fermata.toml(5) instead of Markdown.") var man = false

        func run() {
            print(man ? ConfigReference.manual(date: FermataVersion.date, version: FermataVersion.number)
                      : ConfigReference.markdown(), terminator: "")
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Print every key's effective value and its origin (default or FILE:LINE).")
        @Option(help: "Configuration file.") var config = "/etc/fermata/fermata.toml"

        func run() throws {
            var settings: DaemonConfig
            do {
                settings = try DaemonConfig.load(file: config, required: false)
                UserPlaces.applyForNormalUser(to: &settings)
            } catch {
                FileHandle.standardError.write(Data("fermata: configuration error: \(error)\n".utf8))
                throw ExitCode(ExitStatus.problems)
            }
            let rows = settings.effectiveValues()
            let width = rows.map(\.key.count).max() ?? 0
            for row in rows {
                print(row.key.padding(toLength: width, withPad: " ", startingAt: 0) + " = " + row.value + "  # " + row.origin)
            }
        }
    }
}
