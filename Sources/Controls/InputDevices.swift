import AudioCore
import CEvdevShim
import Glibc

/// The event devices of a machine (`/dev/input/event*`), for `fermata input` and `fermata doctor`: each node with
/// what it says about itself, or why it cannot be opened; and a monitor that prints every event of every device
/// (without taking them: nothing is grabbed unless asked), for wiring and for learning a pedal's or a remote's keys.
///
/// Called from the CLI's thread; a monitor is one value used by one thread.
public enum InputDevices {
    /// One event node.
    public struct Node: Sendable, CustomStringConvertible {
        public var path: String
        /// What it says about itself, or nil with `problem` when it cannot be opened.
        public var info: EvdevDeviceInfo?
        public var problem: String?

        public var description: String {
            if let info { return "\(path)  \(info)" }
            return "\(path)  (\(problem ?? "unknown"))"
        }
    }

    /// Every `event*` node of `directory`, in number order.
    public static func list(directory: String = "/dev/input") -> [Node] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("event") { names.append(name) }
        }
        names.sort { (Int($0.dropFirst(5)) ?? 0, $0) < (Int($1.dropFirst(5)) ?? 0, $1) }
        return names.map { name in
            let path = directory + "/" + name
            let fd = fevdev_open(path)
            guard fd >= 0 else { return Node(path: path, info: nil, problem: String(cString: strerror(-fd))) }
            defer { close(fd) }
            var raw = fevdev_info()
            let rc = fevdev_info_read(fd, &raw)
            guard rc == 0 else { return Node(path: path, info: nil, problem: String(cString: strerror(-rc))) }
            return Node(path: path, info: Self.info(raw), problem: nil)
        }
    }

    static func info(_ raw: fevdev_info) -> EvdevDeviceInfo {
        func text<T>(_ tuple: T) -> String {
            withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        return EvdevDeviceInfo(name: text(raw.name), phys: text(raw.phys), vendor: raw.vendor, product: raw.product)
    }

    /// One event as `fermata input monitor` prints it: `KEY_B down`, `KEY_B repeat`, `REL_DIAL -1`, `scancode
    /// 0x40bf12`; nil for synchronisation and the other event types.
    public static func describe(type: UInt16, code: UInt16, value: Int32) -> String? {
        switch type {
        case 1:
            let what = value == 0 ? "up" : value == 2 ? "repeat (the kernel's autorepeat; never a new press)" : "down"
            return "\(EvdevCode.key(code)) \(what)"
        case 2:
            return "\(EvdevCode.relative(code)) \(value > 0 ? "+" : "")\(value)"
        case 4 where code == 4:
            return "\(EvdevCode.scancode(UInt32(bitPattern: value)))"
        case 0 where code == 3:
            return "SYN_DROPPED (events were lost; keys down are read again)"
        default:
            return nil
        }
    }

    /// Prints every event of every device until `seconds` pass (nil: for ever): `TIME  eventN "Name"  EVENT`.
    /// Devices plugged in meanwhile are not added (run it again). `grab` takes the devices for this program alone.
    /// Returns false when no device could be opened.
    public static func monitor(directory: String = "/dev/input", seconds: Double?, grab: Bool,
                               print output: (String) -> Void) -> Bool {
        var open: [(fd: Int32, label: String)] = []
        for node in list(directory: directory) {
            guard let info = node.info else { output("skipped \(node)"); continue }
            let fd = fevdev_open(node.path)
            guard fd >= 0 else { continue }
            if grab, fevdev_grab(fd, 1) != 0 { output("\(node.path) could not be grabbed (another program holds it)") }
            open.append((fd, "\(node.path.split(separator: "/").last ?? "")  \"\(info.name)\""))
        }
        defer { for device in open { close(device.fd) } }
        guard !open.isEmpty else { return false }
        output("watching \(open.count) devices\(grab ? " (grabbed)" : ""); press keys, turn knobs; Ctrl-C ends")
        var fds = open.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        var events = [fevdev_event](repeating: fevdev_event(), count: 64)
        let start = MonotonicClock.nanoseconds()
        while true {
            let elapsed = Double(MonotonicClock.nanoseconds() - start) / 1e9
            if let seconds, elapsed >= seconds { return true }
            let wait = seconds.map { Int32(max(1, min(1000, ($0 - elapsed) * 1000))) } ?? 1000
            guard poll(&fds, nfds_t(fds.count), wait) >= 0 || errno == EINTR else { return true }
            for index in fds.indices where fds[index].revents != 0 {
                let count = events.withUnsafeMutableBufferPointer { fevdev_read(fds[index].fd, $0.baseAddress, 64) }
                if count < 0 {
                    output("\(open[index].label)  gone (\(String(cString: strerror(-count))))")
                    fds[index].fd = -1
                    continue
                }
                for event in events[..<Int(count)] {
                    guard let text = describe(type: event.type, code: event.code, value: event.value) else { continue }
                    let at = Double(Int64(bitPattern: event.time_ns &- start)) / 1e9
                    output(String(format: "%10.6f  ", at) + "\(open[index].label)  \(text)")
                }
            }
        }
    }
}
