/// A value in the configuration file.
public enum ConfigValue: Sendable, Equatable, CustomStringConvertible {
    case string(String)
    case integer(Int)
    case float(Double)
    case boolean(Bool)
    case strings([String])

    public var description: String {
        switch self {
        case let .string(s): "\"\(s)\""
        case let .integer(i): "\(i)"
        case let .float(f): "\(f)"
        case let .boolean(b): "\(b)"
        case let .strings(a): "[" + a.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
        }
    }
}

/// One `key = value` of the file, with where it was written.
public struct ConfigEntry: Sendable, Equatable {
    public var section: String
    public var key: String
    public var value: ConfigValue
    public var line: Int
    public var qualifiedKey: String { section.isEmpty ? key : "\(section).\(key)" }

    /// Whether the section belongs to the physical controls: `board`, `controls`, `button-*`, `encoder-*`,
    /// `chord-*`, `input-*` (a board profile's sections, which the user's configuration may override key by key).
    public static func isControlsSection(_ section: String) -> Bool {
        section == "board" || section == "controls"
            || ["button", "encoder", "chord", "input"].contains {
                section.hasPrefix($0 + "-") || section.hasPrefix($0 + ".")
            }
    }

    public var isControlsEntry: Bool { Self.isControlsSection(section) }
}

/// An error in a configuration file or a board profile (the same format, read by the same parser), always with the
/// file, the line and (when known) the key.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var key: String?
    public var message: String

    public init(file: String, line: Int, key: String?, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    /// `FILE:LINE: key: message`; `FILE: message` for the file as a whole (line 0).
    public var description: String {
        (line > 0 ? "\(file):\(line): " : "\(file): ") + (key.map { "\($0): " } ?? "") + message
    }
}

/// Parses the TOML subset Fermata's configuration uses: `[section]` headers, `key = value` with basic and literal
/// strings, integers, floats, booleans and one-line arrays of strings, and `#` comments.
///
/// Written by hand rather than through a TOML library because every error must name its line and key (TOMLKit
/// reports positions only for syntax errors, and brings a C++ build to the board). Pure; any thread.
public enum ConfigFile {
    public static func parse(_ text: String, file: String) throws(ConfigError) -> [ConfigEntry] {
        var entries: [ConfigEntry] = []
        var section = ""
        var seen: Set<String> = []
        var sections: Set<String> = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = index + 1
            var scanner = Scanner(Array(raw.utf8), file: file, line: line)
            scanner.skipSpaces()
            if scanner.atEndOrComment { continue }
            if scanner.peek == UInt8(ascii: "[") {
                section = try scanner.sectionHeader()
                // TOML defines a table once; a second `[audio]` further down was read as more of the first.
                guard sections.insert(section).inserted else {
                    throw ConfigError(file: file, line: line, key: nil, message: "[\(section)] is defined twice")
                }
                continue
            }
            let key = try scanner.bareKey()
            let qualified = section.isEmpty ? key : "\(section).\(key)"
            guard seen.insert(qualified).inserted else {
                throw ConfigError(file: file, line: line, key: qualified, message: "set twice")
            }
            scanner.skipSpaces()
            guard scanner.take(UInt8(ascii: "=")) else {
                throw ConfigError(file: file, line: line, key: qualified, message: "expected '=' after the key")
            }
            scanner.skipSpaces()
            let value = try scanner.value(key: qualified)
            scanner.skipSpaces()
            guard scanner.atEndOrComment else {
                throw ConfigError(file: file, line: line, key: qualified, message: "unexpected text after the value")
            }
            entries.append(ConfigEntry(section: section, key: key, value: value, line: line))
        }
        return entries
    }
}

/// A cursor over one line of the configuration file.
private struct Scanner {
    let bytes: [UInt8]
    let file: String
    let line: Int
    var index = 0

