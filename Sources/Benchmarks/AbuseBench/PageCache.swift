import Glibc

/// The kernel's page cache, emptied for the cold-cache runs (needs root; the whole machine is affected).
enum PageCache {
    /// Writes dirty pages back, then drops the page cache, dentries and inodes. Returns why it could not, or nil.
    static func drop() -> String? {
        sync()
        let fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return "cannot open /proc/sys/vm/drop_caches: \(String(cString: strerror(errno)))" }
        defer { close(fd) }
        guard write(fd, "3", 1) == 1 else { return "writing /proc/sys/vm/drop_caches: \(String(cString: strerror(errno)))" }
        return nil
    }
}
