import FermataCore
import Testing
import TestSupport

/// `RawPath` keeps file-name bytes exactly: every byte string comes back from its text, and different byte strings
/// never share a text (the old U+FFFD repair merged them).
@Suite struct RawPathTests {
    @Test func everyByteStringRoundTripsAndNoTwoShareAText() {
        var generator = SplitMix64(seed: 13)  // fixed seed: a failure names a reproducible case
        var seen: [String: [UInt8]] = [:]
        // Random bytes, biased towards the interesting ones: ASCII, UTF-8 lead and continuation bytes, and the
        // encoding of the escape range itself (F4 8F BE/BF xx).
        let alphabet: [UInt8] = [0x61, 0x2F, 0x20, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x8E, 0xB5, 0xF4, 0x8F,
                                 0xBE, 0xBF, 0x80, 0xFF, 0xFE, 0xC0, 0xED, 0xA0]
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...8, using: &generator)
            let bytes = (0..<length).map { _ in
                Bool.random(using: &generator) ? alphabet.randomElement(using: &generator)!
                    : UInt8.random(in: 0...255, using: &generator)
            }
            let text = RawPath.text(bytes)
            #expect(RawPath.bytes(text) == bytes, "\(bytes)")
            if let other = seen[text] { #expect(other == bytes, "\(bytes) and \(other) share \(text.debugDescription)") }
            seen[text] = bytes
        }
    }

    @Test func validUTF8IsItsOwnText() {
        for name in ["Beta/Uno.flac", "Dvořák – Largo.flac", "🎵.ogg", ""] {
            #expect(RawPath.text(Array(name.utf8)) == name)
            #expect(!RawPath.hasEscapes(name))
        }
        // A name's own escape-range character is escaped byte by byte, so it cannot pass for an invalid byte.
        let tricky = Array("x\u{10FF80}".utf8)
        #expect(RawPath.text(tricky) != RawPath.text([0x78, 0x80]))
        #expect(RawPath.bytes(RawPath.text(tricky)) == tricky)
    }

    @Test func withCStringHandsTheRawBytes() {
        let bytes: [UInt8] = Array("a".utf8) + [0xFF, 0xE9] + Array(".flac".utf8)
        let seen = RawPath.withCString(RawPath.text(bytes)) { pointer in
            (0..<bytes.count + 1).map { UInt8(bitPattern: pointer[$0]) }
        }
        #expect(seen == bytes + [0])
    }
}
