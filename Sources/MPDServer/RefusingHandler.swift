import MPDProtocol
import NIOCore

/// Answers a client over the connection limit with one ACK line, then closes.
///
/// Lives on the refused channel's event loop.
final class RefusingHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    static let message = Array(MPDError(.system, "too many connections").ackLine(index: 0, command: "").utf8)

    func channelActive(context: ChannelHandlerContext) {
        let written = context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: Self.message)))
        written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}
