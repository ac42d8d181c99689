import AudioCore
import Controls
import Foundation

/// The lines a benchmark drives: gpio-sim lines 0..<N through sysfs (`--sim`, inside the kernel lab), keys of a
/// virtual USB pedal made through /dev/uinput (`--uinput`: the evdev path, also inside the lab), or edge records
/// written into a pipe (`--pipe`). `set` may be called from any one thread at a time.
final class BenchRig: Sendable {
    enum Kind: Sendable {
        case pipe, sim, uinput
    }

    /// The name the virtual pedal gives the kernel (what `[input-bench]` matches).
    static let pedalName = "Fermata Bench Pedal"

    let kind: Kind
    var sim: Bool { kind == .sim }
    private let label: String
    private let sysfs: String
    private let pipeRead: Int32
    /// The pipe's write end, or the uinput device.
    private let writeFD: Int32

    init(sim: Bool, uinput: Bool = false, lines: Int) throws {
        kind = sim ? .sim : uinput ? .uinput : .pipe
        let env = ProcessInfo.processInfo.environment
        switch kind {
        case .sim:
            guard let label = env["GPIO_SIM_LABEL"], let sysfs = env["GPIO_SIM_SYSFS"],
                  Int(env["GPIO_SIM_LINES"] ?? "") ?? 0 >= lines else {
                throw BenchError(description: "--sim runs inside ../shared/kernel-lab (needs $GPIO_SIM_SYSFS and "
                    + "\(lines) lines)")
            }
            self.label = label
            self.sysfs = sysfs
            (pipeRead, writeFD) = (-1, -1)
        case .uinput:
            (label, sysfs, pipeRead) = ("uinput", "", -1)
            writeFD = try Self.makePedal(keys: lines)
        case .pipe:
            var fds: [Int32] = [0, 0]
            guard pipe(&fds) == 0 else { throw BenchError(description: "pipe: \(errno)") }
            (label, sysfs) = ("pipe", "")
            (pipeRead, writeFD) = (fds[0], fds[1])
        }
    }

    deinit {
        if kind == .uinput { _ = ioctl(writeFD, UInt(0x5502)) }  // UI_DEV_DESTROY
        if writeFD >= 0 { close(writeFD) }
    }

    /// Line `index` of the rig, addressed by chip label and offset, or key KEY_1 + index of the pedal.
    func line(_ index: Int) -> LineRef {
        kind == .uinput ? .evdev(input: "bench", code: .key(UInt16(2 + index))) : .chip(label, offset: UInt32(index))
    }

    /// The `[input-bench]` device the keymap needs (the pedal), if any.
    var inputs: [InputDeviceConfig] {
        kind == .uinput ? [InputDeviceConfig(name: "bench", match: .name(Self.pedalName))] : []
    }

    func input(userDebounce: Bool) -> ControlsInput {
        kind == .pipe ? .records(fd: pipeRead, userDebounce: userDebounce) : .gpio
    }

    /// Presses (pulls to ground: the lines are active-low with pull-ups) or releases line `index`.
    func set(_ index: Int, pressed: Bool) {
        switch kind {
        case .sim:
            let fd = open("\(sysfs)/sim_gpio\(index)/pull", O_WRONLY)
            let text = pressed ? "pull-down" : "pull-up"
            _ = text.withCString { write(fd, $0, strlen($0)) }
            close(fd)
        case .uinput:
            Self.emit(writeFD, type: 1, code: UInt16(2 + index), value: pressed ? 1 : 0)
            Self.emit(writeFD, type: 0, code: 0, value: 0)
        case .pipe:
            let bytes = PipeEdgeSource.record(RawEdge(line: index, level: pressed, time: MonotonicClock.nanoseconds()))
            _ = bytes.withUnsafeBytes { write(writeFD, $0.baseAddress, $0.count) }
        }
    }

    /// One `struct input_event` (time left 0: the kernel stamps it).
    private static func emit(_ fd: Int32, type: UInt16, code: UInt16, value: Int32) {
        var bytes = [UInt8](repeating: 0, count: MemoryLayout<timeval>.size + 8)
        bytes.withUnsafeMutableBytes { raw in
            let base = MemoryLayout<timeval>.size
            raw.storeBytes(of: type, toByteOffset: base, as: UInt16.self)
            raw.storeBytes(of: code, toByteOffset: base + 2, as: UInt16.self)
            raw.storeBytes(of: value, toByteOffset: base + 4, as: Int32.self)
        }
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// A USB keyboard-like pedal with keys KEY_1… (`keys` of them), as a cheap foot switch is.
    private static func makePedal(keys: Int) throws -> Int32 {
        let fd = open("/dev/uinput", O_WRONLY | O_NONBLOCK)
        guard fd >= 0 else {
            throw BenchError(description: "--uinput needs /dev/uinput (run it inside ../shared/kernel-lab): "
                + String(cString: strerror(errno)))
        }
        // The request numbers of <linux/uinput.h>: _IOW('U', 100, int) and friends.
        let setEventBit = UInt(0x4004_5564), setKeyBit = UInt(0x4004_5565)
        let devSetup = UInt(0x405C_5503), devCreate = UInt(0x5501)
        _ = ioctl(fd, setEventBit, Int32(1))  // EV_KEY
        for key in 0..<keys { _ = ioctl(fd, setKeyBit, Int32(2 + key)) }
        // struct uinput_setup: input_id (bustype BUS_USB, vendor, product, version), name[80], ff_effects_max.
        var setup = [UInt8](repeating: 0, count: 92)
        for (offset, value) in [UInt16(0x03), 0x1209, 0xFE7A, 1].enumerated() {
            setup[offset * 2] = UInt8(value & 0xFF)
            setup[offset * 2 + 1] = UInt8(value >> 8)
        }
        for (offset, byte) in pedalName.utf8.enumerated() { setup[8 + offset] = byte }
        let made = setup.withUnsafeMutableBytes { ioctl(fd, devSetup, $0.baseAddress!) } == 0
            && ioctl(fd, devCreate) == 0
        guard made else {
            let why = String(cString: strerror(errno))
            close(fd)
            throw BenchError(description: "uinput device: \(why)")
        }
        return fd
    }
}
