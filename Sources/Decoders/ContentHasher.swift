/// A fast streaming 64-bit hash of bytes, for recognising content again (audio identity, cover art). Not
/// cryptographic: it tells files apart, it does not resist someone forging a collision.
///
/// A value type; each user owns its own copy. The result depends only on the bytes and their order, never on how they
/// were split across `update` calls.
public struct ContentHasher: Sendable {
    private static let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
    private static let rotateMultiplier: UInt64 = 0xC2B2_AE3D_27D4_EB4F

    private var state: UInt64 = 0x243F_6A88_85A3_08D3
    private var pending: UInt64 = 0
    private var pendingBytes = 0
    private var total: UInt64 = 0

    public init() {}

    /// Feeds `bytes`.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        let count = bytes.count
        var index = 0
        while pendingBytes != 0, index < count {
            absorb(bytes[index])
            index += 1
        }
        while index + 8 <= count {
            mix(bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self).littleEndian)
            index += 8
        }
        while index < count {
            absorb(bytes[index])
            index += 1
        }
        total &+= UInt64(count)
    }

    /// Feeds the bytes of an array.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Feeds a 64-bit value (little-endian bytes).
    public mutating func update(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { update($0) }
    }

    /// The hash of everything fed so far (the hasher can go on afterwards).
    public func finalize() -> UInt64 {
        var copy = self
        if copy.pendingBytes != 0 { copy.mix(copy.pending ^ UInt64(copy.pendingBytes) << 60) }
        var value = copy.state ^ copy.total
        value ^= value >> 33
        value &*= 0xFF51_AFD7_ED55_8CCD
        value ^= value >> 33
        value &*= 0xC4CE_B9FE_1A85_EC53
        value ^= value >> 33
        return value
    }

    /// `finalize()` as 16 lower-case hex digits.
    public func hexDigest() -> String {
        let digits = Array("0123456789abcdef".utf8)
        let value = finalize()
        var out = [UInt8](repeating: 0, count: 16)
        for index in 0..<16 { out[index] = digits[Int(value >> UInt64(60 - 4 * index) & 15)] }
        return String(decoding: out, as: UTF8.self)
    }

    private mutating func absorb(_ byte: UInt8) {
        pending |= UInt64(byte) << UInt64(8 * pendingBytes)
        pendingBytes += 1
        if pendingBytes == 8 {
            mix(pending)
            pending = 0
            pendingBytes = 0
        }
    }

    private mutating func mix(_ word: UInt64) {
        var lane = word &* Self.rotateMultiplier
        lane = (lane << 31) | (lane >> 33)
        state = (state ^ lane) &* Self.multiplier
        state = (state << 27) | (state >> 37)
    }
}
