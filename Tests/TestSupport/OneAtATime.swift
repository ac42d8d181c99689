/// Lets one body at a time run, in arrival order, without blocking a thread while others wait.
///
/// `kernelLab` keeps the test suites that boot a kernel-lab VM (an emulated CPU that takes a whole core) from running
/// several VMs at once: on the 2-core CI machine two VMs left nothing for the real-time tests beside them.
/// An actor; any task may call `run`.
public actor OneAtATime {
    public static let kernelLab = OneAtATime()

    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init() {}

    public func run<T: Sendable>(_ body: @Sendable () async throws -> T) async rethrows -> T {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        }
        busy = true
        defer {
            if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
        }
        return try await body()
    }
}
