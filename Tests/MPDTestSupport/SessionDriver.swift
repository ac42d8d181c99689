import MPDProtocol
import Synchronization

/// Drives a `ConnectionSession` and a `CommandExecutor` like the server does, without sockets: text in, text out.
/// The engine of the in-process mode (`MPDSessionTransport`), and driven directly by the protocol tests.
///
/// A value owned by one test (or one transport).
public struct SessionDriver: Sendable {
    public var session: ConnectionSession
    public let executor: CommandExecutor
    public let backend: InMemoryBackend
    /// The output limit given to each batch (the server passes what is left of its per-client limit).
    public let outputLimit: Int
    public private(set) var closed = false
    /// Changes the backend published, not yet given to the session (filled by the broadcaster's callback).
    private let published: ChangeBox
    private let subscription: IdleSubscription

    /// `onPublish` runs (on the publishing thread) each time the backend publishes a change.
    public init(backend: InMemoryBackend = InMemoryBackend(), config: SessionConfig = SessionConfig(),
                outputLimit: Int = .max, onPublish: @escaping @Sendable () -> Void = {}) {
        self.backend = backend
        self.outputLimit = outputLimit
        session = ConnectionSession(config: config)
        executor = CommandExecutor(backend: backend, config: config)
        let box = ChangeBox()
        published = box
        subscription = backend.idle.subscribe { changed in
            box.changes.withLock { $0.formUnion(changed) }
            onPublish()
        }
    }

    /// Sends `text` (lines separated by newlines; a final newline is implied) and returns everything written back.
    public mutating func send(_ text: String) async -> String {
        var output: [UInt8] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            await feed(Array(line.utf8), into: &output)
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Sends one line and returns the raw bytes written back (for binary answers).
    public mutating func sendBytes(_ line: String) async -> [UInt8] {
        var output: [UInt8] = []
        await feed(Array(line.utf8), into: &output)
        return output
    }

    /// Sends raw bytes as one line.
    public mutating func sendLine(bytes: [UInt8]) async -> String {
        var output: [UInt8] = []
        await feed(bytes, into: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Delivers a change notification as the broadcaster would.
    public mutating func notify(_ changed: IdleSet) -> String {
        var output: [UInt8] = []
        handle(session.changed(changed), into: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Sends raw bytes as one line and returns the raw bytes written back.
    public mutating func feed(_ line: [UInt8]) async -> [UInt8] {
        var output: [UInt8] = []
        await feed(line, into: &output)
        return output
    }

    /// Gives the session the changes the backend published since the last line (as the server does when its
    /// broadcaster calls); what the session writes for them (an idle's answer), or nothing.
    public mutating func deliverPublished() -> [UInt8] {
        var output: [UInt8] = []
        let changed = published.changes.withLock { changes in
            defer { changes = [] }
            return changes
        }
        if !changed.isEmpty, !closed { handle(session.changed(changed), into: &output) }
        return output
    }

    private mutating func feed(_ line: [UInt8], into output: inout [UInt8]) async {
        guard !closed else { return }
        var action = session.consume(line)
        while case let .execute(batch) = action {
            let result = await executor.run(batch, client: session.client, outputLimit: outputLimit)
            action = session.finish(result)
        }
        handle(action, into: &output)
        output += deliverPublished()
    }

    private mutating func handle(_ action: ConnectionSession.Action, into output: inout [UInt8]) {
        switch action {
        case .none, .execute: break
        case let .write(bytes): output += bytes
        case let .writeAndClose(bytes):
            output += bytes
            closed = true
        }
    }
}

/// Changes published by the backend, collected across threads.
private final class ChangeBox: Sendable {
    let changes = Mutex(IdleSet())
}
