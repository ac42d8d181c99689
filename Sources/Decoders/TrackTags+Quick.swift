/// A faster path for applying Vorbis comments during library scans (same results as `applyVorbisComment`).
///
/// A value-type extension; used on whichever thread owns the tags.
extension TrackTags {
    /// `applyVorbisComment` with the common case done on bytes: an ASCII key is upper-cased directly, and a value
    /// that starts and ends with visible ASCII needs no trimming, so neither goes through Unicode case mapping or
    /// grapheme breaking. Anything else takes `applyVorbisComment` itself, so the result is always the same.
    mutating func applyVorbisCommentQuickly(_ entry: UnsafeBufferPointer<UInt8>) {
        guard let equals = entry.firstIndex(of: UInt8(ascii: "=")), equals > 0, equals + 1 < entry.count,
              Self.isVisibleASCII(entry[equals + 1]), Self.isVisibleASCII(entry[entry.count - 1]),
              entry[..<equals].allSatisfy({ $0 < 0x80 }) else {
            applyVorbisComment(entry)
            return
        }
        let key = String(unsafeUninitializedCapacity: equals) { buffer in
            for index in 0..<equals {
                let byte = entry[index]
                buffer[index] = byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 32 : byte
            }
            return equals
        }
        apply(key: key, value: String(decoding: UnsafeBufferPointer(rebasing: entry[(equals + 1)...]), as: UTF8.self))
    }

    private static func isVisibleASCII(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F
    }
}
