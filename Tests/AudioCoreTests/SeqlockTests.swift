import AudioCore
import Testing

/// The generic seqlock's copy-in and copy-out (the concurrent protocol is `SeqlockStressTests`, through the engine's
/// heard position): values whose size is not a multiple of eight bytes, optionals and enums with payloads come back
/// exactly, and the last publish wins.
@Suite struct SeqlockTests {
    enum Phase: BitwiseCopyable, Equatable {
        case idle
        case at(Int32)
        case between(UInt8, Int64)
    }

    struct Odd: BitwiseCopyable, Equatable {
        var flag: UInt8
        var phase: Phase
        var entry: Int64?
        var tail: UInt16
    }

    @Test func everyValueComesBackAsPublished() {
        let values = [
            Odd(flag: 0, phase: .idle, entry: nil, tail: 0),
            Odd(flag: 255, phase: .at(-7), entry: 42, tail: 0xBEEF),
            Odd(flag: 1, phase: .between(9, .min), entry: .max, tail: 1),
            Odd(flag: 2, phase: .between(0, 0), entry: nil, tail: .max),
        ]
        let lock = Seqlock(values[0])
        #expect(lock.read() == values[0])
        for value in values {
            lock.publish(value)
            #expect(lock.read() == value)
            #expect(lock.read() == value, "reading does not change it")
        }
    }

    @Test func aValueOfTheLargestSizeFits() {
        typealias Wide = (Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64,
                          Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64)
        #expect(MemoryLayout<Wide>.size == Seqlock<Int>.capacityWords * 8)
        let lock = Seqlock<Wide>((1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
        lock.publish((-1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -11, -12, -13, -14, -15, -16))
        let copy = lock.read()
        #expect(copy.0 == -1 && copy.7 == -8 && copy.15 == -16)
    }
}
