import CGPIOShim
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// One libgpiod line request (lines of one chip with the same settings) as an `EdgeSource`.
/// Created, used and released on the GPIO thread only.
final class GPIORequestSource: EdgeSource {
    private let request: OpaquePointer
    /// Keymap line index of each requested line, in request order.
    let lines: [Int]
    private var buffer = [fgpio_event](repeating: fgpio_event(), count: 32)

    init(request: OpaquePointer, lines: [Int]) {
        self.request = request
        self.lines = lines
    }

    var descriptors: [Int32] {
        (0..<fgpio_request_fd_count(request)).map { fgpio_request_fd(request, $0) }
    }

    func read(_ index: Int, into inputs: inout [SourceInput]) throws(EdgeSourceError) {
        let count = buffer.withUnsafeMutableBufferPointer {
            fgpio_request_read(request, index, $0.baseAddress, $0.count)
        }
        guard count >= 0 else { throw EdgeSourceError(errno: -count) }
        for event in buffer[..<Int(count)] where Int(event.index) < lines.count {
            inputs.append(.edge(RawEdge(line: lines[Int(event.index)], level: event.rising != 0,
                                        time: event.timestamp_ns)))
        }
    }

    func levels() -> [(line: Int, level: Bool)] {
        var values = [Int32](repeating: 0, count: lines.count)
        guard fgpio_request_values(request, &values) == 0 else { return [] }
        return zip(lines, values).map { ($0, $1 != 0) }
    }

    func close() {
        fgpio_request_release(request)
    }
}

/// Finds and requests the keymap's lines through the C shim, logging one clear line for each control it cannot get
/// (no such chip, no such line, line in use, no permission) and a summary of what it got. Runs on the GPIO thread.
struct GPIOLineOpener {
    let keymap: Keymap
    let consumer: String
    let logger: Logger

    /// Where a keymap line was found.
    private struct Found {
        var line: Int
        var path: String
        var place: String
        var offset: UInt32
    }

    /// The API in use, e.g. "libgpiod 1.6.3 (v1 API; debounce 10 ms in user space)".
    static func describeLibrary(debounceMs: UInt64) -> String {
        let version = String(cString: fgpio_library_version())
        let where_ = fgpio_kernel_debounce() ? "in the kernel" : "in user space"
        return "libgpiod \(version) (v\(fgpio_api_major()) API; debounce \(debounceMs) ms \(where_))"
    }

    func open() -> [GPIORequestSource] {
        let gpioLines = keymap.gpioLines
        guard !gpioLines.isEmpty else { return [] }
        var chips = [CChar](repeating: 0, count: 2048)
        guard fgpio_describe_chips(&chips, chips.count) > 0 else {
            logger.warning("controls: no GPIO chip (/dev/gpiochip*) on this machine; physical controls are off")
            return []
        }
        var found: [Found] = []
        var problems: [(problem: String, owners: [String])] = []
        for index in gpioLines {
            let line = keymap.lines[index]
            switch locate(line.ref, chips: text(chips)) {
            case var .success(location):
                location.line = index
                found.append(location)
            case let .failure(problem):
                if let i = problems.firstIndex(where: { $0.problem == problem.description }) {
                    problems[i].owners.append(line.owner)
                } else {
                    problems.append((problem.description, [line.owner]))
                }
            }
        }
        // One line per problem: a missing chip takes out every control on it, and says so once.
        for (problem, owners) in problems {
            let verb = owners.count == 1 ? "is" : "are"
            logger.warning("controls: \(problem); \(owners.joined(separator: ", ")) \(verb) off")
        }
        var sources: [GPIORequestSource] = []
        let groups = Dictionary(grouping: found) { GroupKey(path: $0.path, line: keymap.lines[$0.line]) }
        for (key, members) in groups.sorted(by: { $0.value[0].line < $1.value[0].line }) {
            if let source = request(members, key: key, quiet: members.count > 1) {
                sources.append(source)
            } else if members.count > 1 {
                // Find out which line is the problem: request them one by one.
                sources += members.compactMap { request([$0], key: key, quiet: false) }
            }
        }
        logSummary(sources)
        return sources
    }

    /// Lines that can share one request: same chip, settings and debounce.
    private struct GroupKey: Hashable {
        var path: String
        var settings: LineSettings
        var debounce: UInt64

