/// Handlers for cover pictures, answered in `binarylimit`-sized binary chunks: `albumart` and `readpicture`.
///
/// Stateless; run on the executing command's task.
enum CoverArtCommands {
    static func albumArt(_ c: inout CommandContext) async throws {
        guard let chunk = try await chunk(c, .directoryFile) else { throw MPDError.notFound("No file exists") }
        c.response.line("size", chunk.totalSize)
        c.response.binary(chunk.bytes)
    }

    /// Like MPD, a song without an embedded picture gets an empty answer rather than an error.
    static func readPicture(_ c: inout CommandContext) async throws {
        guard let chunk = try await chunk(c, .embedded) else { return }
        c.response.line("size", chunk.totalSize)
        if let mime = chunk.mimeType { c.response.line("type", mime) }
        c.response.binary(chunk.bytes)
    }

    static func chunk(_ c: CommandContext, _ source: CoverArtRequest.Source) async throws -> CoverArtChunk? {
        let uri = try c.uri(0, unsafe: .notFound("No file exists"))
        let request = CoverArtRequest(
            uri: uri, source: source, offset: try c.unsigned(1), maxLength: c.client.binaryLimit)
        guard var chunk = try await c.backend.coverArt(request) else { return nil }
        guard request.offset <= chunk.totalSize else { throw MPDError.badArgument("Bad file offset") }
        if chunk.bytes.count > request.maxLength { chunk.bytes.removeLast(chunk.bytes.count - request.maxLength) }
        return chunk
    }
}
