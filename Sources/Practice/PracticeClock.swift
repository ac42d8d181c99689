import Foundation

/// Where practice statistics read the time: the system clock in the daemon, a settable one in tests (to cross
/// midnight and week boundaries without waiting).
/// Threads: implementations are Sendable; `now` may be read from any task.
public protocol PracticeClock: Sendable {
    var now: Date { get }
}

/// The wall clock.
public struct SystemPracticeClock: PracticeClock {
    public init() {}
    public var now: Date { Date() }
}
