import FermataCore
import Logging
import MPDProtocol
import NIOCore

/// Feeds one client's lines to its `ConnectionSession`, runs batches on the `CommandExecutor`, writes the answers.
///
/// Lives on the client channel's event loop; every method runs there (command execution hops to a task and back).
/// Backpressure: while a batch runs, while lines wait, or while the channel is not writable, socket reads are held
/// back (the outbound `read` is deferred), so a pipelining client is paused rather than buffered. Written bytes not
/// yet taken by the kernel are counted; beyond `maxPendingOutputBytes` the client is dropped, and a batch is given
/// only what is left of that limit (the executor stops and closes when its output reaches it).
/// A refused `password` is answered only after the `PasswordThrottle`'s delay for this peer, reads held back meanwhile;
/// the connection's first refusal is logged (with the peer), later ones are not.
final class MPDClientHandler: ChannelDuplexHandler {
    typealias InboundIn = [[UInt8]]
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var session: ConnectionSession
    private let executor: CommandExecutor
    private let idle: IdleBroadcaster
    private let maxPendingOutputBytes: Int
    private let throttle: PasswordThrottle
    private let logger: Logger
    /// Who the client is, for the throttle and log lines: its IP address, or "unix socket"; set when active.
    private var peer = "unknown"
    private var loggedPasswordFailure = false

    private var waitingLines = CircularBuffer<[UInt8]>(initialCapacity: 4)
    private var executing = false
    private var readHeldBack = false
    private var inputClosed = false
    private var bytesInFlight = 0
    private var subscription: IdleSubscription?
    private let inbox = IdleInbox()
    private let messages: MessageBoard
    private var mailbox: ClientMailbox?

    init(executor: CommandExecutor, config: MPDServerConfiguration, throttle: PasswordThrottle, messages: MessageBoard,
         logger: Logger) {
        session = ConnectionSession(config: config.session)
        self.executor = executor
        self.messages = messages
        idle = executor.backend.idle
        maxPendingOutputBytes = config.maxPendingOutputBytes
        self.throttle = throttle
        self.logger = logger
    }

    /// The throttle's key for a remote address: the IP address for TCP, one key for every Unix socket client.
    static func peerKey(_ address: SocketAddress?) -> String {
        switch address {
        case .unixDomainSocket?: "unix socket"
        case let address?: address.ipAddress ?? address.description
        case nil: "unknown"
        }
    }

    // MARK: Lifecycle

    func channelActive(context: ChannelHandlerContext) {
        peer = Self.peerKey(context.channel.remoteAddress)
        // The listener's own address says which listener it is (a Unix peer may have no address of its own).
        if case .unixDomainSocket? = context.channel.localAddress { session.markLocal() }
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        let inbox = inbox
        let eventLoop = context.eventLoop
        let deliver: @Sendable (IdleSet) -> Void = { changed in
            guard inbox.add(changed) else { return }
            eventLoop.execute { handler.value.deliverChanges(context: boundContext.value) }
        }
        subscription = idle.subscribe(deliver)
        let mailbox = messages.open(notify: deliver)
        self.mailbox = mailbox
        session.attach(mailbox)
        // Subscribed before the greeting: a change made right after a client reads it is never missed.
        write(ConnectionSession.greeting, context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        subscription?.cancel()
        subscription = nil
        mailbox?.close()
        mailbox = nil
        context.fireChannelInactive()
    }

    // MARK: Input

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        waitingLines.append(contentsOf: unwrapInboundIn(data))
        processWaitingLines(context: context)
    }

