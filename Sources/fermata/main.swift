import FermatadCommand
import Foundation

// One program for both roles: called as `fermatad` (the package's /usr/bin/fermatad is a symbolic link to fermata) it
// is the daemon, otherwise the command-line tool. The Swift and Foundation runtime is then on the board once.
if URL(fileURLWithPath: CommandLine.arguments.first ?? "fermata").lastPathComponent == "fermatad" {
    await RootCommand.run(Fermatad.self)
} else {
    await RootCommand.run(FermataCommand.self)
}
