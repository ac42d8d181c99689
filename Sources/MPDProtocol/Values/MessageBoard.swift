import Synchronization

/// MPD's client-to-client messages (`subscribe`, `unsubscribe`, `channels`, `sendmessage`, `readmessages`): which
/// channels each connection listens to and the messages waiting for it. Bounded as MPD bounds it: at most 16 channels
/// and 64 unread messages per connection (a message to a full mailbox is dropped for that reader), so no client can
/// make another hold more than 64 lines.
///
/// Thread-safe (a mutex guards the table); shared by every connection of one server. A connection opens its mailbox
/// when it connects and closes it when it goes.
public final class MessageBoard: Sendable {
    public static let maxSubscriptions = 16
    public static let maxMessages = 64

    /// One message as `readmessages` prints it.
    public struct Message: Sendable, Hashable {
        public var channel: String
        public var text: String
    }

    private struct Mailbox {
        var channels: Set<String> = []
        var messages: [Message] = []
        /// Wakes the connection's `idle` (`message`), on the sending thread: must only hand the set over.
        let notify: @Sendable (IdleSet) -> Void
    }

    private let mailboxes = Mutex<(next: UInt64, open: [UInt64: Mailbox])>((0, [:]))
    /// Where `subscription` changes are published (to every connection).
    private let idle: IdleBroadcaster

    public init(idle: IdleBroadcaster) { self.idle = idle }

    /// A mailbox for a new connection; `notify` receives `message` when a first unread message arrives.
    public func open(notify: @escaping @Sendable (IdleSet) -> Void) -> ClientMailbox {
        let id = mailboxes.withLock { state in
            state.next += 1
            state.open[state.next] = Mailbox(notify: notify)
            return state.next
        }
        return ClientMailbox(board: self, id: id)
    }

    /// MPD's channel names: ASCII letters and digits, `_`, `-`, `.`, `:`; at least one character.
    public static func isValidChannel(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: ":")
        }
    }

    /// Every channel some connection listens to, sorted (`channels`).
    public var channels: [String] {
        mailboxes.withLock { state in Set(state.open.values.flatMap(\.channels)) }.sorted()
    }

    /// Delivers `text` to every connection listening on `channel`; MPD's errors for a bad name or no listener.
    public func send(_ text: String, to channel: String) throws(MPDError) {
        guard Self.isValidChannel(channel) else { throw .badArgument("invalid channel name") }
        let message = Message(channel: channel, text: text)
        let (delivered, woken) = mailboxes.withLock { state in
            var delivered = false
            var woken: [@Sendable (IdleSet) -> Void] = []
            for id in state.open.keys where state.open[id]!.channels.contains(channel) {
                guard state.open[id]!.messages.count < Self.maxMessages else { continue }
                if state.open[id]!.messages.isEmpty { woken.append(state.open[id]!.notify) }
                state.open[id]!.messages.append(message)
                delivered = true
            }
            return (delivered, woken)
        }
        for notify in woken { notify(IdleSubsystem.message.set) }
        // As MPD: a listener whose mailbox is full does not count (the sender hears "nobody").
        guard delivered else { throw MPDError(.noExist, "nobody is subscribed to this channel") }
    }

    fileprivate func subscribe(_ id: UInt64, to channel: String) throws(MPDError) {
        guard Self.isValidChannel(channel) else { throw .badArgument("invalid channel name") }
        let failure: MPDError? = mailboxes.withLock { state in
            guard var mailbox = state.open[id] else { return nil }
            guard mailbox.channels.count < Self.maxSubscriptions else {
                return MPDError(.exist, "subscription list is full")
            }
            guard mailbox.channels.insert(channel).inserted else {
                return MPDError(.exist, "already subscribed to this channel")
            }
            state.open[id] = mailbox
            return nil
        }
        if let failure { throw failure }
        idle.publish(IdleSubsystem.subscription.set)
    }

    fileprivate func unsubscribe(_ id: UInt64, from channel: String) throws(MPDError) {
        let removed = mailboxes.withLock { state in state.open[id]?.channels.remove(channel) != nil }
        guard removed else { throw MPDError(.noExist, "not subscribed to this channel") }
        idle.publish(IdleSubsystem.subscription.set)
    }

    fileprivate func takeMessages(_ id: UInt64) -> [Message] {
        mailboxes.withLock { state in
            defer { state.open[id]?.messages = [] }
            return state.open[id]?.messages ?? []
        }
    }

    fileprivate func close(_ id: UInt64) {
        let listened = mailboxes.withLock { state in state.open.removeValue(forKey: id).map { !$0.channels.isEmpty } }
        if listened == true { idle.publish(IdleSubsystem.subscription.set) }
    }
}

/// One connection's place on the `MessageBoard`: its subscriptions and unread messages. Closed when the connection
/// goes (or when released). Compared by identity.
///
/// Thread-safe; the connection's commands call it from their task.
public final class ClientMailbox: Sendable, Hashable {
    public let board: MessageBoard
    private let id: UInt64

    fileprivate init(board: MessageBoard, id: UInt64) {
        self.board = board
        self.id = id
    }

    public func subscribe(to channel: String) throws(MPDError) { try board.subscribe(id, to: channel) }
    public func unsubscribe(from channel: String) throws(MPDError) { try board.unsubscribe(id, from: channel) }
    /// The unread messages, oldest first; the mailbox is empty afterwards (`readmessages`).
    public func takeMessages() -> [MessageBoard.Message] { board.takeMessages(id) }
    /// Leaves every channel and drops the unread messages; idempotent.
    public func close() { board.close(id) }

    deinit { board.close(id) }

    public static func == (a: ClientMailbox, b: ClientMailbox) -> Bool { a === b }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
