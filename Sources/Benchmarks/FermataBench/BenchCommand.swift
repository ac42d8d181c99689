import AudioOutput
import Foundation
import TestSupport

/// `fermata-bench [transport|cpu|all] [--commands N] [--seconds N] [--output SPEC]`: prints the playing core's figures.
@main
struct BenchCommand {
    static func main() async throws {
        var arguments = Array(CommandLine.arguments.dropFirst())
        func option(_ name: String, _ fallback: String) -> String {
            guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return fallback }
            defer { arguments.removeSubrange(index...(index + 1)) }
            return arguments[index + 1]
        }
        let commands = Int(option("--commands", "200")) ?? 200
        let seconds = Int(option("--seconds", "120")) ?? 120
        let output = OutputSpec(parsing: option("--output", "null"))
        let which = arguments.first ?? "all"
        let directory = try TemporaryDirectory(prefix: "fermata-bench")
        if which == "transport" || which == "all" {
            try await TransportBenchmark.run(output: output, commands: commands, directory: directory)
        }
        if which == "cpu" || which == "all" {
            try await CPUBenchmark.run(seconds: seconds, directory: directory)
        }
    }
}
