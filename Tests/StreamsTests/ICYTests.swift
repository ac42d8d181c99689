import Testing
@testable import Streams

/// ICY metadata taken out of a body: audio passes through untouched whatever the read sizes, and each block's
/// StreamTitle is found, cleaned and bounded.
@Suite struct ICYTests {
    /// A body of `blocks` audio runs of `interval` bytes (byte values counting up), each followed by a metadata block.
    static func body(interval: Int, titles: [String?]) -> (body: [UInt8], audio: [UInt8]) {
        var body: [UInt8] = [], audio: [UInt8] = []
        var value: UInt8 = 0
        for title in titles {
            for _ in 0..<interval {
                body.append(value)
                audio.append(value)
                value &+= 1
            }
            if let title {
                var block = Array("StreamTitle='\(title)';".utf8)
                while block.count % 16 != 0 { block.append(0) }
                body.append(UInt8(block.count / 16))
                body += block
            } else {
                body.append(0)
            }
        }
        return (body, audio)
    }

    @Test(arguments: [1, 7, 100, 1000, 100_000])
    func audioSurvivesAnySplit(chunk: Int) {
        let (body, audio) = Self.body(interval: 300, titles: ["One", nil, "Two", "Two", "Three"])
        var demuxer = ICYDemuxer(interval: 300)
        var out: [UInt8] = []
        var blocks: [String] = []
        var index = 0
        while index < body.count {
            let piece = Array(body[index..<min(body.count, index + chunk)])
            piece.withUnsafeBytes { bytes in
                demuxer.feed(bytes) { part in
                    switch part {
                    case let .audio(range): out += bytes[range]
                    case let .metadata(block): blocks.append(ICYMetadata.title(in: block) ?? "-")
                    }
                }
            }
            index += chunk
        }
        #expect(out == audio)
        #expect(blocks == ["One", "Two", "Two", "Three"])
    }

    @Test func titlesAreCleanedAndBounded() {
        func title(_ text: String) -> String? { ICYMetadata.title(in: Array(text.utf8)) }
        #expect(title("StreamTitle='Guns N' Roses - Patience';StreamUrl='';") == "Guns N' Roses - Patience")
        // A line break in a title would start another line of an MPD answer.
        #expect(title("StreamTitle='Evil\nfile: /etc/passwd';") == "Evil file: /etc/passwd")
        #expect(title("StreamTitle='no end quote") == "no end quote")
        #expect(title("StreamUrl='x';") == nil)
        #expect(title("StreamTitle='';") == "")
        let long = String(repeating: "x", count: 4000)
        #expect(title("StreamTitle='\(long)';")?.count == 512)
        // ISO-8859-1 from an old server.
        #expect(ICYMetadata.title(in: Array("StreamTitle='Caf".utf8) + [0xE9] + Array("';".utf8)) == "Café")
    }

    /// The largest block the protocol allows (255 × 16 bytes) is taken whole; nothing larger can be announced.
    @Test func theLargestBlock() {
        var body = [UInt8](repeating: 1, count: 10)
        body.append(255)
        var block = Array("StreamTitle='".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 4080 - 15) + Array("';".utf8)
        block = Array(block.prefix(4080))
        body += block
        body += [UInt8](repeating: 2, count: 10)
        var demuxer = ICYDemuxer(interval: 10)
        var audio = 0, titles: [Int] = []
        body.withUnsafeBytes { bytes in
            demuxer.feed(bytes) { part in
                switch part {
                case let .audio(range): audio += range.count
                case let .metadata(block): titles.append(block.count)
                }
            }
        }
        #expect(audio == 20)
        #expect(titles == [4080])
    }
}
