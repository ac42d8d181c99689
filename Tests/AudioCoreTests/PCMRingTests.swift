import AudioCore
import Testing

@Suite struct PCMRingTests {
    @Test func wrapsAroundWithoutLosingBytes() {
        let ring = PCMRing(minimumCapacity: 4096)
        var cursor = 0
        var next: UInt8 = 0
        var expected: UInt8 = 0
        let chunk = 1000
        var out = [UInt8](repeating: 0, count: chunk)
        for _ in 0..<50 {
            let data = (0..<chunk).map { _ in defer { next &+= 1 }; return next }
            #expect(data.withUnsafeBytes { ring.write($0) } == chunk)
            #expect(ring.readableBytes(from: cursor) == chunk)
            out.withUnsafeMutableBytes { ring.copy(from: cursor, into: $0.baseAddress!, count: chunk) }
            for byte in out { #expect(byte == expected); expected &+= 1 }
            cursor += chunk
            ring.release(upTo: cursor)
        }
    }

    @Test func refusesToOverwriteUnreleasedData() {
        let ring = PCMRing(minimumCapacity: 4096)
        let block = [UInt8](repeating: 7, count: 3000)
        #expect(block.withUnsafeBytes { ring.write($0) } == 3000)
        #expect(block.withUnsafeBytes { ring.write($0) } == ring.capacity - 3000)
        #expect(ring.freeBytes() == 0)
        ring.release(upTo: 1000)
        #expect(ring.freeBytes() == 1000)
    }

    @Test func truncateDiscardsTheTail() {
        let ring = PCMRing(minimumCapacity: 4096)
        let block = [UInt8](repeating: 1, count: 2000)
        _ = block.withUnsafeBytes { ring.write($0) }
        ring.truncate(at: 500)
        #expect(ring.readableBytes(from: 0) == 500)
    }

    @Test func producerAndConsumerThreadsAgreeOnEveryByte() async {
        let ring = PCMRing(minimumCapacity: 8192)
        let total = 3_000_000
        let producer = Task.detached {
            var value: UInt32 = 0
            var buffer = [UInt8](repeating: 0, count: 1024)
            var written = 0
            while written < total {
                for i in 0..<256 {
                    let v = value &+ UInt32(i)
                    buffer[i * 4] = UInt8(v & 0xFF); buffer[i * 4 + 1] = UInt8(v >> 8 & 0xFF)
                    buffer[i * 4 + 2] = UInt8(v >> 16 & 0xFF); buffer[i * 4 + 3] = UInt8(v >> 24)
                }
                var offset = 0
                while offset < buffer.count {
                    offset += buffer.withUnsafeBytes { ring.write(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
                    if offset < buffer.count { await Task.yield() }
                }
                value &+= 256
                written += buffer.count
            }
        }
        var cursor = 0
        var expected: UInt32 = 0
        var mismatches = 0
        var word = [UInt8](repeating: 0, count: 4)
        while cursor < total {
            if ring.readableBytes(from: cursor) < 4 { await Task.yield(); continue }
            word.withUnsafeMutableBytes { ring.copy(from: cursor, into: $0.baseAddress!, count: 4) }
            let v = UInt32(word[0]) | UInt32(word[1]) << 8 | UInt32(word[2]) << 16 | UInt32(word[3]) << 24
            if v != expected { mismatches += 1 }
            expected &+= 1
            cursor += 4
            ring.release(upTo: cursor)
        }
        await producer.value
        #expect(mismatches == 0)
    }
}
