// libFuzzer entry point for the MPD protocol's parsers: the command-line tokenizer, the song filter parser (legacy
// pairs and 0.21 expressions) and the position-range parser. Built by fuzz-parsers.sh beside it (not by SwiftPM:
// Tests/Tools is no target), with MPDProtocol's and FermataCore's sources compiled as modules of their own.
//
// Besides crashes (traps, sanitizer reports, time-outs), it checks properties that must hold for every input:
// - a tokenized line, written back with every argument quoted (its raw bytes: `RawPath`), tokenizes to the same name
//   and arguments;
// - a parsed filter, written back as expression arguments, parses to the same filter;
// - a parsed range has 0 <= start <= end <= Int32.max + 1.
// A broken property stops the fuzzer with `fatalError` and the offending input is saved as a crash file.

import FermataCore
import MPDProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzParsers(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    FuzzTargets.tokenizer(bytes)
    let text = RawPath.text(bytes)  // as the tokenizer hands arguments to the parsers
    FuzzTargets.expression(text, foldCase: bytes.first.map { $0 & 1 == 1 } ?? false)
    FuzzTargets.range(text)
    return 0
}

/// The fuzzed entry points and their properties. Stateless; libFuzzer calls it from one thread.
enum FuzzTargets {
    static func tokenizer(_ bytes: [UInt8]) {
        guard let tokens = try? CommandLineTokenizer.tokenize(bytes) else { return }
        guard tokens.arguments.count <= CommandLineTokenizer.maxArguments else {
            fatalError("\(tokens.arguments.count) arguments, more than \(CommandLineTokenizer.maxArguments)")
        }
        var line = Array(tokens.name.utf8)
        for argument in tokens.arguments { line += [0x20] + quoted(RawPath.bytes(argument)) }
        let again: CommandLineTokenizer.Tokens?
        do { again = try CommandLineTokenizer.tokenize(line) } catch {
            fatalError("written back as \(String(decoding: line, as: UTF8.self).debugDescription): \(error.message)")
        }
        guard again == tokens else {
            fatalError("tokens \(tokens) written back as \(String(decoding: line, as: UTF8.self).debugDescription) "
                + "tokenize to \(String(describing: again))")
        }
        // The arguments as a filter, as find/search/count/list… take them.
        for foldCase in [false, true] {
            guard let filter = try? SongFilterParser.parse(tokens.arguments, foldCase: foldCase) else { continue }
            roundTrip(filter, foldCase: foldCase, from: tokens.arguments)
        }
    }

    static func expression(_ text: String, foldCase: Bool) {
        guard let filter = try? SongFilterParser.parseExpression(text, foldCase: foldCase) else { return }
        roundTrip(filter, foldCase: foldCase, from: [text])
    }

    static func range(_ text: String) {
        guard let range = try? ArgumentParser.range(text) else { return }
        let limit = Int(Int32.max) + 1
        guard range.start >= 0, range.start <= limit, (range.end ?? range.start) >= range.start,
              (range.end ?? 0) <= limit else {
            fatalError("\(text.debugDescription) parsed as \(range)")
        }
    }

    /// Writes `filter` back as expression arguments (one per part of a top-level AND) and parses them again.
    static func roundTrip(_ filter: SongFilter, foldCase: Bool, from source: [String]) {
        // A time stamp before 1970 (from an ISO date) has no written form the parser takes back.
        guard !hasNegativeTime(filter) else { return }
        let parts: [SongFilter]
        if case let .and(inner) = filter, !inner.isEmpty { parts = inner } else { parts = [filter] }
        let written = parts.map(write)
        let again: SongFilter
        do { again = try SongFilterParser.parse(written, foldCase: foldCase) } catch {
            fatalError("\(source) parsed as \(filter), written back as \(written), refused: \(error)")
        }
        guard again == filter else {
            fatalError("\(source) parsed as \(filter), written back as \(written), parsed as \(again)")
        }
    }

    static func hasNegativeTime(_ filter: SongFilter) -> Bool {
        switch filter {
        case let .and(parts): parts.contains(where: hasNegativeTime)
        case let .not(inner): hasNegativeTime(inner)
        case let .modifiedSince(time): time < 0
        case .string, .base: false
        }
    }

    /// The expression syntax of `filter`; a negated string test uses the short operators (`!=`, `!~`, …) so the
    /// written form nests no deeper than the parsed one.
    static func write(_ filter: SongFilter) -> String {
        switch filter {
        case let .and(parts): return "(" + parts.map(write).joined(separator: " AND ") + ")"
        case let .not(.string(subject, match)): return comparison(subject, match, negated: true)
        case let .not(inner): return "(!" + write(inner) + ")"
        case let .string(subject, match): return comparison(subject, match, negated: false)
        case let .base(directory): return "(base " + quotedText(directory) + ")"
        case let .modifiedSince(time): return "(modified-since '\(time)')"
        }
    }

    static func comparison(_ subject: FilterSubject, _ match: StringMatch, negated: Bool) -> String {
        let name = switch subject {
        case let .tag(tag): tag.rawValue
        case .anyTag: "any"
        case .uri: "file"
        }
        let op = switch match.op {
        case .equals: negated ? "!=" : "=="
        case .regex: negated ? "!~" : "=~"
        case .contains: negated ? "!contains" : "contains"
        case .startsWith: negated ? "!starts_with" : "starts_with"
        }
        return "(\(name) \(op) \(quotedText(match.value)))"
    }

    /// `"…"` with `"` and `\` escaped, as both the tokenizer and the filter parser read it.
    static func quoted(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        [0x22] + bytes.flatMap { $0 == 0x22 || $0 == 0x5C ? [0x5C, $0] : [$0] } + [0x22]
    }

    /// A filter value quoted: the parser reads the expression's UTF-8 (escapes of raw bytes stay as they are).
    static func quotedText(_ text: String) -> String { String(decoding: quoted(text.utf8), as: UTF8.self) }
}
