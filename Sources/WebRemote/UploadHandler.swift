import FermataCore
import Foundation
import Glibc
import Hummingbird
import NIOCore

/// `PUT /api/upload/{name}`: one audio file from the phone into the library's upload folder (`incoming` in the music
/// directory), then a scan of that folder. Only when the music directory is writable by fermatad; the name is a plain
/// file name (no folder, no `..`, no leading dot, no control character: nothing can land outside the folder); at most
/// the configured size (a `Content-Length` over it is refused before a byte is read, a body that grows past it is cut
/// off); the content must be a format Fermata plays (recognised as the decoders recognise files, by content). The body goes
/// to a hidden temporary file created exclusively (never following a link), is synced, and is linked to its name only
/// when whole — an existing file is never replaced — so a half-sent file never shows in the library.
///
/// A value; `upload` runs on the request's task, its file work on `BlockingWork`.
struct UploadHandler: Sendable {
    let api: WebAPI

    func upload(_ request: Request, _ context: WebContext) async throws -> Response {
        guard let uploads = api.backend.uploads else {
            throw WebFailure(.serviceUnavailable, "uploads are off: the music folder is not writable by fermatad")
        }
        let name = try Self.checkedName(context.parameters.get("name") ?? "")
        if let length = request.headers[.contentLength].flatMap({ Int64($0) }), length > uploads.maxBytes {
            throw WebFailure(.contentTooLarge, "the file is larger than \(uploads.maxBytes >> 20) MiB")
        }
        let folder = uploads.musicDirectory + "/" + uploads.folder
        let final = folder + "/" + name
        let temporary = folder + "/.upload-" + WebAccess.randomHex(bytes: 8) + ".part"
        let fd = try await BlockingWork.run { () throws -> Int32 in
            if mkdir(folder, 0o755) != 0 && errno != EEXIST { throw Self.system("cannot make \(uploads.folder)") }
            if access(final, F_OK) == 0 { throw WebFailure.refused("\(name) is already in \(uploads.folder)") }
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw Self.system("cannot write into \(uploads.folder)") }
            return fd
        }
        // The temporary name goes in every case: on success the file stays under its own name (a second link).
        defer { _ = unlink(temporary) }
        let file = OpenFile(fd)
        defer { file.close() }
        var written: Int64 = 0
        for try await buffer in request.body {
            written += Int64(buffer.readableBytes)
            guard written <= uploads.maxBytes else {
                throw WebFailure(.contentTooLarge, "the file is larger than \(uploads.maxBytes >> 20) MiB")
            }
            let bytes = Array(buffer.readableBytesView)
            try await BlockingWork.run { () throws in
                var offset = 0
                while offset < bytes.count {
                    let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, bytes.count - offset) }
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0 else { throw Self.system("cannot write \(name)") }
                    offset += n
                }
            }
        }
        let backend = api.backend
        let format = written > 0 ? await BlockingWork.run { backend.playableFormat(ofFile: temporary) } : nil
        guard format != nil else {
            throw WebFailure(.unsupportedMediaType,
                             "\(name) is not audio Fermata plays (FLAC, MP3, AAC/ALAC, Opus, Ogg Vorbis, WAV)")
        }
        try await BlockingWork.run { () throws in
            guard fsync(fd) == 0 else { throw Self.system("cannot sync \(name)") }
            // link, not rename: a file of that name made meanwhile is kept, not replaced.
            guard link(temporary, final) == 0 else {
                throw errno == EEXIST ? WebFailure.refused("\(name) is already in \(uploads.folder)")
                    : Self.system("cannot store \(name)")
            }
            let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if directory >= 0 {
                _ = fsync(directory)
                _ = Glibc.close(directory)
            }
        }
        let relative = uploads.folder + "/" + name
        _ = try? await api.mpd.update(uploads.folder, rescan: false)
        return api.json(WebJSON.Uploaded(file: relative), status: .created)
    }

    /// A plain file name: 1-255 bytes, no `/`, no control character, not `.`/`..`, not hidden.
    static func checkedName(_ name: String) throws -> String {
        guard !name.isEmpty, name.utf8.count <= 255, !name.hasPrefix("."), !name.contains("/"),
              !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == "\u{7f}" }) else {
            throw WebFailure.bad("a file name is 1 to 255 bytes, with no / or control characters, not starting with a dot")
        }
        return name
    }

    static func system(_ what: String) -> WebFailure {
        WebFailure(.internalServerError, "\(what): \(String(cString: strerror(errno)))")
    }
}

/// A file descriptor closed once, whichever way the upload ends.
private final class OpenFile: @unchecked Sendable {
    // @unchecked: the upload's one task uses it, in order; `close` is idempotent.
    private var fd: Int32

    init(_ fd: Int32) { self.fd = fd }

    func close() {
        guard fd >= 0 else { return }
        _ = Glibc.close(fd)
        fd = -1
    }
}
