import CThreadShim

/// glibc's heap, as a long-running daemon on a small board wants it. glibc keeps freed memory for reuse; after a
/// burst of work (a large answer, a list of 16,384 `add`s, a library scan) that memory stays resident for good unless
/// returned (`trim`). And it gives each thread that allocates at once its own arena, up to 8 per core: the freed
/// heap of a burst ends up spread over a dozen arenas in partly used pages that no trim can return (`limitArenas`).
///
/// `trim` walks the heap (a few milliseconds): any thread but the audio thread and Swift's cooperative pool.
/// `limitArenas`: once, at the daemon's start.
public enum HeapTrim {
    /// Gives the free pages of every arena back to the kernel (`malloc_trim(0)`); true when memory was returned.
    @discardableResult
    public static func now() -> Bool { fermata_malloc_trim() != 0 }

    /// Caps the arenas at `count`, unless `MALLOC_ARENA_MAX` is set in the environment (the owner's setting wins).
    public static func limitArenas(to count: Int32) { _ = fermata_limit_malloc_arenas(count) }
}