        init(path: String, line: Keymap.Line) {
            self.path = path
            settings = line.settings
            debounce = line.debounce
        }
    }

    private func locate(_ ref: LineRef, chips: String) -> Result<Found, LineProblem> {
        var location = fgpio_location()
        switch ref {
        case let .name(name):
            let rc = fgpio_find_line(name, &location)
            guard rc == 0 else {
                return .failure(rc == -ENOENT ? LineProblem("no line named \(name) on any GPIO chip (\(chips))")
                    : LineProblem(errno: -rc, "cannot search the GPIO chips for \(name)"))
            }
        case .evdev:
            return .failure(LineProblem("\(ref) is an input device control, not a GPIO line"))
        case let .chip(chip, offset):
            let rc = fgpio_find_chip_line(chip, offset, &location)
            switch rc {
            case 0: break
            case -ENOENT: return .failure(LineProblem("no GPIO chip labelled or named \(chip) (\(chips))"))
            case -ERANGE:
                return .failure(LineProblem("\(chip) has \(location.chip_lines) lines, so no offset \(offset)"))
            default: return .failure(LineProblem(errno: -rc, "cannot open GPIO chip \(chip)"))
            }
        }
        let name = text(location.chip_name), label = text(location.chip_label)
        let place = "\(ref) (\(name)\(label.isEmpty ? "" : " [\(label)]") line \(location.offset))"
        return .success(Found(line: -1, path: text(location.chip_path), place: place, offset: location.offset))
    }

    private func request(_ members: [Found], key: GroupKey, quiet: Bool) -> GPIORequestSource? {
        var config = fgpio_input_config()
        config.active_low = key.settings.activeLow
        config.debounce_us = UInt32(key.debounce / 1000)
        switch key.settings.bias {
        case .pullUp: config.bias = FGPIO_BIAS_PULL_UP
        case .pullDown: config.bias = FGPIO_BIAS_PULL_DOWN
        case .disabled: config.bias = FGPIO_BIAS_DISABLED
        case .asIs: config.bias = FGPIO_BIAS_AS_IS
        }
        var error: Int32 = 0
        let offsets = members.map(\.offset)
        let request = consumer.withCString { name in
            config.consumer = name
            return fgpio_request_inputs(key.path, offsets, offsets.count, &config, &error)
        }
        if let request { return GPIORequestSource(request: request, lines: members.map(\.line)) }
        if !quiet, let member = members.first {
            logger.warning("controls: \(problem(error, member)); \(keymap.lines[member.line].owner) is off")
        }
        return nil
    }

    private func problem(_ error: Int32, _ member: Found) -> LineProblem {
        guard error == EBUSY else { return LineProblem(errno: error, "cannot request \(member.place)") }
        var name = [CChar](repeating: 0, count: 64), user = [CChar](repeating: 0, count: 64)
        _ = fgpio_line_status(member.path, member.offset, &name, name.count, &user, user.count)
        let consumer = text(user)
        return LineProblem("\(member.place) is already in use" + (consumer.isEmpty ? "" : " by \"\(consumer)\""))
    }

    private func logSummary(_ sources: [GPIORequestSource]) {
        let got = Set(sources.flatMap(\.lines))
        let total = keymap.gpioLines.count
        let names = keymap.lines.indices.filter(got.contains).map {
            "\(keymap.lines[$0].owner) \(keymap.lines[$0].ref)"
        }
        let library = Self.describeLibrary(debounceMs: keymap.debounce / 1_000_000)
        if got.isEmpty {
            logger.warning("controls: none of the \(total) configured lines is available; physical controls are off")
        } else {
            let list = names.joined(separator: ", ")
            logger.notice("controls: \(got.count) of \(total) lines ready on \(library): \(list)")
        }
    }
}

/// Why one line could not be had; its text is the log message.
struct LineProblem: Error, CustomStringConvertible {
    var description: String

    init(_ text: String) { description = text }

    init(errno code: Int32, _ what: String) {
        var text = "\(what): \(String(cString: strerror(code)))"
        if code == EACCES || code == EPERM { text += " (the user needs read-write access to /dev/gpiochip*)" }
        description = text
    }
}

/// A C char array (imported as a tuple) as a String.
private func text<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
}

/// A NUL-terminated buffer as a String.
private func text(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
