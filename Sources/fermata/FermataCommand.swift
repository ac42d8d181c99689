import ArgumentParser

/// `fermata`: the command-line tool for a Fermata box.
@main
struct FermataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fermata",
        abstract: "Fermata, a gapless headless jukebox: command-line tool.",
        subcommands: [PlayCommand.self]
    )
}
