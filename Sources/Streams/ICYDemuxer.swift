/// Splits an ICY (SHOUTcast/Icecast) body into audio and metadata: after every `interval` audio bytes comes one
/// length byte L and 16·L bytes of metadata (`StreamTitle='…';StreamUrl='…';`, NUL-padded). The protocol bounds a
/// block to 4,080 bytes, so a hostile server's "10 MB title" can only ever arrive 4 KB at a time.
///
/// A value: bytes in, audio ranges and metadata blocks out; owned by one `ICYReader`.
struct ICYDemuxer {
    enum State: Equatable {
        /// This many audio bytes before the next length byte.
        case audio(remaining: Int)
        case length
        /// Collecting a metadata block: this many bytes still to come.
        case metadata(remaining: Int)
    }

    let interval: Int
    private(set) var state: State
    private var block: [UInt8] = []

    init(interval: Int) {
        precondition(interval > 0)
        self.interval = interval
        state = .audio(remaining: interval)
    }

    /// What one call found in the bytes fed.
    enum Piece: Equatable {
        /// Audio: `range` of the bytes fed.
        case audio(Range<Int>)
        /// A complete, non-empty metadata block.
        case metadata([UInt8])
    }

    /// Splits `bytes` (any length) into pieces, in order; calls `piece` for each.
    mutating func feed(_ bytes: UnsafeRawBufferPointer, _ piece: (Piece) -> Void) {
        var index = 0
        while index < bytes.count {
            switch state {
            case let .audio(remaining):
                let take = min(remaining, bytes.count - index)
                piece(.audio(index..<index + take))
                index += take
                state = take == remaining ? .length : .audio(remaining: remaining - take)
            case .length:
                let length = Int(bytes[index]) * 16
                index += 1
                state = length == 0 ? .audio(remaining: interval) : .metadata(remaining: length)
                block.removeAll(keepingCapacity: true)
            case let .metadata(remaining):
                let take = min(remaining, bytes.count - index)
                block.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<index + take]))
                index += take
                if take == remaining {
                    piece(.metadata(block))
                    state = .audio(remaining: interval)
                } else {
                    state = .metadata(remaining: remaining - take)
                }
            }
        }
    }
}

/// The fields of an ICY metadata block a player shows.
enum ICYMetadata {
    /// The `StreamTitle` of a block, cleaned for display (nil when the block has none). The value ends at the first
    /// `';` (a title may hold a lone `'`: "Guns N' Roses"), else at the block's end; UTF-8, else ISO-8859-1.
    static func title(in block: [UInt8]) -> String? {
        let key = Array("StreamTitle='".utf8)
        guard let start = block.firstRange(of: key)?.upperBound else { return nil }
        var end = block.endIndex
        var index = start
        while index + 1 < block.endIndex {
            if block[index] == UInt8(ascii: "'"), block[index + 1] == UInt8(ascii: ";") {
                end = index
                break
            }
            index += 1
        }
        var value = block[start..<end]
        while let last = value.last, last == 0 || last == UInt8(ascii: "'") { value = value.dropLast() }
        return NetworkText.clean(NetworkText.decode(value), limit: 512)
    }
}

/// An ICY body's audio as a byte source: metadata blocks are taken out and their titles handed to `onTitle` (only
/// when the title changes; an empty title is reported too, as "no title now").
///
/// Threads: one stream thread.
final class ICYReader: StreamByteSource {
    private let source: any StreamByteSource
    private var demuxer: ICYDemuxer
    private let onTitle: (String) -> Void
    private var lastTitle: String?
    private let raw = ScratchBytes(count: 16_384)
    private var audio: [UInt8] = []
    private var audioStart = 0

    init(source: any StreamByteSource, interval: Int, onTitle: @escaping (String) -> Void) {
        self.source = source
        demuxer = ICYDemuxer(interval: interval)
        self.onTitle = onTitle
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(StreamError) -> Int {
        while audioStart >= audio.count {
            audio.removeAll(keepingCapacity: true)
            audioStart = 0
            let count = try source.read(into: raw.bytes)
            guard count > 0 else { return 0 }
            let bytes = raw.prefix(count)
            demuxer.feed(bytes) { piece in
                switch piece {
                case let .audio(range): audio.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[range]))
                case let .metadata(block):
                    if let title = ICYMetadata.title(in: block), title != lastTitle {
                        lastTitle = title
                        onTitle(title)
                    }
                }
            }
        }
        let count = min(buffer.count, audio.count - audioStart)
        audio.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + audioStart, byteCount: count)
        }
        audioStart += count
        return count
    }
}
