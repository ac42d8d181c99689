import ArgumentParser
import FermataConfig
import Foundation

/// `fermata config show`: the effective configuration and where each value came from.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "config", abstract: "Show the configuration.",
                                                    subcommands: [Show.self], defaultSubcommand: Show.self)

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