    init(_ bytes: [UInt8], file: String, line: Int) {
        self.bytes = bytes.last == UInt8(ascii: "\r") ? Array(bytes.dropLast()) : bytes
        self.file = file
        self.line = line
    }

    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }
    var atEndOrComment: Bool { peek == nil || peek == UInt8(ascii: "#") }

    mutating func skipSpaces() { while peek == 0x20 || peek == 0x09 { index += 1 } }

    mutating func take(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        index += 1
        return true
    }

    func fail(_ message: String, key: String? = nil) -> ConfigError {
        ConfigError(file: file, line: line, key: key, message: message)
    }

    static func isKeyByte(_ b: UInt8) -> Bool {
        (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) || b == 0x5F || b == 0x2D
    }

    mutating func bareKey() throws(ConfigError) -> String {
        let start = index
        while let b = peek, Self.isKeyByte(b) { index += 1 }
        guard index > start else { throw fail("expected a key (letters, digits, '_' or '-')") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    mutating func sectionHeader() throws(ConfigError) -> String {
        index += 1
        skipSpaces()
        let name = try bareKey()
        skipSpaces()
        guard take(UInt8(ascii: "]")) else { throw fail("expected ']' after the section name") }
        skipSpaces()
        guard atEndOrComment else { throw fail("unexpected text after [\(name)]") }
        return name
    }

    mutating func value(key: String) throws(ConfigError) -> ConfigValue {
        switch peek {
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            return .string(try string(key: key))
        case UInt8(ascii: "["):
            index += 1
            var items: [String] = []
            skipSpaces()
            while !take(UInt8(ascii: "]")) {
                guard peek == UInt8(ascii: "\"") || peek == UInt8(ascii: "'") else {
                    throw fail("arrays hold quoted strings only, on one line", key: key)
                }
                items.append(try string(key: key))
                skipSpaces()
                if !take(UInt8(ascii: ",")) && peek != UInt8(ascii: "]") {
                    throw fail("expected ',' or ']' in the array", key: key)
                }
                skipSpaces()
            }
            return .strings(items)
        default:
            let start = index
            while let b = peek, b != 0x20, b != 0x09, b != UInt8(ascii: "#") { index += 1 }
            let word = String(decoding: bytes[start..<index], as: UTF8.self)
            if word == "true" { return .boolean(true) }
            if word == "false" { return .boolean(false) }
            let digits = word.replacingUnderscores()
            if let integer = Int(digits) { return .integer(integer) }
            if let float = Double(digits), digits.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
                return .float(float)
            }
            // TOML's special floats: read, then refused by the key's range ("must be between …").
            switch digits {
            case "nan", "+nan", "-nan": return .float(.nan)
            case "inf", "+inf": return .float(.infinity)
            case "-inf": return .float(-.infinity)
            default: break
            }
            let unsigned = digits.first == "+" || digits.first == "-" ? digits.dropFirst() : Substring(digits)
            if !unsigned.isEmpty, unsigned.allSatisfy({ $0.isASCII && $0.isNumber }) {
                throw fail("the number \(word) is too large", key: key)
            }
            throw fail(word.isEmpty ? "missing value" : "cannot read value '\(word)' (strings need quotes)", key: key)
        }
    }

    mutating func string(key: String) throws(ConfigError) -> String {
        let quote = bytes[index]
        index += 1
        var out: [UInt8] = []
        while let b = peek {
            index += 1
            if b == quote { return String(decoding: out, as: UTF8.self) }
            if b == UInt8(ascii: "\\") && quote == UInt8(ascii: "\"") {
                guard let e = peek else { break }
                index += 1
                switch e {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "\\"), UInt8(ascii: "\""): out.append(e)
                default: throw fail("unknown escape '\\\(Character(Unicode.Scalar(e)))'", key: key)
                }
            } else {
                out.append(b)
            }
        }
        throw fail("unterminated string", key: key)
    }
}

extension String {
    fileprivate func replacingUnderscores() -> String { String(filter { $0 != "_" }) }
}
