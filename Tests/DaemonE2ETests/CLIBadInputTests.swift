import Foundation
import TestSupport
import Testing

/// The CLI refuses what is not a position, a time or a step where it parses it (exit 64, a message naming the
/// problem) and sends nothing: `queue rm 0` used to become `delete -1`, which emptied the whole queue, and
/// `seek 1e300` was passed through to the daemon.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct CLIBadInputTests {
    @Test func badPositionsTimesAndStepsAreRefusedAndTheQueueIsKept() async throws {
        try await Daemon.with { daemon async throws in
            #expect(try await daemon.fermata("queue", "add", "Alpha Band", "Beta").status == 0)
            let queue = try await daemon.queue()
            #expect(queue.count == 5)
            let refused: [([String], String)] = [
                (["queue", "rm", "0"], "positions start at 1"),
                (["queue", "rm", "1", "0"], "positions start at 1"),
                (["queue", "rm", "99999999999999999999"], "from 1 to 2147483647"),
                (["queue", "move", "0", "1"], "positions start at 1"),
                (["play", "0"], "positions start at 1"),
                // Was taken for a file name (`Int` could not read it) and "played" nothing.
                (["play", "99999999999999999999"], "from 1 to 2147483647"),
                (["seek", "1e300"], "TIME must be"),
                (["seek", "+nan"], "TIME must be"),
                (["seek", "1:75"], "TIME must be"),
                (["volume", "+9223372036854775807"], "volume must be"),
                (["tempo", "+9223372036854775807"], "speed must be"),
                (["transpose", "13"], "transposition must be"),
                (["transpose", "--", "-9223372036854775808"], "transposition must be"),
                (["loop", "set", "0", "1e300"], "loop set A B"),
                (["loop", "nudge", "a", "99999999999"], "loop nudge"),
                // `abs(Int.min)` trapped (SIGILL, exit 132), with or without the `--`.
                (["loop", "nudge", "a", "-9223372036854775808"], "loop nudge"),
                (["loop", "nudge", "b", "--", "-9223372036854775808"], "loop nudge"),
                // A mistyped option is a word to `.allUnrecognized`: refused, not `loop_clear` on the default daemon.
                (["loop", "clear", "--sokcet", "/nonexistent"], "use: loop a | b"),
                (["countin", "4", "--bpm", "nan"], "--bpm must be"),
            ]
            for (arguments, message) in refused {
                let result = try await daemon.fermata(arguments: arguments)
                #expect(result.status == 64, "\(arguments): \(result)")
                #expect(result.stderr.contains(message), "\(arguments): \(result)")
            }
            #expect(try await daemon.queue() == queue, "nothing was sent")
            // Duplicates name one entry once: `rm 2 2` removes one entry, not two.
            #expect(try await daemon.fermata("queue", "rm", "2", "2").status == 0)
            #expect(try await daemon.queue() == [queue[0]] + queue[2...])
        }
    }
}
