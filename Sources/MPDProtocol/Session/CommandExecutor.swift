/// Lines to run as one unit: a single command, or a command list (`command_list_begin` … `command_list_end`).
public struct CommandBatch: Sendable, Hashable {
    public enum Mode: Sendable, Hashable {
        case single
        /// With `ok`, each successful command is followed by `list_OK`.
        case list(ok: Bool)
    }

    public var lines: [[UInt8]]
    public var mode: Mode

    public init(lines: [[UInt8]], mode: Mode) {
        self.lines = lines
        self.mode = mode
    }
}

/// What running a batch produced: the bytes to send, the connection's updated settings, and what happens next.
public struct BatchResult: Sendable, Hashable {
    public var output: [UInt8]
    public var client: ClientSettings
    public var outcome: CommandOutcome
}

/// Runs command batches against a backend: tokenizes each line, looks the command up, checks permission and argument
/// count, runs the handler, and renders `OK`, `list_OK` or `ACK [code@index] {command} message` as MPD does. A list
/// stops at its first error; output of the commands before it is kept.
///
/// Immutable and `Sendable`; `run` is called from any task, one batch at a time per connection.
public struct CommandExecutor: Sendable {
    public let backend: any MPDBackend
    public let config: SessionConfig

    public init(backend: any MPDBackend, config: SessionConfig) {
        self.backend = backend
        self.config = config
    }

    public func run(_ batch: CommandBatch, client: ClientSettings) async -> BatchResult {
        var output: [UInt8] = []
        var client = client
        for (index, line) in batch.lines.enumerated() {
            let step = await runOne(line, index: index, inList: batch.mode != .single, client: &client)
            output.append(contentsOf: step.output)
            switch step.outcome {
            case .ok: if batch.mode == .list(ok: true) { output.append(contentsOf: "list_OK\n".utf8) }
            case .failed: return BatchResult(output: output, client: client, outcome: .continue)
            case .close: return BatchResult(output: output, client: client, outcome: .close)
            case let .idle(wanted): return BatchResult(output: output, client: client, outcome: .idle(wanted))
            }
        }
        output.append(contentsOf: "OK\n".utf8)
        return BatchResult(output: output, client: client, outcome: .continue)
    }

    private enum StepOutcome {
        case ok
        case failed
        case close
        case idle(IdleSet)
    }

    private func runOne(
        _ line: [UInt8], index: Int, inList: Bool, client: inout ClientSettings
    )
        async -> (output: [UInt8], outcome: StepOutcome)
    {
        let tokens: CommandLineTokenizer.Tokens
        do {
            guard let parsed = try CommandLineTokenizer.tokenize(line) else {
                return (Array(MPDError(.unknown, "No command given").ackLine(index: index, command: "").utf8), .close)
            }
            tokens = parsed
        } catch {
            let ack = Array(MPDError(.unknown, error.message).ackLine(index: index, command: "").utf8)
            return (ack, error.inCommandName ? .close : .failed)
        }
        guard let spec = CommandTable.lookup(tokens.name) else {
            return (Array(MPDError.unknownCommand(tokens.name).ackLine(index: index, command: "").utf8), .failed)
        }
        var context = CommandContext(
            name: spec.name, arguments: tokens.arguments, backend: backend, config: config, client: client
        )
        do {
            try spec.check(arguments: tokens.arguments.count, permissions: client.permissions)
            if inList, spec.name == "idle" { throw MPDError(.argument, "idle is not possible in a command list") }
            try await spec.handler(&context)
        } catch {
            let failure = (error as? MPDError) ?? MPDError(.system, String(describing: error))
            return (Array(failure.ackLine(index: index, command: spec.name).utf8), .failed)
        }
        client = context.client
        switch context.outcome {
        case .continue: return (context.response.bytes, .ok)
        case .close: return (context.response.bytes, .close)
        case let .idle(wanted): return (context.response.bytes, .idle(wanted))
        }
    }
}
