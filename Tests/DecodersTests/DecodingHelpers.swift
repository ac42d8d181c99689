import AudioCore
@testable import Decoders
import Foundation
import TestSupport
import Testing

/// Shared helpers for the decoder tests: whole-stream reads with a bounded loop, and error classification.
enum Decode {
    /// Upper bound on `read` calls in any loop, so a decoder that never ends fails instead of hanging.
    static let maxReads = 200_000

    /// Reads up to `limit` frames in calls of `chunkFrames`, returning integer samples (s16 widened to Int32).
    static func ints(_ decoder: any AudioDecoder, chunkFrames: Int = 1000, limit: Int = .max) throws -> [Int32] {
        let format = decoder.format
        var out: [Int32] = []
        try loop(decoder, chunkFrames: chunkFrames, limit: limit) { raw, frames in
            let count = frames * format.channels
            switch format.encoding {
            case .s16: out += (0..<count).map { Int32(raw.load(fromByteOffset: $0 * 2, as: Int16.self)) }
            case .s32: out += (0..<count).map { raw.load(fromByteOffset: $0 * 4, as: Int32.self) }
            case .f32: Issue.record("float stream read as integers")
            }
        }
        return out
    }

    /// Reads up to `limit` frames of an `.f32` stream.
    static func floats(_ decoder: any AudioDecoder, chunkFrames: Int = 1000, limit: Int = .max) throws -> [Float] {
        #expect(decoder.format.encoding == .f32)
        let channels = decoder.format.channels
        var out: [Float] = []
        try loop(decoder, chunkFrames: chunkFrames, limit: limit) { raw, frames in
            out += (0..<frames * channels).map { raw.load(fromByteOffset: $0 * 4, as: Float.self) }
        }
        return out
    }

    /// Reads up to `limit` frames of any encoding as floats (integers scaled to ±1), for formats compared as audio.
    static func samples(_ decoder: any AudioDecoder, chunkFrames: Int = 1000, limit: Int = .max) throws -> [Float] {
        let format = decoder.format
        var out: [Float] = []
        try loop(decoder, chunkFrames: chunkFrames, limit: limit) { raw, frames in
            let count = frames * format.channels
            switch format.encoding {
            case .s16: out += (0..<count).map { Float(raw.load(fromByteOffset: $0 * 2, as: Int16.self)) / 32768 }
            case .s32: out += (0..<count).map { Float(raw.load(fromByteOffset: $0 * 4, as: Int32.self)) / 2_147_483_648 }
            case .f32: out += (0..<count).map { raw.load(fromByteOffset: $0 * 4, as: Float.self) }
            }
        }
        return out
    }

    /// Total frames until `read` returns 0 (throws whatever the decoder throws; fails after `maxReads` calls).
    @discardableResult
    static func count(_ decoder: any AudioDecoder, chunkFrames: Int = 4096) throws -> Int {
        var total = 0
        try loop(decoder, chunkFrames: chunkFrames, limit: .max) { _, frames in total += frames }
        return total
    }

    private static func loop(
        _ decoder: any AudioDecoder, chunkFrames: Int, limit: Int,
        _ body: (UnsafeRawBufferPointer, Int) -> Void
    ) throws {
        let bytesPerFrame = decoder.format.bytesPerFrame
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkFrames * bytesPerFrame, alignment: 16)
        defer { buffer.deallocate() }
        var done = 0
        for _ in 0..<maxReads {
            let ask = min(chunkFrames, limit - done)
            if ask == 0 { return }
            let slice = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<ask * bytesPerFrame])
            let frames = try decoder.read(into: slice)
            if frames == 0 { return }
            #expect(frames <= ask)
            body(UnsafeRawBufferPointer(buffer), frames)
            done += frames
        }
        Issue.record("decoder did not end within \(maxReads) reads")
        throw DecoderError.corrupt(path: "", reason: "test gave up: no end of stream")
    }

    /// Opens `path` through the registry and reads it to the end; returns the error thrown at either step, or nil.
    static func failure(of path: String) -> DecoderError? {
        do {
            let decoder = try DecoderRegistry.open(path: path)
            try count(decoder, chunkFrames: 1500)
            return nil
        } catch let error as DecoderError {
            return error
        } catch {
            Issue.record("unexpected error type: \(error)")
            return nil
        }
    }
}

extension DecoderError {
    var kind: String {
        switch self {
        case .unreadable: "unreadable"
        case .unsupported: "unsupported"
        case .corrupt: "corrupt"
        case .seekFailed: "seekFailed"
        }
    }
}

/// Runs a command line tool and returns its standard output (for cross-checks against reference tools).
func runTool(_ path: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.reap()
    return String(decoding: data, as: UTF8.self)
}
