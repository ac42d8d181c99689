import Synchronization

/// A fade of the output's level, a multiplier apart from the volume (which clients see unchanged): the sleep timer's
/// fade to silence, an alarm's fade in from silence, a fade called off. Carried out by the output thread frame by frame
/// (`FadeRamp`), at the device's rate, along a square-law curve (the level is the square of a position moving
/// linearly), so it is sample-smooth and monotonic.
public enum OutputFade: Sendable, Equatable {
    /// From the level now down to silence over `milliseconds`. The silence holds until the output next pauses, stops
    /// or closes; then the level is back to unity, so the next play is heard at the volume shown.
    case out(milliseconds: Int)
    /// From silence, at once, up to unity over `milliseconds` (an alarm).
    case fromSilence(milliseconds: Int)
    /// From the level now back up to unity over `milliseconds` (a fade called off).
    case restore(milliseconds: Int)

    /// The longest fade: an hour.
    public static let maxMilliseconds = 3_600_000
}

/// Where a fade asked for is, as the output thread last reported it.
public enum OutputFadeState: Sendable, Equatable {
    /// Asked for; nothing of it played yet (the output has not taken it, or has no device running).
    case pending
    case falling
    /// An `out` fade reached silence and holds it.
    case silent
    case rising
    /// Back at unity: a `fromSilence` or `restore` fade done.
    case done
    /// An `out` fade let go because the output paused, stopped or closed (the level is back to unity).
    case released
    /// A newer fade was asked for: this one will not finish.
    case superseded
}

/// One fade order packed in 64 bits, so it crosses to the output thread in one atomic store: the serial (30 bits),
/// the kind (2 bits), the milliseconds (32 bits).
struct FadeOrder: Equatable {
    enum Kind: UInt64 {
        case out = 1
        case fromSilence = 2
        case restore = 3
    }

    var serial: Int
    var kind: Kind
    var milliseconds: Int

    init(serial: Int, _ fade: OutputFade) {
        self.serial = serial & Self.serialMask
        switch fade {
        case let .out(ms): (kind, milliseconds) = (.out, ms)
        case let .fromSilence(ms): (kind, milliseconds) = (.fromSilence, ms)
        case let .restore(ms): (kind, milliseconds) = (.restore, ms)
        }
        milliseconds = max(0, min(milliseconds, OutputFade.maxMilliseconds))
    }

    /// Nil for the empty word (no order yet) or one not made by `bits`.
    init?(bits: UInt64) {
        guard let kind = Kind(rawValue: (bits >> 32) & 3) else { return nil }
        self.kind = kind
        serial = Int(bits >> 34)
        milliseconds = Int(bits & 0xFFFF_FFFF)
    }

    var bits: UInt64 { UInt64(serial) << 34 | kind.rawValue << 32 | UInt64(milliseconds) }

    static let serialMask = (1 << 30) - 1
}

/// The fade orders and reports between the control side and the output thread: one atomic word each way.
///
/// Threads: `order` from one control task at a time (the daemon's timers); `take`/`report` from the output thread;
/// `state(of:)` from any thread.
final class FadeChannel: Sendable {
    private let orderBits = Atomic<UInt64>(0)
    private let reportBits = Atomic<UInt64>(0)
    private let serials = Atomic<Int>(0)

    /// Control: posts `fade`; returns its serial (never 0).
    func order(_ fade: OutputFade) -> Int {
        var serial = serials.add(1, ordering: .relaxed).newValue & FadeOrder.serialMask
        if serial == 0 { serial = serials.add(1, ordering: .relaxed).newValue & FadeOrder.serialMask }
        orderBits.store(FadeOrder(serial: serial, fade).bits, ordering: .releasing)
        return serial
    }

    /// Any thread: the serial of the newest fade asked for (0: none yet).
    func newest() -> Int { FadeOrder(bits: orderBits.load(ordering: .acquiring))?.serial ?? 0 }

    /// Output: the word last posted (compare with the one last taken before decoding it).
    func posted() -> UInt64 { orderBits.load(ordering: .acquiring) }

    /// Output: where the fade `serial` is now.
    func report(serial: Int, _ state: OutputFadeState) {
        reportBits.store(UInt64(serial) << 8 | Self.code(state), ordering: .releasing)
    }

    /// Any thread: where the fade `serial` is; superseded as soon as a newer one is asked for.
    func state(of serial: Int) -> OutputFadeState {
        guard newest() == serial else { return .superseded }
        let report = reportBits.load(ordering: .acquiring)
        if Int(report >> 8) == serial, let state = Self.state(code: report & 0xFF) { return state }
        return .pending
    }

    private static func code(_ state: OutputFadeState) -> UInt64 {
        switch state {
        case .pending: 0
        case .falling: 1
        case .silent: 2
        case .rising: 3
        case .done: 4
        case .released: 5
        case .superseded: 6
        }
    }

    private static func state(code: UInt64) -> OutputFadeState? {
        switch code {
        case 1: .falling
        case 2: .silent
        case 3: .rising
        case 4: .done
        case 5: .released
        default: nil
        }
    }
}
