import Decoders
import Glibc

/// What reading one new or changed file gave.
struct ReadOutcome: Sendable {
    /// Indexed (with any repairs noted) or rejected.
    enum Result: Sendable {
        /// Tags, fingerprint and cover hash, and the issues it was indexed with anyway (a repaired name or tags).
        case track(ScannedFile, warnings: [ScanIssue.Kind])
        /// Not indexed, for this reason.
        case rejected(ScanIssue.Kind, reason: String)
    }

    var job: ScanJob
    var result: Result
    /// Whether the file was opened (0-byte files are judged without opening them).
    var opened: Bool
    /// The path as stored (`PathText.display`), and the raw bytes when they are not UTF-8.
    var path: String
    var rawPath: [UInt8]?

    init(job: ScanJob, result: Result, opened: Bool) {
        self.job = job
        self.result = result
        self.opened = opened
        if let text = PathText.valid(job.path) {
            path = text
        } else {
            path = PathText.display(job.path)
            rawPath = job.path
        }
    }
}

/// Reads one file's tags, audio fingerprint and cover-art hash for the scan (through the calling thread's own
/// `ScanReader`), and turns every failure into a `ScanIssue.Kind` with a reason (never a crash).
///
/// Stateless; called concurrently from the scan's tag-reading threads, each with its own reader.
enum TrackFileReader {
    static func read(_ job: ScanJob, root: String, with reader: ScanReader) -> ReadOutcome {
        guard job.size > 0 else {
            return ReadOutcome(job: job, result: .rejected(.empty, reason: "0-byte file"), opened: false)
        }
        var warnings: [ScanIssue.Kind] = []
        let path: String
        var rawFD: Int32 = -1
        if let text = PathText.valid(job.path) {
            path = root + "/" + text
        } else {
            // Not UTF-8: open the real bytes and hand the decoders /proc/self/fd/N, which names the same file.
            warnings.append(.invalidName)
            let bytes = Array(root.utf8) + [UInt8(ascii: "/")] + job.path + [0]
            rawFD = bytes.withUnsafeBufferPointer { buffer in
                buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    open($0, O_RDONLY | O_CLOEXEC)
                }
            }
            guard rawFD >= 0 else { return failure(job, errno: errno) }
            path = "/proc/self/fd/\(rawFD)"
        }
        defer { if rawFD >= 0 { close(rawFD) } }
        do throws(DecoderError) {
            let file = try reader.read(path: path, size: job.size)
            if hasRepairedText(file.tags) { warnings.append(.invalidTagText) }
            return ReadOutcome(job: job, result: .track(file, warnings: warnings), opened: true)
        } catch {
            return ReadOutcome(job: job, result: rejection(error, job: job, root: root), opened: true)
        }
    }

    private static func rejection(_ error: DecoderError, job: ScanJob, root: String) -> ReadOutcome.Result {
        switch error {
        case let .unreadable(_, reason):
            if !exists(job.path, root: root) { return .rejected(.vanished, reason: "removed during the scan") }
            return .rejected(.unreadable, reason: reason)
        case let .unsupported(_, reason):
            return .rejected(.unsupported, reason: reason)
        case let .corrupt(_, reason), let .seekFailed(_, reason):
            if !exists(job.path, root: root) { return .rejected(.vanished, reason: "removed during the scan") }
            return .rejected(reason == "empty file" ? .empty : .corrupt, reason: reason)
        }
    }

    private static func failure(_ job: ScanJob, errno code: Int32) -> ReadOutcome {
        let kind: ScanIssue.Kind = code == ENOENT ? .vanished : .unreadable
        let reason = code == ENOENT ? "removed during the scan" : DirectoryWalker.errnoText(code)
        return ReadOutcome(job: job, result: .rejected(kind, reason: reason), opened: true)
    }

    private static func exists(_ path: [UInt8], root: String) -> Bool {
        let bytes = Array(root.utf8) + [UInt8(ascii: "/")] + path + [0]
        var info = stat()
        return bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { stat($0, &info) == 0 }
        }
    }

    /// Whether any tag text holds U+FFFD, which `TagReader` puts in place of bytes that are not UTF-8.
    private static func hasRepairedText(_ tags: TrackTags) -> Bool {
        [tags.title, tags.artist, tags.albumArtist, tags.album, tags.date, tags.genre, tags.composer]
            .contains { $0?.unicodeScalars.contains("\u{FFFD}") ?? false }
    }
}
