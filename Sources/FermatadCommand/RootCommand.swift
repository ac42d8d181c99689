import ArgumentParser

/// Runs a root command as ArgumentParser's asynchronous `main()` does: parses the program's arguments, runs the
/// command (asynchronously when it is an `AsyncParsableCommand`), exits with ArgumentParser's message and status on an
/// error. Top-level code calling `main()` on such a type picks its synchronous twin, which cannot run an async command;
/// the multi-call program's `main.swift` (and fermatad's) call this instead.
public enum RootCommand {
    public static func run(_ root: any ParsableCommand.Type) async {
        do {
            var command = try root.parseAsRoot()
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            root.exit(withError: error)
        }
    }
}
