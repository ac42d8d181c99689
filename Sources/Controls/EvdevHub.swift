import AudioCore
import CEvdevShim
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The `[input-NAME]` devices as one `EdgeSource`: watches /dev/input with inotify, opens each event node that
/// matches a configured device (once, however many sections match it), grabs it, and turns its events into edges and
/// axis steps through an `EvdevDecoder` per node. A device unplugged is closed (what it held is released); plugged in
/// again, it is found by the next inotify event and works again. One log line per change; nothing while a device
/// is absent.
///
/// The poll loop sees one descriptor: an epoll set holding the inotify descriptor and every open device, so devices
/// come and go without the loop's descriptor list changing. All I/O is non-blocking read(2) and ioctl(2).
///
/// Created, used and closed on the controls (GPIO) thread only.
final class EvdevHub: EdgeSource {
    /// One open event node.
    private struct Device {
        var path: String
        var fd: Int32
        var info: EvdevDeviceInfo
        /// The `[input-NAME]` names it is.
        var inputs: [String]
        var decoder: EvdevDecoder
        /// For a card reader (`cards = true`): its keys make card ids, named after this `[input-NAME]`.
        var cards: (decoder: CardReaderDecoder, input: String)?
    }

    private let keymap: Keymap
    private let logger: Logger
    private let directory: String
    private let epoll: Int32
    private let watch: Int32
    private var devices: [Int32: Device] = [:]
    /// Nodes looked at that are none of the configured devices (or could not be grabbed), by path, with their inode:
    /// not opened again until the node is replaced.
    private var ignored: [String: UInt64] = [:]
    private var events = [fevdev_event](repeating: fevdev_event(), count: 64)
    private var ready = [Int32](repeating: 0, count: 32)

    /// - Parameter directory: where the event nodes are (tests may point elsewhere).
    init(keymap: Keymap, logger: Logger, directory: String = "/dev/input") {
        self.keymap = keymap
        self.logger = logger
        self.directory = directory
        epoll = fevdev_epoll_create()
        watch = fevdev_watch_create(directory)
        if watch >= 0, epoll >= 0 {
            _ = fevdev_epoll_add(epoll, watch)
        } else {
            let code = watch < 0 ? -watch : -epoll
            let why = String(cString: strerror(code))
            logger.warning("controls: cannot watch \(directory) (\(why)): input devices plugged in later are not seen")
        }
        let wanted = keymap.inputs.map { "\($0.name) (\($0.match))" }.joined(separator: ", ")
        logger.info("controls: input devices wanted: \(wanted)")
        rescan()
        for input in keymap.inputs where !devices.values.contains(where: { $0.inputs.contains(input.name) }) {
            logger.notice("controls: input \(input.name) (\(input.match)) is not present; waiting for it")
        }
    }

    var descriptors: [Int32] { epoll >= 0 ? [epoll] : [] }

    var deadline: UInt64? {
        var earliest: UInt64?
        for device in devices.values {
            if let due = device.decoder.deadline, due < earliest ?? .max { earliest = due }
        }
        return earliest
    }

    func levels() -> [(line: Int, level: Bool)] { [] }

    func expire(now: UInt64, into inputs: inout [SourceInput]) {
        for fd in devices.keys where (devices[fd]?.decoder.deadline ?? .max) <= now {
            let outputs = devices[fd]!.decoder.expire(now: now)
            apply(outputs, fd: fd, into: &inputs)
        }
    }

    func read(_ index: Int, into inputs: inout [SourceInput]) throws(EdgeSourceError) {
        // A few rounds, not until quiet: a descriptor that stays ready without giving data must not spin the thread
        // (poll wakes it again for whatever is left).
        for _ in 0..<8 {
            let count = ready.withUnsafeMutableBufferPointer { fevdev_epoll_ready(epoll, $0.baseAddress, 32) }
            if count < 0 { throw EdgeSourceError(errno: -count) }
            if count == 0 { return }
            for fd in ready[..<Int(count)] {
                if fd == watch {
                    _ = fevdev_watch_drain(watch)
                    rescan()
                } else {
                    drain(fd, into: &inputs)
                }
            }
        }
    }

    func close() {
        for fd in devices.keys { remove(fd, reason: nil) }
        if watch >= 0 { _ = Glibc.close(watch) }
        if epoll >= 0 { _ = Glibc.close(epoll) }
    }

    /// Reads everything pending on one device.
    private func drain(_ fd: Int32, into inputs: inout [SourceInput]) {
        while devices[fd] != nil {
            let count = events.withUnsafeMutableBufferPointer { fevdev_read(fd, $0.baseAddress, 64) }
            if count == 0 { return }
            if count < 0 {
                inputs += remove(fd, reason: count == -ENODEV ? "unplugged" : String(cString: strerror(-count)))
                return
            }
            for event in events[..<Int(count)] {
                if event.type == EvdevDecoder.Kernel.keyType, let reader = devices[fd]!.cards {
                    var decoder = reader.decoder
                    if let id = decoder.key(code: event.code, value: event.value, at: event.time_ns) {
                        inputs.append(.card(id: id, input: reader.input, time: event.time_ns))
                    }
                    devices[fd]!.cards = (decoder, reader.input)
                    continue
                }
                let outputs = devices[fd]!.decoder.event(type: event.type, code: event.code, value: event.value,
                                                         at: event.time_ns)
                apply(outputs, fd: fd, into: &inputs)
            }
        }
    }

