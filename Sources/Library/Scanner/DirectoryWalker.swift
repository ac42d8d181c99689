import Glibc

/// What the walk reports. Paths are relative to the root, '/'-separated raw bytes ("" is the root). Each walking
/// thread has its own visitor, called on that thread only.
protocol WalkVisitor: AnyObject {
    /// A directory was listed (its files follow).
    func enter(directory path: [UInt8])
    /// An audio file (by extension) with its size and modification time (nanoseconds), symlinks resolved.
    func file(_ path: [UInt8], size: Int64, modified: Int64)
    /// A directory that could not be listed: what is known under it should be kept.
    func unreadable(directory path: [UInt8], reason: String)
    /// Something in the tree that is skipped: a broken or escaping symlink, a loop, too deep a tree.
    func skipped(_ path: [UInt8], kind: ScanIssue.Kind, reason: String)
}

/// A directory file descriptor, closed when the last holder lets it go. Immutable; the walking threads share it.
final class OpenDirectory: Sendable {
    let fd: Int32

    init(fd: Int32) {
        self.fd = fd
    }

    deinit {
        close(fd)
    }
}

/// A directory waiting to be listed, with the directories above it (device and inode) for loop detection.
struct PendingDirectory: Sendable {
    /// A directory's device and inode: what makes two paths the same directory.
    struct Node: Equatable, Sendable {
        let device: UInt64
        let inode: UInt64
    }

    var path: [UInt8]
    var ancestors: [Node]
    var depth: Int
}

/// Lists a music directory one directory at a time, so several threads can share the tree (`WalkQueue`): `list`
/// reports a directory's audio files, one `fstatat` each and none for other files, and returns its subdirectories.
/// Symbolic links are followed safely: only when their real path is inside the root, and never into a directory
/// that is already on the current path (same device and inode), so loops end. Hidden entries (names starting with
/// '.') are skipped, as MPD does.
///
/// Immutable; shared by the walking threads.
struct DirectoryWalker: Sendable {
    /// Why the walk could not start.
    struct RootError: Error {
        let reason: String
    }

    let root: String
    /// Lower-case extensions (without the dot) of the files to report.
    let extensions: [[UInt8]]
    let maxDepth = 64
    private let rootBytes: [UInt8]
    private let rootReal: [UInt8]
    /// The root, held open for the walk: each directory is opened relative to it, so the kernel resolves only the
    /// path below the root (a no-change rescan opens every directory of the library).
    private let rootDirectory: OpenDirectory

