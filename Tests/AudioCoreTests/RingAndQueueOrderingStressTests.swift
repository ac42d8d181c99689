import AudioCore
import Foundation
import Synchronization
import Testing
import TestSupport

/// Issue 14, Build 7: the lock-free `PCMRing` and `SPSCQueue` between two real threads, many hand-overs, every message
/// checked.
///
/// Each message carries its sequence number and a checksum over its bytes; the consumer verifies both. A missing
/// release/acquire pair (see the types' documentation) shows up as a message whose bytes are stale or half written
/// (checksum), or as a lost, repeated or out-of-order message (sequence). The buffers are tiny, so the two threads meet
/// at the full and empty edges thousands of times.
///
/// How they can fail, and where: on x86 (total store order) only a mistake the compiler or the code itself makes is
/// caught — an index published before the bytes it covers, a release before the read it guards, a wrong wrap. On a
/// weakly ordered CPU (ARM) a plain store where a releasing one is needed is caught as well, given enough hand-overs;
/// that is why the suite is meant to be run on real arm64 hardware too (qemu on x86 inherits x86's stronger order).
/// Checked on x86 with copies of the types broken on purpose: the ring publishing `writeIndex` before copying the
/// bytes lost its framing within a few hundred messages in 6 runs of 6; the queue storing `tail` before the slot
/// failed 2 runs of 3, and storing `head` before reading the slot failed every run.
///
/// Not timing-dependent: each test runs a fixed amount of work. The threads yield when they cannot proceed, so a
/// loaded machine makes them slower, not wrong. A watchdog ends a test that makes no progress for 60 s (a lost message
/// would otherwise hang the consumer) and reports that as a failure.
@Suite struct RingAndQueueOrderingStressTests {
    static let stallSeconds = 60.0

    // MARK: PCMRing

    /// Variable-length messages (1…256 payload bytes, 12-byte header) through a 4 KiB ring, written in random-sized
    /// pieces so the consumer often sees half a message; the consumer releases the header and the payload separately.
    @Test func ringDeliversEveryMessageIntactBetweenTwoThreads() async throws {
        let ring = PCMRing(minimumCapacity: 4096)
        let messages = 100_000
        let watchdog = StallWatchdog(stallSeconds: Self.stallSeconds)

        async let produced: Int = onThread {
            var random = SplitMix64(seed: 0x5EED_1234)
            var message = [UInt8](repeating: 0, count: RingMessage.header + RingMessage.maxPayload)
            for sequence in 0..<messages {
                let length = RingMessage.fill(&message, sequence: UInt32(sequence), random: &random)
                var offset = 0
                while offset < length {
                    let piece = min(length - offset, 1 + Int(random.next() % 97))
                    let wrote = message.withUnsafeBytes {
                        ring.write(UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + piece)]))
                    }
                    offset += wrote
                    if wrote == 0 {
                        guard watchdog.spin() else { return sequence }
                    } else {
                        watchdog.progress()
                    }
                }
            }
            return messages
        }

        async let checked: RingCheck = onThread {
            var check = RingCheck()
            var cursor = 0
            var header = [UInt8](repeating: 0, count: RingMessage.header)
            var payload = [UInt8](repeating: 0, count: RingMessage.maxPayload)
            /// Waits until `count` bytes are readable from `cursor`; false when the watchdog gave up.
            func waitFor(_ count: Int, from cursor: Int) -> Bool {
                while ring.readableBytes(from: cursor) < count {
                    guard watchdog.spin() else { return false }
                }
                watchdog.progress()
                return true
            }
            while check.received < messages {
                guard waitFor(RingMessage.header, from: cursor) else { check.stalled = true; break }
                header.withUnsafeMutableBytes {
                    ring.copy(from: cursor, into: $0.baseAddress!, count: RingMessage.header)
                }
                cursor += RingMessage.header
                ring.release(upTo: cursor)
                let (length, sequence, sum) = RingMessage.parseHeader(header)
                guard (1...RingMessage.maxPayload).contains(length) else {
                    check.note("message \(check.received): header says \(length) payload bytes")
                    break  // the framing is lost: nothing after this can be trusted
                }
                guard waitFor(length, from: cursor) else { check.stalled = true; break }
                payload.withUnsafeMutableBytes { ring.copy(from: cursor, into: $0.baseAddress!, count: length) }
                cursor += length
                ring.release(upTo: cursor)
                if sequence != UInt32(check.received) {
                    check.note("message \(check.received) arrived with sequence \(sequence)")
                }
                let actual = payload.withUnsafeBytes {
                    RingMessage.checksum(UnsafeRawBufferPointer(rebasing: $0[..<length]), sequence: sequence)
                }
                if actual != sum { check.note("message \(check.received) (sequence \(sequence)): checksum mismatch") }
                check.received += 1
            }
            watchdog.abandon()  // if the consumer stopped early, the producer stops waiting for room
            return check
        }

        let (sent, check) = try await (produced, checked)
        #expect(!check.stalled, "no progress for \(Self.stallSeconds) s: sent \(sent), received \(check.received)")
        #expect(sent == messages && check.received == messages,
                "sent \(sent), received \(check.received) of \(messages)")
        #expect(check.failures == 0, "\(check.failures) bad messages; first: \(check.first ?? "")")
    }

    // MARK: SPSCQueue

    /// 400 000 five-word values through a queue of 4 slots; the consumer peeks each value before popping it and both
    /// copies must be the same, complete value.
    @Test func queueDeliversEveryValueIntactBetweenTwoThreads() async throws {
        let queue = SPSCQueue<QueueMessage>(capacity: 4, filler: QueueMessage.unpublished)
        let messages = 400_000
        let watchdog = StallWatchdog(stallSeconds: Self.stallSeconds)

        async let produced: Int = onThread {
            for sequence in 0..<messages {
                let value = QueueMessage(sequence: UInt64(sequence))
                while !queue.push(value) {
                    guard watchdog.spin() else { return sequence }
                }
                watchdog.progress()
            }
            return messages
        }

        async let checked: RingCheck = onThread {
            var check = RingCheck()
            while check.received < messages {
                guard let peeked = queue.peek() else {
                    if !watchdog.spin() { check.stalled = true; break }
                    continue
                }
                watchdog.progress()
                if queue.isEmpty { check.note("value \(check.received): isEmpty after a successful peek") }
                guard let popped = queue.pop() else {
                    check.note("value \(check.received): pop found nothing after a successful peek")
                    break
                }
                if popped != peeked { check.note("value \(check.received): peek and pop disagree") }
                if !popped.isIntact {
                    check.note("value \(check.received) (sequence \(popped.sequence)): checksum mismatch")
                }
                if popped.sequence != UInt64(check.received) {
                    check.note("value \(check.received) arrived with sequence \(popped.sequence)")
                }
                check.received += 1
            }
            if queue.pop() != nil { check.note("a value after the last one") }
            watchdog.abandon()  // if the consumer stopped early, the producer stops waiting for room
            return check
        }

        let (sent, check) = try await (produced, checked)
        #expect(!check.stalled, "no progress for \(Self.stallSeconds) s: sent \(sent), received \(check.received)")
        #expect(sent == messages && check.received == messages,
                "sent \(sent), received \(check.received) of \(messages)")
        #expect(check.failures == 0, "\(check.failures) bad values; first: \(check.first ?? "")")
    }
}