    private func apply(_ outputs: [EvdevDecoder.Output], fd: Int32, into inputs: inout [SourceInput]) {
        for output in outputs {
            switch output {
            case let .level(line, pressed, time):
                inputs.append(.edge(RawEdge(line: line, level: pressed, time: time)))
            case let .steps(line, count, time):
                inputs.append(.steps(line: line, count: count, time: time))
            case .resync:
                var bits = [UInt8](repeating: 0, count: Int(EvdevCode.keyMax) / 8 + 1)
                guard fevdev_keys_down(fd, &bits, Int32(bits.count)) == 0 else { continue }
                let down = Set((0...EvdevCode.keyMax).filter { bits[Int($0) / 8] & (1 << ($0 % 8)) != 0 })
                apply(devices[fd]!.decoder.resync(keysDown: down, at: MonotonicClock.nanoseconds()), fd: fd,
                      into: &inputs)
            }
        }
    }

    /// Closes a device (`reason` nil: quietly, at shutdown) and answers the releases of what it held.
    @discardableResult
    private func remove(_ fd: Int32, reason: String?) -> [SourceInput] {
        guard var device = devices.removeValue(forKey: fd) else { return [] }
        let released = device.decoder.detach(at: MonotonicClock.nanoseconds())
        _ = fevdev_epoll_remove(epoll, fd)
        _ = Glibc.close(fd)
        if let reason {
            logger.notice("controls: input \(device.inputs.joined(separator: ", ")): \(device.path) \(reason)")
        }
        return released.compactMap { output in
            guard case let .level(line, pressed, time) = output else { return nil }
            return .edge(RawEdge(line: line, level: pressed, time: time))
        }
    }

    /// Looks at every event node not yet open or ignored.
    private func rescan() {
        guard let dir = opendir(directory) else { return }
        defer { closedir(dir) }
        var present: Set<String> = []
        while let entry = readdir(dir) {
            let name = text(entry.pointee.d_name)
            guard name.hasPrefix("event") else { continue }
            let path = directory + "/" + name
            present.insert(path)
            var status = stat()
            guard stat(path, &status) == 0 else { continue }
            if ignored[path] == UInt64(status.st_ino) { continue }
            ignored[path] = nil
            if devices.values.contains(where: { $0.path == path }) { continue }
            open(path, inode: UInt64(status.st_ino))
        }
        for path in ignored.keys where !present.contains(path) { ignored[path] = nil }
    }

    private func open(_ path: String, inode: UInt64) {
        let fd = fevdev_open(path)
        // Not readable (yet: udev sets the group after the node appears, and that change wakes the watch again).
        guard fd >= 0 else { return }
        var raw = fevdev_info()
        guard fevdev_info_read(fd, &raw) == 0 else {
            _ = Glibc.close(fd)
            return
        }
        let info = EvdevDeviceInfo(name: text(raw.name), phys: text(raw.phys), vendor: raw.vendor,
                                   product: raw.product)
        let matching = keymap.inputs.filter { $0.matches(info) }
        guard !matching.isEmpty else {
            _ = Glibc.close(fd)
            ignored[path] = inode
            return
        }
        let names = matching.map(\.name).joined(separator: ", ")
        if matching.contains(where: \.grab) {
            let rc = fevdev_grab(fd, 1)
            if rc != 0 {
                _ = Glibc.close(fd)
                ignored[path] = inode
                let why = "cannot be grabbed (\(String(cString: strerror(-rc)))): another program holds it; left alone"
                logger.warning("controls: input \(names): \(path) \(info) \(why)")
                return
            }
        }
        let bindings = matching.flatMap { keymap.bindings(of: $0.name) }
        let decoder = EvdevDecoder(bindings: bindings, scancodeRelease: keymap.scancodeRelease)
        let reader = matching.first(where: \.cards).map { (CardReaderDecoder(), $0.name) }
        devices[fd] = Device(path: path, fd: fd, info: info, inputs: matching.map(\.name), decoder: decoder,
                             cards: reader)
        _ = fevdev_epoll_add(epoll, fd)
        let what = (reader == nil ? [] : ["card reader"]) + bindings.map { "\($0.code)" }
        let grabbed = matching.contains(where: \.grab) ? ", grabbed" : ""
        let controls = what.isEmpty ? "no controls bound" : what.joined(separator: ", ")
        logger.notice("controls: input \(names): \(path) \(info) ready\(grabbed): \(controls)")
    }
}

/// A C char array (imported as a tuple) as a String.
private func text<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
}
