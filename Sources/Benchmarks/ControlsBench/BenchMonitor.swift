import AudioCore
import Controls
import FermataCore
import Foundation
import Logging

/// `monitor`: what `fermata gpio monitor` prints (events only, no player), for the libgpiod v2 variant build, which
/// builds this small product rather than the whole CLI.
struct BenchMonitor {
    let arguments: BenchArguments

    init(_ arguments: BenchArguments) {
        self.arguments = arguments
    }

    func run() async throws {
        guard let board = arguments.options["--board"] else { throw BenchError(description: "monitor needs --board") }
        var overrides: [ProfileEntry] = []
        if let config = arguments.options["--config"] {
            overrides = try ProfileFile.parse(String(contentsOfFile: config, encoding: .utf8), file: config)
        }
        let profile = try BoardProfile.load(file: board, overrides: overrides)
        let started = MonotonicClock.nanoseconds()
        let library = GPIOInputService.libraryDescription(debounceMs: profile.controls.debounceMs)
        emit("  0.000000  fermata-controls-bench monitor: \(library); board \(profile.name)")
        let service = GPIOInputService(config: profile.controls, player: NullPlayer(), logger: Logger(label: "bench"),
                                       extraActions: { _ in }, observer: { event in
            emit(event.monitorLine(since: started))
        })
        let task = Task { try await service.run() }
        let seconds = Double(arguments.options["--duration"] ?? "") ?? 3600
        try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
        task.cancel()
        try await task.value
    }
}

/// Writes one line to stdout at once (it may be a file).
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Accepts every action; records when each arrived.
struct NullPlayer: PlayerControl {
    func perform(_ action: ControlAction) async throws {}
    func status() async -> PlayerStatus { PlayerStatus() }
}
