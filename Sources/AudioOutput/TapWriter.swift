/// Where a secondary output's bytes end up: a FIFO (`FIFOWriter`) or a command's stdin (`CommandWriter`).
///
/// Threads: the output's own tap thread only (never the audio output thread). Every method returns at once: writes
/// are non-blocking, (re)opening and restarting happen inside `service`.
public protocol TapWriter: AnyObject {
    /// Plain words for the log ("FIFO /run/fermata/snapfifo").
    var label: String { get }
    /// (Re)opens, reaps and restarts as needed; true when `write` can take data now.
    func service(nowNanoseconds: Int) -> Bool
    /// The descriptor to wait on for writability, or -1.
    var descriptor: Int32 { get }
    /// Writes without blocking; returns the bytes accepted (0 when the reader is slow), or nil when the reader is gone
    /// (the writer has closed its end and will reopen in `service`).
    func write(_ bytes: UnsafeRawBufferPointer) -> Int?
    /// Whether someone takes the data now (a FIFO reader that reads, a running command).
    var isReading: Bool { get }
    /// Closes for good (and stops a spawned command).
    func close()
}

/// The one-line log reports of a tap (state changes, drop summaries). Any thread.
public typealias TapLog = @Sendable (String) -> Void
