import NIOCore

/// Splits the byte stream of one client into lines (without `\n`; a trailing `\r` is dropped), refusing lines longer
/// than a limit so a client cannot make the server buffer without bound.
///
/// Runs on the client channel's event loop (a `ByteToMessageDecoder`).
struct MPDLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    /// Raised (through `errorCaught`) when a line exceeds the limit.
    struct LineTooLong: Error {}

    let maxLength: Int
    /// Bytes already searched for a newline, so a slowly arriving line is not rescanned.
    private var scanned = 0

    init(maxLength: Int) { self.maxLength = maxLength }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let view = buffer.readableBytesView
        guard let newline = view.dropFirst(scanned).firstIndex(of: UInt8(ascii: "\n")) else {
            scanned = view.count
            if view.count > maxLength { throw LineTooLong() }
            return .needMoreData
        }
        scanned = 0
        var length = newline - view.startIndex
        if length > maxLength { throw LineTooLong() }
        if length > 0, view[newline - 1] == UInt8(ascii: "\r") { length -= 1 }
        let line = buffer.getSlice(at: buffer.readerIndex, length: length)!
        buffer.moveReaderIndex(to: newline + 1)
        context.fireChannelRead(wrapInboundOut(line))
        return .continue
    }

    mutating func decodeLast(
        context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
    ) throws -> DecodingState {
        // Complete lines still count; an unterminated tail is dropped, as MPD drops it.
        while try decode(context: context, buffer: &buffer) == .continue {}
        buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
        return .needMoreData
    }
}
