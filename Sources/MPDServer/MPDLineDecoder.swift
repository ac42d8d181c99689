import NIOCore

/// Splits the byte stream of one client into lines (without `\n`; a trailing `\r` is dropped), refusing lines longer
/// than a limit so a client cannot make the server buffer without bound. Emits the complete lines of each read as
/// one array.
///
/// Runs on the client channel's event loop (a `ByteToMessageDecoder`).
struct MPDLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = [[UInt8]]

    /// Raised (through `errorCaught`) when a line exceeds the limit.
    struct LineTooLong: Error {}

    let maxLength: Int
    /// Bytes already searched for a newline, so a slowly arriving line is not rescanned.
    private var scanned = 0

    init(maxLength: Int) { self.maxLength = maxLength }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        // Every complete line in the buffer goes up in one message: one pipeline event per read, not per line (a
        // 10,000-line command list spent more in per-line events than in running the list).
        var lines: [[UInt8]] = []
        while true {
            let view = buffer.readableBytesView
            guard let newline = view.dropFirst(scanned).firstIndex(of: UInt8(ascii: "\n")) else {
                scanned = view.count
                if view.count > maxLength {
                    if !lines.isEmpty { context.fireChannelRead(wrapInboundOut(lines)) }
                    throw LineTooLong()
                }
                break
            }
            scanned = 0
            var length = newline - view.startIndex
            if length > maxLength {
                if !lines.isEmpty { context.fireChannelRead(wrapInboundOut(lines)) }
                throw LineTooLong()
            }
            if length > 0, view[newline - 1] == UInt8(ascii: "\r") { length -= 1 }
            lines.append(buffer.getBytes(at: buffer.readerIndex, length: length)!)
            buffer.moveReaderIndex(to: newline + 1)
        }
        guard !lines.isEmpty else { return .needMoreData }
        context.fireChannelRead(wrapInboundOut(lines))
        return .needMoreData
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
