import ArgumentParser
import FermataCore

/// `fermata`: the command-line tool for a Fermata box. Commands that talk to fermatad use its Unix socket
/// (`--socket`, default /run/fermata/mpd.sock) or TCP (`--host`). Exit status: 0 done, 1 refused by fermatad (its
/// message is printed), 3 fermatad unreachable, 4 `doctor` found problems, 64 bad usage (EX_USAGE).
struct FermataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fermata",
        abstract: "Fermata, a gapless headless jukebox: command-line tool.",
        version: FermataVersion.number,
        subcommands: [
            StatusCommand.self, PlayCommand.self, PauseCommand.self, StopCommand.self, NextCommand.self,
            PreviousCommand.self, SeekCommand.self, VolumeCommand.self, QueueCommand.self, SearchCommand.self,
            LoopCommand.self, TempoCommand.self, TransposeCommand.self, BeatCommand.self, MetronomeCommand.self,
            SectionCommand.self, TrainerCommand.self, CountInCommand.self, AnnounceCommand.self,
            ScanCommand.self, AudioCommand.self, ConfigCommand.self, DoctorCommand.self, GPIOCommand.self,
            PracticeStatsCommand.self, CardCommand.self, InputCommand.self, WebCommand.self, SleepCommand.self,
            AlarmCommand.self, RecordCommand.self, TakesCommand.self,
        ]
    )
}