    /// Checks that the root can be listed.
    init(root: String, extensions: [[UInt8]]) throws(RootError) {
        self.root = root
        self.extensions = extensions
        rootBytes = Array(root.utf8)
        guard let real = realpath(root, nil) else { throw RootError(reason: Self.errnoText()) }
        rootReal = Array(String(cString: real).utf8)
        free(real)
        guard let dir = opendir(root) else { throw RootError(reason: Self.errnoText()) }
        closedir(dir)
        let fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw RootError(reason: Self.errnoText()) }
        rootDirectory = OpenDirectory(fd: fd)
    }

    /// The walk's starting point: the root, or for a scan of part of the library (MPD's `update DIR`) the deepest
    /// directory at or above `scope` that exists, is a directory and lies inside the root (a file's folder; the
    /// nearest surviving parent of a folder that was deleted, so what was under it is found gone).
    func start(at scope: [UInt8]) -> PendingDirectory {
        var path = scope
        while !path.isEmpty {
            var info = stat()
            if stat(cString(path), &info) == 0, info.st_mode & S_IFMT == S_IFDIR, isInsideRoot(path) { break }
            path = Array(PathText.directory(of: path))
        }
        return PendingDirectory(path: path, ancestors: [],
                                depth: path.isEmpty ? 0 : path.count { $0 == UInt8(ascii: "/") } + 1)
    }

    /// Lists one directory and returns the subdirectories to list next.
    func list(_ directory: PendingDirectory, visitor: some WalkVisitor) -> [PendingDirectory] {
        let fd = relativeCString(directory.path).withUnsafeBufferPointer {
            openat(rootDirectory.fd, $0.baseAddress!, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        var info = stat()
        guard fd >= 0, fstat(fd, &info) == 0 else {
            let reason = Self.errnoText()
            if fd >= 0 { close(fd) }
            visitor.unreadable(directory: directory.path, reason: reason)
            return []
        }
        let node = PendingDirectory.Node(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        guard !directory.ancestors.contains(node) else {
            close(fd)
            visitor.skipped(directory.path, kind: .symlinkLoop, reason: "leads back to a directory that contains it")
            return []
        }
        guard let dir = fdopendir(fd) else {
            close(fd)
            visitor.unreadable(directory: directory.path, reason: Self.errnoText())
            return []
        }
        defer { closedir(dir) }
        visitor.enter(directory: directory.path)
        var listing = DirectoryEntries()
        if let failure = listing.read(dir) { visitor.unreadable(directory: directory.path, reason: failure) }
        var children: [PendingDirectory] = []
        var path = directory.path
        listing.forEach { name, type in
            let base = path.count
            if base > 0 { path.append(UInt8(ascii: "/")) }
            path.append(contentsOf: UnsafeBufferPointer(rebasing: name.dropLast()))
            defer { path.removeSubrange(base...) }
            guard isDirectory(name, type: type, parent: dirfd(dir), path: path, visitor: visitor) else { return }
            guard directory.depth + 1 < maxDepth else {
                visitor.skipped(path, kind: .tooDeep, reason: "more than \(maxDepth) directory levels")
                return
            }
            children.append(PendingDirectory(path: path, ancestors: directory.ancestors + [node],
                                             depth: directory.depth + 1))
        }
        return children
    }

    /// Handles one entry (`name` NUL-terminated): reports it when it is an audio file; true when it is a directory
    /// to walk (a real one, or a symbolic link to one inside the root).
    private func isDirectory(
        _ name: UnsafeBufferPointer<UInt8>, type: UInt8, parent: Int32, path: [UInt8], visitor: some WalkVisitor
    ) -> Bool {
        var info = stat()
        var type = Int32(type)
        let cName = UnsafeRawPointer(name.baseAddress!).assumingMemoryBound(to: CChar.self)
        if type == DT_UNKNOWN {
            guard fstatat(parent, cName, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return false }
            type = Self.direntType(info.st_mode)
        }
        switch type {
        case Int32(DT_DIR):
            return true
        case Int32(DT_REG):
            if hasAudioExtension(name), fstatat(parent, cName, &info, AT_SYMLINK_NOFOLLOW) == 0 {
                visitor.file(path, size: Int64(info.st_size), modified: Self.nanoseconds(info.st_mtim))
            }
            return false
        case Int32(DT_LNK):
            guard fstatat(parent, cName, &info, 0) == 0 else {
                if hasAudioExtension(name) || errno == ELOOP {
                    visitor.skipped(path, kind: .brokenSymlink, reason: "symbolic link: \(Self.errnoText())")
                }
                return false
            }
            let isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
            guard isDirectory || ((info.st_mode & S_IFMT) == S_IFREG && hasAudioExtension(name)) else { return false }
            guard isInsideRoot(path) else {
                visitor.skipped(path, kind: .outsideRoot, reason: "symbolic link to outside the music directory")
                return false
            }
            if !isDirectory {
                visitor.file(path, size: Int64(info.st_size), modified: Self.nanoseconds(info.st_mtim))
            }
            return isDirectory
        default:
            return false
        }
    }

    /// The NUL-terminated absolute path of `relative`.
    private func cString(_ relative: [UInt8]) -> [CChar] {
        var bytes = rootBytes
        if !relative.isEmpty { bytes += [UInt8(ascii: "/")] + relative }
        bytes.append(0)
        return bytes.map { CChar(bitPattern: $0) }
    }

    /// The NUL-terminated path of `relative` from the root ("." for the root itself).
    private func relativeCString(_ relative: [UInt8]) -> [CChar] {
        guard !relative.isEmpty else { return [CChar(bitPattern: UInt8(ascii: ".")), 0] }
        return [CChar](unsafeUninitializedCapacity: relative.count + 1) { buffer, count in
            for (offset, byte) in relative.enumerated() { buffer[offset] = CChar(bitPattern: byte) }
            buffer[relative.count] = 0
            count = relative.count + 1
        }
    }

    /// Whether the real location of `relative` is the root or below it.
    private func isInsideRoot(_ relative: [UInt8]) -> Bool {
        guard let real = realpath(cString(relative), nil) else { return false }
        defer { free(real) }
        let resolved = UnsafeBufferPointer(start: UnsafeRawPointer(real).assumingMemoryBound(to: UInt8.self),
                                           count: strlen(real))
        if rootReal == [UInt8(ascii: "/")] { return true }
        return resolved.starts(with: rootReal)
            && (resolved.count == rootReal.count || resolved[rootReal.count] == UInt8(ascii: "/"))
    }

    /// Whether the NUL-terminated `name` ends in one of `extensions` (ASCII case-insensitive).
    private func hasAudioExtension(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        let end = name.count - 1
        guard let dot = name[..<end].lastIndex(of: UInt8(ascii: ".")) else { return false }
        let length = end - dot - 1
        return extensions.contains { ext in
            ext.count == length && ext.indices.allSatisfy { ext[$0] == Self.lower(name[dot + 1 + $0]) }
        }
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }

    private static func direntType(_ mode: mode_t) -> Int32 {
        switch mode & S_IFMT {
        case S_IFDIR: Int32(DT_DIR)
        case S_IFREG: Int32(DT_REG)
        case S_IFLNK: Int32(DT_LNK)
        default: Int32(DT_UNKNOWN)
        }
    }

    static func nanoseconds(_ time: timespec) -> Int64 {
        Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    static func errnoText(_ code: Int32 = errno) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }
}
