#if canImport(Glibc)
import Glibc
#endif

/// One edge as a source reports it: which keymap line, its new logical level, and the kernel timestamp
/// (CLOCK_MONOTONIC nanoseconds).
public struct RawEdge: Sendable, Hashable {
    public var line: Int
    public var level: Bool
    public var time: UInt64

    public init(line: Int, level: Bool, time: UInt64) {
        self.line = line
        self.level = level
        self.time = time
    }
}

/// What a source hands the engine: an edge (a level change on a line), or steps on a relative axis (evdev).
enum SourceInput: Sendable, Equatable {
    case edge(RawEdge)
    case steps(line: Int, count: Int, time: UInt64)
    /// A card reader (`input`, an `[input-NAME]` with `cards = true`) typed a card id.
    case card(id: String, input: String, time: UInt64)

    var time: UInt64 {
        switch self {
        case let .edge(edge): edge.time
        case let .steps(_, _, time): time
        case let .card(_, _, time): time
        }
    }
}

/// Where the GPIO thread gets edges: descriptors to poll for input and a way to read what is pending on each.
/// Created, used and closed on the GPIO thread only.
protocol EdgeSource: AnyObject {
    var descriptors: [Int32] { get }
    /// Appends what is pending on `descriptors[index]`; never blocks. Throws the errno when the source is broken.
    func read(_ index: Int, into inputs: inout [SourceInput]) throws(EdgeSourceError)
    /// The logical level of each of its lines now.
    func levels() -> [(line: Int, level: Bool)]
    /// When `expire` must next be called (a source with timing of its own: an IR scancode's release), or nil.
    var deadline: UInt64? { get }
    /// Appends what is due at or before `now`.
    func expire(now: UInt64, into inputs: inout [SourceInput])
    func close()
}

extension EdgeSource {
    var deadline: UInt64? { nil }
    func expire(now: UInt64, into inputs: inout [SourceInput]) {}
}

/// A source that stopped working (a chip unplugged, a descriptor closed), with the errno.
struct EdgeSourceError: Error {
    var errno: Int32
}

/// Edges written to a file descriptor as 16-byte records — line (UInt32), level (UInt32: 0 or 1), time (UInt64),
/// little-endian — for tests and benchmarks that drive the whole service without GPIO hardware. Writers use
/// `PipeEdgeSource.record`. Used on the GPIO thread only; it closes its descriptor when done.
public final class PipeEdgeSource: EdgeSource {
    let fd: Int32

    init(fd: Int32) {
        self.fd = fd
    }

    /// The bytes of one record.
    public static func record(_ edge: RawEdge) -> [UInt8] {
        let line = UInt32(edge.line).littleEndian, level = UInt32(edge.level ? 1 : 0).littleEndian
        let time = edge.time.littleEndian
        return withUnsafeBytes(of: line, Array.init) + withUnsafeBytes(of: level, Array.init)
            + withUnsafeBytes(of: time, Array.init)
    }

    var descriptors: [Int32] { [fd] }

    func read(_ index: Int, into inputs: inout [SourceInput]) throws(EdgeSourceError) {
        var records = [(UInt32, UInt32, UInt64)](repeating: (0, 0, 0), count: 32)
        let count = records.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EAGAIN || errno == EINTR { return }
            throw EdgeSourceError(errno: errno)
        }
        if count == 0 { throw EdgeSourceError(errno: EPIPE) }
        precondition(count % 16 == 0, "edge records are written whole (16 bytes, atomic on a pipe)")
        for (line, level, time) in records[..<(count / 16)] {
            inputs.append(.edge(RawEdge(line: Int(UInt32(littleEndian: line)), level: UInt32(littleEndian: level) != 0,
                                        time: UInt64(littleEndian: time))))
        }
    }

    func levels() -> [(line: Int, level: Bool)] { [] }

    func close() {
        _ = Glibc.close(fd)
    }
}
