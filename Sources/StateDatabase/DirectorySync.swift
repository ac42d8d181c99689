import Glibc

/// Makes a file's creation or rename in its directory durable (`fsync` of the directory), so a power cut cannot lose
/// the name even though the file's own data was synced. Best effort: a directory that cannot be opened is left alone.
/// Any thread.
public func syncDirectory(containing file: String) {
    let slash = file.lastIndex(of: "/")
    let directory = slash.map { $0 == file.startIndex ? "/" : String(file[..<$0]) } ?? "."
    let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if fd >= 0 {
        fsync(fd)
        close(fd)
    }
}