    func read(context: ChannelHandlerContext) {
        if executing || !waitingLines.isEmpty || !context.channel.isWritable {
            readHeldBack = true
        } else {
            context.read()
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { processWaitingLines(context: context) }
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let idleEvent as IdleStateHandler.IdleStateEvent where idleEvent == .read:
            if !session.isIdle && !executing {
                logger.debug("MPD client timed out")
                context.close(promise: nil)
            }
        case let channelEvent as ChannelEvent where channelEvent == .inputClosed:
            inputClosed = true
            processWaitingLines(context: context)
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is MPDLineDecoder.LineTooLong {
            logger.info("MPD client sent an over-long line; closing")
            writeAndClose(
                Array(MPDError(.unknown, "line too long").ackLine(index: 0, command: "").utf8), context: context)
        } else {
            logger.debug("MPD client error: \(error)")
            context.close(promise: nil)
        }
    }

    /// Runs the waiting lines in order until one starts a batch, the channel fills up, or the session closes.
    private func processWaitingLines(context: ChannelHandlerContext) {
        while !executing, session.state != .closed, context.channel.isWritable, let line = waitingLines.popFirst() {
            perform(session.consume(line), context: context)
        }
        guard !executing, waitingLines.isEmpty, session.state != .closed else { return }
        if inputClosed {
            context.close(promise: nil)
        } else if readHeldBack, context.channel.isWritable {
            readHeldBack = false
            context.read()
        }
    }

    // MARK: Actions

    private func perform(_ action: ConnectionSession.Action, context: ChannelHandlerContext) {
        switch action {
        case .none: break
        case let .write(bytes): write(bytes, context: context)
        case let .writeAndClose(bytes): writeAndClose(bytes, context: context)
        case let .execute(batch): execute(batch, context: context)
        }
    }

    private func execute(_ batch: CommandBatch, context: ChannelHandlerContext) {
        executing = true
        let (executor, client) = (executor, session.client)
        let outputLimit = max(0, maxPendingOutputBytes - bytesInFlight)
        let requestBytes = batch.lines.reduce(0) { $0 + $1.count }
        // Client work (filter matching, long answers, file look-ups) runs on `BlockingWork`'s threads, never on the
        // cooperative pool the player and the other clients need; actor calls inside still hop to their actor. The task
        // starts there too: a task made on the pool first waited for a pool thread before it could hop (behind every
        // busy task of a loaded machine).
        let promise = context.eventLoop.makePromise(of: BatchResult.self)
        Task(executorPreference: BlockingWork.executor) {
            promise.succeed(await executor.run(batch, client: client, outputLimit: outputLimit))
        }
        let result = promise.futureResult
        result.assumeIsolated().whenSuccess { result in
            // A large request (10,000 `add`s) leaves as much freed heap behind as a large answer.
            MemoryTrim.afterLargeWrite(requestBytes)
            if let delay = self.passwordDelay(result) {
                // Still `executing`: reads stay held back until the answer goes out.
                context.eventLoop.assumeIsolated().scheduleTask(in: delay) { self.finish(result, context: context) }
            } else {
                self.finish(result, context: context)
            }
        }
    }

    /// Applies a batch's result once it may be answered.
    private func finish(_ result: BatchResult, context: ChannelHandlerContext) {
        executing = false
        if result.outputLimitReached {
            // As MPD ("Output buffer is full"): the client is dropped and the cut-off answer is not sent — sending
            // it would only copy another 8 MiB into the channel for a client that asked for too much.
            logger.info("MPD client \(peer): output reached \(maxPendingOutputBytes) bytes; closing")
            _ = session.finish(BatchResult(output: [], client: result.client, outcome: .close))
            context.close(promise: nil)
            MemoryTrim.afterLargeWrite(result.output.count)
            return
        }
        perform(session.finish(result), context: context)
        processWaitingLines(context: context)
    }

    /// Tells the throttle about a `password` in the batch; for a refused one, how long to hold the answer back.
    private func passwordDelay(_ result: BatchResult) -> TimeAmount? {
        switch result.password {
        case nil: return nil
        case .accepted?:
            throttle.accepted(peer)
            return nil
        case .refused?:
            if !loggedPasswordFailure {
                loggedPasswordFailure = true
                logger.warning("MPD client \(peer) sent a wrong password (further failures on this connection: not logged)")
            }
            let delay = throttle.refused(peer)
            return .nanoseconds(delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000)
        }
    }

    private func deliverChanges(context: ChannelHandlerContext) {
        let changed = inbox.take()
        guard context.channel.isActive else { return }
        perform(session.changed(changed), context: context)
    }

    private func write(_ bytes: [UInt8], context: ChannelHandlerContext) {
        guard !bytes.isEmpty else { return }
        let count = bytes.count
        bytesInFlight += count
        let promise = context.eventLoop.makePromise(of: Void.self)
        promise.futureResult.assumeIsolated().whenComplete { _ in
            self.bytesInFlight -= count
            MemoryTrim.afterLargeWrite(count)
        }
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: promise)
        if bytesInFlight > maxPendingOutputBytes {
            logger.info("MPD client does not read its output (\(bytesInFlight) bytes pending); closing")
            context.close(promise: nil)
        }
    }

    private func writeAndClose(_ bytes: [UInt8], context: ChannelHandlerContext) {
        guard !bytes.isEmpty else { return context.close(promise: nil) }
        let count = bytes.count
        let written = context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)))
        written.assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
            MemoryTrim.afterLargeWrite(count)
        }
    }
}
