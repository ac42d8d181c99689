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

/// What running a batch produced: the bytes to send, the connection's updated settings, what happens next, and what
/// the server must know beyond the bytes (output cut off at its limit; a `password` accepted or refused).
public struct BatchResult: Sendable, Hashable {
    /// What a `password` command in the batch did; the server throttles refused ones (see `MPDServer`).
    public enum PasswordAttempt: Sendable, Hashable {
        case accepted
        case refused
    }

    public var output: [UInt8]
    public var client: ClientSettings
    public var outcome: CommandOutcome
    /// The output reached the limit given to `run`: the batch stopped there and `outcome` is `.close`.
    public var outputLimitReached = false
    /// The last `password` command's result, nil when the batch ran none.
    public var password: PasswordAttempt?

    public init(
        output: [UInt8], client: ClientSettings, outcome: CommandOutcome, outputLimitReached: Bool = false,
        password: PasswordAttempt? = nil
    ) {
        self.output = output
        self.client = client
        self.outcome = outcome
        self.outputLimitReached = outputLimitReached
        self.password = password
    }
}

/// Runs command batches against a backend: tokenizes each line, looks the command up, checks permission and argument
/// count, runs the handler, and renders `OK`, `list_OK` or `ACK [code@index] {command} message` as MPD does. A list
/// stops at its first error; output of the commands before it is kept.
///
/// Output is bounded while it is produced: each handler's `Response` is capped at what is left of `outputLimit`, and
/// as soon as the batch's output reaches the limit the batch stops and the result says `.close` (MPD expires a client
/// whose output buffer is full, and a command list stops there). So a batch never holds more than the limit plus one
/// line or binary chunk, however many commands it lists.
///
/// Immutable and `Sendable`; `run` is called from any task, one batch at a time per connection.
public struct CommandExecutor: Sendable {
    public let backend: any MPDBackend
    public let config: SessionConfig

    public init(backend: any MPDBackend, config: SessionConfig) {
        self.backend = backend
        self.config = config
    }

    /// Runs `batch` for a client with `client` settings. `outputLimit`: the most bytes the client may still be sent
    /// (the server passes its per-client output limit less what is still pending).
    public func run(_ batch: CommandBatch, client: ClientSettings, outputLimit: Int = .max) async -> BatchResult {
        await backend.ready()
        guard batch.mode == .single else {
            return await backend.commandList { await runLines(batch, client: client, outputLimit: outputLimit) }
        }
        return await runLines(batch, client: client, outputLimit: outputLimit)
    }

    private func runLines(_ batch: CommandBatch, client: ClientSettings, outputLimit: Int) async -> BatchResult {
        var output: [UInt8] = []
        var client = client
        var password: BatchResult.PasswordAttempt?
        func result(_ outcome: CommandOutcome, limitReached: Bool = false) -> BatchResult {
            BatchResult(
                output: output, client: client, outcome: outcome, outputLimitReached: limitReached, password: password)
        }
        var index = 0
        while index < batch.lines.count {
            defer { index += 1 }
            let line = batch.lines[index]
            // A run of plain `add URI` lines in a list goes to the backend in one call, answered line by line.
            if batch.mode != .single, let uris = appendRun(batch.lines, from: index, client: client), uris.count > 1 {
                let (added, failure) = await backend.appendEach(uris)
                if batch.mode == .list(ok: true) {
                    for _ in 0..<added { output.append(contentsOf: Self.listOK) }
                }
                if let failure {
                    let error = (failure as? MPDError) ?? MPDError(.system, String(describing: failure))
                    output.append(contentsOf: error.ackLine(index: index + added, command: "add").utf8)
                    return result(.continue)
                }
                index += uris.count - 1
                continue
            }
            let step = await runOne(
                line, index: index, inList: batch.mode != .single, outputLimit: outputLimit - output.count,
                client: &client, password: &password)
            Self.reserve(step.output.count, in: &output, limit: outputLimit)
            output.append(contentsOf: step.output)
            // At the limit the answer may be cut short: no `list_OK` may claim it complete.
            if output.count >= outputLimit { return result(.close, limitReached: true) }
            switch step.outcome {
            case .ok:
                guard batch.mode == .list(ok: true) else { continue }
                output.append(contentsOf: Self.listOK)
                if output.count >= outputLimit { return result(.close, limitReached: true) }
            case .failed: return result(.continue)
            case .close: return result(.close)
            case let .idle(wanted): return result(.idle(wanted))
            }
        }
        // Everything fitted below the limit (nothing was cut off), so the terminator goes out even if it ends past it.
        output.append(contentsOf: Self.ok)
        return result(.continue)
    }

    /// Makes room for `count` more bytes. Once a batch's answer is large it grows straight to its limit: doubling a
    /// multi-megabyte buffer copies it and holds both copies at once (200 × `listallinfo` peaked at 1.35× RSS). The
    /// pages of the reserved room cost nothing until written.
    private static func reserve(_ count: Int, in output: inout [UInt8], limit: Int) {
        let needed = output.count + count
        guard needed > output.capacity, needed > 256 << 10 else { return }
        output.reserveCapacity(max(needed, min(limit, 64 << 20) + (64 << 10)))
    }

    private static let ok = Array("OK\n".utf8)
    private static let listOK = Array("list_OK\n".utf8)

    /// The URIs of the `add URI` lines from `start` on that would each pass the command's checks (permission,
    /// argument count, URI syntax), up to the first line that is anything else; nil when the first one is not such
    /// a line. That line and everything after it run as usual, so every refusal keeps its own ACK.
    private func appendRun(_ lines: [[UInt8]], from start: Int, client: ClientSettings) -> [String]? {
        guard let spec = CommandTable.lookup("add"), (try? spec.check(arguments: 1, permissions: client.permissions)) != nil
        else { return nil }
        var uris: [String] = []
        for line in lines[start...] {
            guard let tokens = try? CommandLineTokenizer.tokenize(line), tokens.name == "add",
                  tokens.arguments.count == 1,
                  let uri = try? URIValidator.checked(tokens.arguments[0], handlers: backend.capabilities.urlHandlers)
            else { break }
            uris.append(uri)
        }
        return uris.isEmpty ? nil : uris
    }

    private enum StepOutcome {
        case ok
        case failed
        case close
        case idle(IdleSet)
    }

    private func runOne(
        _ line: [UInt8], index: Int, inList: Bool, outputLimit: Int, client: inout ClientSettings,
        password: inout BatchResult.PasswordAttempt?
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
            name: spec.name, arguments: tokens.arguments, backend: backend, config: config, client: client,
            outputLimit: outputLimit
        )
        do {
            try spec.check(arguments: tokens.arguments.count, permissions: client.permissions)
            if inList, spec.name == "idle" { throw MPDError(.argument, "idle is not possible in a command list") }
            try await spec.handler(&context)
        } catch {
            let failure = (error as? MPDError) ?? MPDError(.system, String(describing: error))
            if spec.name == "password", failure.code == .password { password = .refused }
            return (Array(failure.ackLine(index: index, command: spec.name).utf8), .failed)
        }
        if spec.name == "password" { password = .accepted }
        client = context.client
        switch context.outcome {
        case .continue: return (context.response.bytes, .ok)
        case .close: return (context.response.bytes, .close)
        case let .idle(wanted): return (context.response.bytes, .idle(wanted))
        }
    }
}
