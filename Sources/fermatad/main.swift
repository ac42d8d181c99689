import FermatadCommand

// The daemon on its own (`swift run fermatad`); the installed one is the `fermata` program called as fermatad.
await RootCommand.run(Fermatad.self)
