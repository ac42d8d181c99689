import Logging
import MPDProtocol
import Practice
import ServiceLifecycle

/// Feeds the practice recorder: an observation at every player change (the backend's `idle` notifications) and once
/// a second while playing, none while paused or stopped; at shutdown the time counted so far is written.
/// Threads: `run` is called once by the service group.
public struct PracticeService: Service {
    let recorder: PracticeRecorder
    let changes: IdleBroadcaster
    let pollInterval: Duration

    public init(recorder: PracticeRecorder, changes: IdleBroadcaster, pollInterval: Duration = .seconds(1)) {
        self.recorder = recorder
        self.changes = changes
        self.pollInterval = pollInterval
    }

    public func run() async throws {
        let (events, sink) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let subscription = changes.subscribe { changed in if changed.contains(.player) { sink.yield() } }
        defer { subscription.cancel() }
        sink.yield()  // a first look at start
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await _ in events { await recorder.observe() }
            }
            group.addTask {
                for await _ in recorder.playingSignals {
                    while !Task.isCancelled, await recorder.isPlaying {
                        try? await Task.sleep(for: pollInterval)
                        await recorder.observe()
                    }
                }
            }
            try? await gracefulShutdown()
            sink.finish()
            group.cancelAll()
        }
        await recorder.finish()
    }
}