/// What a consumer thread found.
struct RingCheck: Sendable {
    var received = 0
    var failures = 0
    var first: String?
    var stalled = false

    mutating func note(_ problem: String) {
        failures += 1
        if first == nil { first = problem }
    }
}

/// The ring's message: payload length (UInt32 LE), sequence (UInt32 LE), checksum (UInt32 LE), then the payload.
enum RingMessage {
    static let header = 12
    static let maxPayload = 256

    /// Writes message `sequence` (random length and bytes) into `buffer`; returns its total length.
    static func fill(_ buffer: inout [UInt8], sequence: UInt32, random: inout SplitMix64) -> Int {
        let length = 1 + Int(random.next() % UInt64(maxPayload))
        buffer.withUnsafeMutableBytes { raw in
            for i in 0..<length { raw[header + i] = UInt8(truncatingIfNeeded: random.next()) }
            let sum = checksum(UnsafeRawBufferPointer(rebasing: raw[header..<(header + length)]), sequence: sequence)
            raw.storeBytes(of: UInt32(length).littleEndian, toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: sequence.littleEndian, toByteOffset: 4, as: UInt32.self)
            raw.storeBytes(of: sum.littleEndian, toByteOffset: 8, as: UInt32.self)
        }
        return header + length
    }

    static func parseHeader(_ bytes: [UInt8]) -> (length: Int, sequence: UInt32, checksum: UInt32) {
        bytes.withUnsafeBytes { raw in
            (Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt32.self))),
             UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self)),
             UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt32.self)))
        }
    }

    /// FNV-1a over the sequence number and the payload (so a payload of another message does not pass).
    static func checksum(_ payload: UnsafeRawBufferPointer, sequence: UInt32) -> UInt32 {
        var hash: UInt32 = 0x811C_9DC5 ^ sequence
        hash = hash &* 0x0100_0193
        for byte in payload {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        return hash
    }
}

/// The queue's value: five words, the last a checksum of the other four.
struct QueueMessage: BitwiseCopyable, Equatable, Sendable {
    var sequence: UInt64
    var a: UInt64
    var b: UInt64
    var c: UInt64
    var sum: UInt64

    /// The filler: never a valid message (its checksum does not match).
    static let unpublished = QueueMessage(sequence: .max, a: 0, b: 0, c: 0, sum: 1)

    init(sequence: UInt64, a: UInt64, b: UInt64, c: UInt64, sum: UInt64) {
        self.sequence = sequence; self.a = a; self.b = b; self.c = c; self.sum = sum
    }

    init(sequence: UInt64) {
        self.sequence = sequence
        a = sequence &* 0x9E37_79B9_7F4A_7C15
        b = ~sequence &* 0xC2B2_AE3D_27D4_EB4F
        c = (sequence << 32 | sequence >> 32) ^ 0x1656_67B1_9E37_79F9
        sum = Self.checksum(sequence, a, b, c)
    }

    var isIntact: Bool { sum == Self.checksum(sequence, a, b, c) }

    static func checksum(_ s: UInt64, _ a: UInt64, _ b: UInt64, _ c: UInt64) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for word in [s, a, b, c] { h = (h ^ word) &* 0x0000_0100_0000_01B3 }
        return h
    }
}
