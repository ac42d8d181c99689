/// Turns one input device's event stream into what the controls engine understands: a keymap line pressed or
/// released, or a number of steps on a relative axis. Commands in (`event`, `expire`, `resync`, `detach`), effects out
/// (`Output`); time is an input, so a recorded stream replays exactly and the tests need no device.
///
/// * `EV_KEY`: 1 presses, 0 releases; 2 is the kernel's autorepeat of a held key and never a new press (the gesture
///   engine makes its own repeats and long presses from the press and release times).
/// * `EV_REL`: the value is a signed number of steps (a detent of the `rotary-encoder` overlay, a wheel notch).
/// * `EV_MSC`/`MSC_SCAN`: an IR receiver repeats the scancode every ~110 ms while a remote's button is held and sends
///   nothing on release; the first frame presses, and the button counts as released `scancodeRelease` after the last
///   frame, or at once when another scancode arrives.
/// * `SYN_DROPPED`: the kernel's buffer overflowed; events up to the next `SYN_REPORT` are dropped and the driver is
///   asked (`Output.resync`) to read which keys are down now, which `resync` turns into the missing releases/presses.
///
/// A value type; owned and driven by one thread (the controls thread) or a test.
public struct EvdevDecoder: Sendable, Equatable {
    /// What the engine must hear, and what the driver must do.
    public enum Output: Sendable, Equatable {
        case level(line: Int, pressed: Bool, at: UInt64)
        case steps(line: Int, count: Int, at: UInt64)
        /// Read the keys that are down (EVIOCGKEY) and pass them to `resync`.
        case resync
    }

    /// The kernel's event types and codes this decoder reads (linux/input-event-codes.h).
    enum Kernel {
        static let synType: UInt16 = 0, keyType: UInt16 = 1, relType: UInt16 = 2, mscType: UInt16 = 4
        static let synReport: UInt16 = 0, synDropped: UInt16 = 3, mscScan: UInt16 = 4
    }

    /// Keymap line of each bound key, scancode and axis.
    let keys: [UInt16: Int]
    let scancodes: [UInt32: Int]
    let axes: [UInt16: Int]
    /// Nanoseconds after the last frame of a scancode at which it counts as released.
    public let scancodeRelease: UInt64
    /// Lines held down by a key, by key code.
    private(set) var down: [UInt16: Int] = [:]
    /// The scancode line held, and when it is released unless another frame comes.
    private(set) var scanHeld: (line: Int, until: UInt64)?
    /// Between SYN_DROPPED and the next SYN_REPORT.
    private(set) var dropping = false

    /// - Parameter bindings: each control of this device and its keymap line.
    public init(bindings: [(code: EvdevCode, line: Int)], scancodeRelease: UInt64) {
        var keys: [UInt16: Int] = [:], scancodes: [UInt32: Int] = [:], axes: [UInt16: Int] = [:]
        for (code, line) in bindings {
            switch code {
            case let .key(k): keys[k] = line
            case let .scancode(s): scancodes[s] = line
            case let .relative(r): axes[r] = line
            }
        }
        self.keys = keys
        self.scancodes = scancodes
        self.axes = axes
        self.scancodeRelease = max(1, scancodeRelease)
    }

    public static func == (l: Self, r: Self) -> Bool {
        l.keys == r.keys && l.scancodes == r.scancodes && l.axes == r.axes && l.scancodeRelease == r.scancodeRelease
            && l.down == r.down && l.scanHeld?.line == r.scanHeld?.line && l.scanHeld?.until == r.scanHeld?.until
            && l.dropping == r.dropping
    }

    /// When `expire` must next be called (a held scancode's release), or nil.
    public var deadline: UInt64? { scanHeld?.until }

    /// Whether any control of this device is bound to a key (EVIOCGKEY is worth reading after SYN_DROPPED).
    public var hasKeys: Bool { !keys.isEmpty }

    /// One `input_event`.
    public mutating func event(type: UInt16, code: UInt16, value: Int32, at time: UInt64) -> [Output] {
        var out = expire(now: time)
        if type == Kernel.synType {
            if code == Kernel.synDropped {
                dropping = true
            } else if code == Kernel.synReport, dropping {
                dropping = false
                if hasKeys { out.append(.resync) }
            }
            return out
        }
        guard !dropping else { return out }
        switch type {
        case Kernel.keyType:
            guard let line = keys[code] else { break }
            if value == 1, down[code] == nil {
                down[code] = line
                out.append(.level(line: line, pressed: true, at: time))
            } else if value == 0, down.removeValue(forKey: code) != nil {
                out.append(.level(line: line, pressed: false, at: time))
            }
        case Kernel.relType:
            if let line = axes[code], value != 0 { out.append(.steps(line: line, count: Int(value), at: time)) }
        case Kernel.mscType where code == Kernel.mscScan:
            scan(UInt32(bitPattern: value), at: time, into: &out)
        default:
            break
        }
        return out
    }

    /// Releases a held scancode whose frames have stopped.
    public mutating func expire(now: UInt64) -> [Output] {
        guard let held = scanHeld, held.until <= now else { return [] }
        scanHeld = nil
        return [.level(line: held.line, pressed: false, at: held.until)]
    }

    /// The keys down now (EVIOCGKEY after SYN_DROPPED): presses and releases the dropped events held.
    public mutating func resync(keysDown: Set<UInt16>, at time: UInt64) -> [Output] {
        var out: [Output] = []
        for (code, line) in down.sorted(by: { $0.key < $1.key }) where !keysDown.contains(code) {
            down[code] = nil
            out.append(.level(line: line, pressed: false, at: time))
        }
        for code in keysDown.sorted() where down[code] == nil {
            guard let line = keys[code] else { continue }
            down[code] = line
            out.append(.level(line: line, pressed: true, at: time))
        }
        return out
    }

    /// The device is gone: whatever it held is released (a pedal unplugged while down must not repeat forever).
    public mutating func detach(at time: UInt64) -> [Output] {
        var out = down.sorted(by: { $0.key < $1.key }).map { Output.level(line: $0.value, pressed: false, at: time) }
        if let held = scanHeld { out.append(.level(line: held.line, pressed: false, at: min(time, held.until))) }
        down = [:]
        scanHeld = nil
        dropping = false
        return out
    }

    private mutating func scan(_ value: UInt32, at time: UInt64, into out: inout [Output]) {
        let line = scancodes[value]
        if let held = scanHeld, held.line != line {
            scanHeld = nil
            out.append(.level(line: held.line, pressed: false, at: time))
        }
        guard let line else { return }
        if scanHeld == nil { out.append(.level(line: line, pressed: true, at: time)) }
        scanHeld = (line, time + scancodeRelease)
    }
}
