import AudioCore
import Synchronization

/// The decoder thread's inbox: commands from any thread, in order (a mutex-protected list — the decoder thread is
/// not real-time, so it may lock), and the bell that wakes it.
///
/// Threads: `send` from any thread; `take` from the decoder thread.
final class DecoderMailbox: Sendable {
    private let commands = Mutex<[DecoderCommand]>([])
    private let bell: Doorbell

    init(bell: Doorbell) { self.bell = bell }

    /// Queues a command and wakes the decoder thread.
    func send(_ command: DecoderCommand) {
        commands.withLock { $0.append(command) }
        bell.ring()
    }

    /// Everything queued so far, oldest first.
    func take() -> [DecoderCommand] {
        commands.withLock { queue in
            defer { queue.removeAll(keepingCapacity: true) }
            return queue
        }
    }
}
