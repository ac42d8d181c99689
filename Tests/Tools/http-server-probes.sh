#!/usr/bin/env bash
# The measurement behind docs/web.md's "Why Hummingbird": three small programs that do the same — a page, a JSON
# answer, a server-sent event stream — on SwiftNIO alone (the baseline: what fermatad links anyway), with a handler on
# NIOHTTP1 written by hand, and with Hummingbird 2; each built from clean (debug and release with the Swift runtime
# linked in), stripped, run, asked five times and streamed from, and its memory read from /proc.
#
#   Tests/Tools/http-server-probes.sh [WORKDIR]
set -euo pipefail
work=${1:-$(mktemp -d)}
mkdir -p "$work"/{base,nio,hb}/Sources/probe
cat > "$work/base/Package.swift" <<'SWIFT'
// swift-tools-version: 6.2
import PackageDescription
let package = Package(name: "probe", dependencies: [.package(url: "https://github.com/apple/swift-nio", from: "2.80.0")],
    targets: [.executableTarget(name: "probe", dependencies: [.product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOCore", package: "swift-nio")])])
SWIFT
cat > "$work/base/Sources/probe/main.swift" <<'SWIFT'
import Foundation
import NIOCore
import NIOPosix
// The baseline: a TCP server that answers every connection with a fixed text (what fermatad already links: NIO, Foundation).
final class Answer: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = context.channel.allocator.buffer(string: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
    }
}
let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let channel = try ServerBootstrap(group: group).childChannelInitializer { $0.pipeline.addHandler(Answer()) }
    .bind(host: "127.0.0.1", port: Int(ProcessInfo.processInfo.environment["PORT"] ?? "8080")!).wait()
print("base \(Date())")
try channel.closeFuture.wait()
SWIFT
cat > "$work/nio/Package.swift" <<'SWIFT'
// swift-tools-version: 6.2
import PackageDescription
let package = Package(name: "probe", dependencies: [.package(url: "https://github.com/apple/swift-nio", from: "2.80.0")],
    targets: [.executableTarget(name: "probe", dependencies: [.product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio")])])
SWIFT
cat > "$work/nio/Sources/probe/main.swift" <<'SWIFT'
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
// NIOHTTP1 by hand: a page, a JSON answer and a server-sent event stream (one event a second).
let page = "<!doctype html><title>probe</title><p>hello</p>"
final class Handler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    var head: HTTPRequestHead?
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(head): self.head = head
        case .body: break
        case .end:
            guard let head else { return }
            switch head.uri {
            case "/api/events":
                var headers = HTTPHeaders([("Content-Type", "text/event-stream")])
                headers.add(name: "Cache-Control", value: "no-store")
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .ok, headers: headers))), promise: nil)
                let loop = context.eventLoop
                let ctx = NIOLoopBound(context, eventLoop: loop)
                loop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { _ in
                    let buffer = ctx.value.channel.allocator.buffer(string: "data: {\"state\":\"play\"}\n\n")
                    ctx.value.writeAndFlush(self.wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
                }
            default:
                let json = head.uri == "/api/status"
                let body = context.channel.allocator.buffer(string: json ? "{\"state\":\"play\",\"volume\":40}" : page)
                var headers = HTTPHeaders([("Content-Type", json ? "application/json" : "text/html"), ("Content-Length", "\(body.readableBytes)")])
                headers.add(name: "Cache-Control", value: "no-store")
                context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .ok, headers: headers))), promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}
let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let channel = try ServerBootstrap(group: group)
    .childChannelInitializer { channel in
        channel.pipeline.configureHTTPServerPipeline().flatMap { channel.pipeline.addHandler(Handler()) }
    }
    .bind(host: "127.0.0.1", port: Int(ProcessInfo.processInfo.environment["PORT"] ?? "8080")!).wait()
print("nio \(Date())")
try channel.closeFuture.wait()
SWIFT
cat > "$work/hb/Package.swift" <<'SWIFT'
// swift-tools-version: 6.2
import PackageDescription
let package = Package(name: "probe", dependencies: [
    .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
], targets: [.executableTarget(name: "probe", dependencies: [.product(name: "Hummingbird", package: "hummingbird")])])
SWIFT
cat > "$work/hb/Sources/probe/main.swift" <<'SWIFT'
import Foundation
import Hummingbird
// Hummingbird 2: a page, a JSON answer and a server-sent event stream (one event a second).
let page = "<!doctype html><title>probe</title><p>hello</p>"
let router = Router()
router.get("/") { _, _ in
    Response(status: .ok, headers: [.contentType: "text/html"], body: .init(byteBuffer: ByteBuffer(string: page)))
}
router.get("/api/status") { _, _ in
    Response(status: .ok, headers: [.contentType: "application/json"],
             body: .init(byteBuffer: ByteBuffer(string: "{\"state\":\"play\",\"volume\":40}")))
}
router.get("/api/events") { _, _ in
    Response(status: .ok, headers: [.contentType: "text/event-stream"], body: .init { writer in
        while !Task.isCancelled {
            try await Task.sleep(for: .seconds(1))
            try await writer.write(ByteBuffer(string: "data: {\"state\":\"play\"}\n\n"))
        }
        try await writer.finish(nil)
    })
}
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1",
    port: Int(ProcessInfo.processInfo.environment["PORT"] ?? "8080")!)))
print("hb \(Date())")
try await app.runService()
SWIFT
for p in base nio hb; do
    (cd "$work/$p" && swift package resolve >/dev/null 2>&1)
    for config in debug release; do
        (cd "$work/$p" && rm -rf .build/debug .build/release .build/x86_64-unknown-linux-gnu .build/aarch64-unknown-linux-gnu)
        start=$(date +%s.%N)
        (cd "$work/$p" && swift build -c "$config" --static-swift-stdlib >/dev/null 2>&1)
        echo "$p $config build: $(echo "$(date +%s.%N) - $start" | bc) s"
    done
    cp "$work/$p/.build/release/probe" "$work/probe-$p" && strip "$work/probe-$p"
    echo "$p size: $(stat -c %s "$work/probe-$p") bytes stripped"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    PORT=$port "$work/probe-$p" >/dev/null 2>&1 &
    pid=$!
    sleep 1
    for _ in 1 2 3 4 5; do curl -s -m 2 "http://127.0.0.1:$port/api/status" >/dev/null || true; done
    (curl -s -m 3 "http://127.0.0.1:$port/api/events" >/dev/null || true) &
    sleep 3.5
    echo "$p memory: $(grep -E 'VmRSS|RssAnon|RssFile' /proc/$pid/status | tr -s ' \n' ' ')"
    kill $pid
done
