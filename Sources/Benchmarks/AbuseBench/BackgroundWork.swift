import AudioCore
import Foundation
import Synchronization

/// A closure run on a thread of its own, started at once; `join()` waits for it and returns its value.
///
/// The scenarios are synchronous and block on sockets, so each concurrent actor of a measurement (the status prober,
/// the memory sampler, a second hostile client) gets a plain thread. Threads: `join` from one thread, once.
final class BackgroundWork<Value: Sendable>: Sendable {
    private let thread = WorkerThread()
    private let outcome = Mutex<Value?>(nil)

    init(name: String, _ body: @escaping @Sendable () -> Value) {
        thread.start(name: name) { [self] in
            let value = body()
            outcome.withLock { $0 = value }
        }
    }

    func join() -> Value {
        thread.join()
        return outcome.withLock { $0! }
    }
}

/// A flag one thread raises to tell a polling loop on another thread to stop. Threads: any.
final class StopFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    var isRaised: Bool { raised.load(ordering: .acquiring) }

    func raise() { raised.store(true, ordering: .releasing) }
}
