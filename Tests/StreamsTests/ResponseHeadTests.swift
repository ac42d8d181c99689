import Testing
@testable import Streams

/// The response head a stream reads: the fields it needs, each response of a redirect chain on its own, and every
/// bound a hostile server could stretch.
@Suite struct ResponseHeadTests {
    static func read(_ lines: [String]) throws(StreamError) -> ResponseHead? {
        var reader = ResponseHeadReader()
        for line in lines {
            let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: line.utf8.count + 2, alignment: 1)
            defer { bytes.deallocate() }
            bytes.copyBytes(from: Array((line + "\r\n").utf8))
            try reader.take(UnsafeRawBufferPointer(bytes))
        }
        return reader.complete
    }

    @Test func icecastHead() throws {
        let head = try #require(try Self.read([
            "HTTP/1.0 200 OK", "Content-Type: audio/mpeg", "icy-name: Radio\u{7}One", "icy-metaint:16000",
            "Cache-Control: no-cache", "",
        ]))
        #expect(head.status == 200)
        #expect(head.contentType == "audio/mpeg")
        #expect(head.icyName == "Radio One")
        #expect(head.icyMetaInterval == 16000)
    }

    @Test func shoutcastStatusLineAndARedirectChain() throws {
        let head = try #require(try Self.read([
            "HTTP/1.1 302 Found", "Location: http://x/", "icy-metaint: 99", "",
            "ICY 200 OK", "content-type: audio/aacp; charset=x", "",
        ]))
        #expect(head.status == 200)
        #expect(head.contentType == "audio/aacp")
        #expect(head.icyMetaInterval == nil, "the redirect's fields are not the stream's")
    }

    @Test(arguments: ["-1", "abc", "99999999999", "2000000"])
    func aBogusMetaIntervalIsRefused(_ value: String) {
        #expect(throws: StreamError.self) { try Self.read(["HTTP/1.0 200 OK", "icy-metaint: \(value)", ""]) }
    }

    @Test func zeroMeansNoMetadata() throws {
        #expect(try Self.read(["HTTP/1.0 200 OK", "icy-metaint: 0", ""])?.icyMetaInterval == nil)
    }

    @Test func boundsOnLinesFieldsAndBytes() {
        #expect(throws: StreamError.refused("the server sent a header line over 8 KiB")) {
            try Self.read(["HTTP/1.0 200 OK", "X: " + String(repeating: "a", count: 9000)])
        }
        #expect(throws: StreamError.self) {
            try Self.read(["HTTP/1.0 200 OK"] + (0..<300).map { "X-\($0): 1" })
        }
        #expect(throws: StreamError.refused("the server sent over 64 KiB of headers")) {
            try Self.read(["HTTP/1.0 200 OK"] + (0..<100).map { "X-\($0): " + String(repeating: "b", count: 1000) })
        }
    }

    @Test func anEncodedBodyIsNoted() throws {
        #expect(try Self.read(["HTTP/1.0 200 OK", "Content-Encoding: gzip", ""])?.contentEncoding == "gzip")
        #expect(try Self.read(["HTTP/1.0 200 OK", "Content-Encoding: identity", ""])?.contentEncoding == nil)
    }
}
