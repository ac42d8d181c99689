/// The control port's TCP address, `HOST:PORT` (`127.0.0.1:6600`, `0.0.0.0:6600`, `[::1]:6600`, `localhost:6600`):
/// parsed once where the configuration is read, so a value the listener could not use (`:16622`, `host:`, `host:0`)
/// is a configuration error naming the key (exit 78), not a failure at bind time.
///
/// A plain value.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT`; nil with `problem(text)` saying why.
    public init?(_ text: String) {
        guard Self.problem(text) == nil, let colon = text.lastIndex(of: ":"),
              let port = Int(text[text.index(after: colon)...]) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.init(host: host, port: port)
    }

    /// Why `text` is not a usable address, or nil.
    public static func problem(_ text: String) -> String? {
        let example = "(e.g. 127.0.0.1:6600, 0.0.0.0:6600 or [::1]:6600)"
        guard let colon = text.lastIndex(of: ":") else { return "must be HOST:PORT \(example)" }
        let host = text[..<colon], portText = text[text.index(after: colon)...]
        guard let port = Int(portText), (1...65535).contains(port) else {
            return "the port must be a number from 1 to 65535 \(example)"
        }
        guard !host.isEmpty, host != "[]" else { return "the host is missing \(example)" }
        let bracketed = host.hasPrefix("[") && host.hasSuffix("]")
        if host.contains(":") && !bracketed { return "an IPv6 host goes in brackets \(example)" }
        guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-_:[]".contains($0)) }) else {
            return "the host must be a name or an address \(example)"
        }
        return nil
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
