/// The protocol state machine of one client connection: consumes one line at a time and says what to do.
///
/// Knows command lists, idle/noidle, the pending idle changes and the connection's settings; runs no command itself
/// (`.execute` hands a batch to `CommandExecutor`, whose result comes back through `finish`). A value owned by one
/// connection (the NIO handler on its event loop, or a test); while a batch executes, the owner must hold further
/// lines back and feed them after `finish`.
public struct ConnectionSession: Sendable {
    public enum State: Sendable, Hashable {
        /// Waiting for a command.
        case ready
        /// Inside `command_list_begin`/`command_list_ok_begin`, collecting lines (and counting their bytes).
        case collecting(ok: Bool, lines: [[UInt8]], bytes: Int)
        /// A batch is running; the owner waits for `finish`.
        case executing
        /// In `idle`, waiting for changes in these subsystems or for `noidle`.
        case idle(IdleSet)
        /// The connection must be closed; everything else is ignored.
        case closed
    }

    /// What the owner must do after an event.
    public enum Action: Sendable, Hashable {
        case none
        case write([UInt8])
        /// Run the batch (asynchronously), then call `finish` with its result.
        case execute(CommandBatch)
        /// Write the bytes (possibly none), then close the connection.
        case writeAndClose([UInt8])
    }

    /// The first line a client receives.
    public static let greeting = Array("OK MPD \(SessionConfig.protocolVersion)\n".utf8)

    public private(set) var state: State = .ready
    /// Changes seen since the last idle report (MPD reports them at the next `idle`).
    public private(set) var pendingChanges = IdleSet()
    public private(set) var client: ClientSettings
    private let maxCommandListBytes: Int

    public init(config: SessionConfig) {
        client = config.initialClientSettings
        maxCommandListBytes = config.maxCommandListBytes
    }

    /// Gives the connection its mailbox for client-to-client messages (once, when it connects).
    public mutating func attach(_ mailbox: ClientMailbox) { client.mailbox = mailbox }

    /// Marks the connection as one through the Unix socket (`ClientSettings.local`), when it connects.
    public mutating func markLocal() { client.local = true }

    /// Whether the connection waits in `idle` (such a connection is never timed out).
    public var isIdle: Bool {
        if case .idle = state { return true }
        return false
    }

    /// Feeds one line (without its newline).
    public mutating func consume(_ line: [UInt8]) -> Action {
        let firstIsLowercase = line.first.map { $0 >= 0x61 && $0 <= 0x7A } ?? false
        switch state {
        case .closed: return .none
        case .executing: return close()
        case .idle:
            guard line == Self.noidle else { return close() }
            state = .ready
            return .write(Self.ok)
        case .ready:
            guard firstIsLowercase else { return close(ack: line.isEmpty ? "No command given" : "Malformed command") }
            if line == Self.noidle { return .none }
            if line == Self.listBegin || line == Self.listOKBegin {
                state = .collecting(ok: line == Self.listOKBegin, lines: [], bytes: 0)
                return .none
            }
            state = .executing
            return .execute(CommandBatch(lines: [line], mode: .single))
        case .collecting(let ok, var lines, let bytes):
            guard firstIsLowercase else { return close(ack: line.isEmpty ? "No command given" : "Malformed command") }
            if line == Self.listEnd {
                state = .executing
                return .execute(CommandBatch(lines: lines, mode: .list(ok: ok)))
            }
            if line == Self.idle || line == Self.noidle { return close(ack: "Not possible in a command list") }
            let total = bytes + line.count + 32
            guard total <= maxCommandListBytes else { return close(ack: "Command list too long") }
            state = .ready  // release the array's storage before appending (no copy)
            lines.append(line)
            state = .collecting(ok: ok, lines: lines, bytes: total)
            return .none
        }
    }

    /// Applies a finished batch's result.
    public mutating func finish(_ result: BatchResult) -> Action {
        guard state == .executing else { return .none }
        client = result.client
        switch result.outcome {
        case .close:
            state = .closed
            return .writeAndClose(result.output)
        case .continue:
            state = .ready
            return result.output.isEmpty ? .none : .write(result.output)
        case let .idle(wanted):
            state = .idle(wanted)
            var output = result.output
            output.append(contentsOf: takeChanges())
            return output.isEmpty ? .none : .write(output)
        }
    }

    /// Records changed subsystems; answers a waiting `idle` when one it asked for changed.
    public mutating func changed(_ subsystems: IdleSet) -> Action {
        pendingChanges.formUnion(subsystems)
        let output = takeChanges()
        return output.isEmpty ? .none : .write(output)
    }

    /// When idle and a wanted subsystem is pending: the `changed:` lines and `OK`, leaving idle; else nothing. As
    /// MPD 0.24 (`Client::IdleNotify`), only the reported subsystems are consumed: the others stay pending for the
    /// next `idle` that asks for them.
    private mutating func takeChanges() -> [UInt8] {
        guard case let .idle(wanted) = state, !pendingChanges.intersection(wanted).isEmpty else { return [] }
        let report = pendingChanges.intersection(wanted)
        pendingChanges.subtract(report)
        state = .ready
        var output: [UInt8] = []
        for subsystem in report.subsystems { output.append(contentsOf: "changed: \(subsystem.rawValue)\n".utf8) }
        output.append(contentsOf: Self.ok)
        return output
    }

    private mutating func close(ack message: String? = nil) -> Action {
        state = .closed
        return .writeAndClose(message.map { Array(MPDError(.unknown, $0).ackLine(index: 0, command: "").utf8) } ?? [])
    }

    private static let ok = Array("OK\n".utf8)
    private static let idle = Array("idle".utf8)
    private static let noidle = Array("noidle".utf8)
    private static let listBegin = Array("command_list_begin".utf8)
    private static let listOKBegin = Array("command_list_ok_begin".utf8)
    private static let listEnd = Array("command_list_end".utf8)
}
