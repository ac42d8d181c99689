import Controls
import Foundation
import Logging

// fermata-controls-bench: measurements of the controls path, and a small monitor for the libgpiod v2 variant build.
//
//   fermata-controls-bench latency --sim | --pipe | --uinput [--presses N] [--debounce-ms N]
//   fermata-controls-bench idle --sim | --pipe [--seconds N]
//   fermata-controls-bench monitor --board FILE [--config FILE] [--duration SECONDS]
//
// --sim drives the gpio-sim chip of ../shared/kernel-lab (run it inside the lab: it needs $GPIO_SIM_SYSFS and
// $GPIO_SIM_LABEL); --pipe feeds edge records through a pipe into the same service path (no GPIO needed); --uinput
// makes a virtual USB foot pedal through /dev/uinput and presses it (the evdev path: kernel input core, EvdevHub).

LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
let arguments = BenchArguments(CommandLine.arguments.dropFirst())
do {
    switch arguments.command {
    case "latency": try await LatencyBenchmark(arguments).run()
    case "idle": try await IdleBenchmark(arguments).run()
    case "monitor": try await BenchMonitor(arguments).run()
    default:
        FileHandle.standardError.write(Data("""
            usage: fermata-controls-bench latency --sim|--pipe|--uinput [--presses N] [--debounce-ms N]
                   fermata-controls-bench idle --sim|--pipe [--seconds N]
                   fermata-controls-bench monitor --board FILE [--config FILE] [--duration SECONDS]

            """.utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("fermata-controls-bench: \(error)\n".utf8))
    exit(1)
}

/// `COMMAND --flag --option VALUE ...`, read loosely.
struct BenchArguments {
    var command = ""
    var options: [String: String] = [:]
    var flags: Set<String> = []

    init(_ words: ArraySlice<String>) {
        var rest = words
        command = rest.popFirst() ?? ""
        while let word = rest.popFirst() {
            if let next = rest.first, !next.hasPrefix("--"), !["--sim", "--pipe", "--uinput"].contains(word) {
                options[word] = next
                rest.removeFirst()
            } else {
                flags.insert(word)
            }
        }
    }

    func int(_ name: String, _ fallback: Int) -> Int { options[name].flatMap(Int.init) ?? fallback }
    var sim: Bool { flags.contains("--sim") }
    var uinput: Bool { flags.contains("--uinput") }
}

/// A benchmark that could not run, with why.
struct BenchError: Error, CustomStringConvertible {
    var description: String
}
