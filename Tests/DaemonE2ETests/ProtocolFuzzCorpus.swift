import MPDProtocol
import TestSupport

/// One protocol line as bytes (without its newline), with a printable form for reports.
///
/// An immutable value.
struct FuzzLine: Sendable, Hashable, CustomStringConvertible {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }
    init(_ text: String) { bytes = Array(text.utf8) }

    /// The command name as the server's tokenizer sees it (up to the first space), for the edit accounting.
    var name: String {
        String(decoding: bytes.prefix { $0 != 0x20 && $0 != 0x09 }, as: UTF8.self)
    }

    /// Whether the server may drop the connection because of this line itself, by MPD's rules: a line over the
    /// server's 8 KiB limit, an empty line, a command name that does not start with a lower-case letter or holds
    /// a byte other than letters, digits and `_`, or `close`.
    var mayCloseConnection: Bool {
        guard bytes.count <= ProtocolFuzzCorpus.maxLineLength, let first = bytes.first else { return true }
        guard first >= 0x61 && first <= 0x7A else { return true }
        for byte in bytes.prefix(while: { $0 != 0x20 && !(0x09...0x0D).contains($0) }) {
            let letter = (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A
            guard letter || (0x30...0x39).contains(byte) || byte == 0x5F else { return true }
        }
        return name == "close"
    }

    /// Printable ASCII as is, other bytes as `\xNN`; long lines are cut (with their length).
    var description: String {
        var text = ""
        for byte in bytes.prefix(160) {
            if byte >= 0x20 && byte < 0x7F && byte != 0x5C {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                text += byte == 0x5C ? "\\\\" : "\\x" + String(byte, radix: 16, uppercase: true).leftPadded(2)
            }
        }
        return bytes.count > 160 ? text + "…(\(bytes.count) bytes)" : text
    }
}

/// What the fuzz client sends at once: one line, or a command list (`command_list_begin`/`command_list_ok_begin`
/// … `command_list_end`) answered as a whole.
///
/// An immutable value.
enum FuzzUnit: Sendable, Hashable, CustomStringConvertible {
    case line(FuzzLine)
    case list(ok: Bool, [FuzzLine])

    var lines: [FuzzLine] {
        switch self {
        case let .line(line): [line]
        case let .list(_, lines): lines
        }
    }

    /// The bytes on the wire, newlines included.
    var wire: [UInt8] {
        switch self {
        case let .line(line): return line.bytes + [0x0A]
        case let .list(ok, lines):
            var bytes = Array((ok ? "command_list_ok_begin\n" : "command_list_begin\n").utf8)
            for line in lines { bytes += line.bytes + [0x0A] }
            return bytes + Array("command_list_end\n".utf8)
        }
    }

    /// Whether the server may close the connection while answering this unit, for a reason of the unit's own (see
    /// `FuzzLine.mayCloseConnection`; in a list also `idle`/`noidle`, which MPD refuses there by closing).
    var mayCloseConnection: Bool {
        switch self {
        case let .line(line): return line.mayCloseConnection
        case let .list(_, lines):
            return lines.contains { $0.mayCloseConnection || $0.name == "idle" || $0.name == "noidle" }
        }
    }

    var description: String {
        switch self {
        case let .line(line): return line.description
        case let .list(ok, lines):
            let head = ok ? "command_list_ok_begin" : "command_list_begin"
            if lines.count > 6, Set(lines).count == 1 { return "\(head) \(lines.count) × \(lines[0]) command_list_end" }
            return "\(head) [" + lines.map(\.description).joined(separator: " | ") + "] command_list_end"
        }
    }
}

/// A group of units sent on one connection, after which the daemon's health, queue and database are checked.
///
/// An immutable value.
struct FuzzBatch: Sendable {
    var label: String
    var units: [FuzzUnit]
}

/// The generated protocol-fuzz corpus: for every command of `CommandTable` (but `kill`), lines with 0–3 arguments
/// drawn from hostile classes (NaN, infinities, 1e308, ±Int64.max, −1, 0, empty, 10 kB, invalid UTF-8, NUL,
/// unbalanced quotes, reversed and open ranges, broken filters…) mixed with plausible values that get a command past
/// its first check; command lists of such lines; malformed protocol lines; the lines that crashed fermatad (issue 13)
/// verbatim; and two oversized command lists (200 × `listallinfo`, 10,000 × `playlistinfo`).
///
/// Pure: the same seed gives the same corpus. Callable from any thread.
enum ProtocolFuzzCorpus {
    static let seed: UInt64 = 0xF3A7_A7A0_0013_0013
    /// fermatad's line limit (`MPDServerConfiguration.maxLineLength`): a longer line drops the client.
    static let maxLineLength = 8_192
    /// Commands never sent: `kill` would end the daemon on purpose (fermatad has none; the filter keeps it so).
    static let excluded: Set<String> = ["kill"]

    /// Commands sent only this many times with hostile values (and never in lists): a refused `password` is answered
    /// after a delay that doubles with each refusal from the same address, up to 5 s (fermatad's brute-force
    /// throttle), so a full share of refused passwords would take minutes.
    static let rations = ["password": 4]

    /// Lines that crashed fermatad before issue 13; each must be in the corpus verbatim.
    static let knownCrashLines = [
        "seekcur 1e300", "seek 0 1e308", "seekid 1 1e300", "seekcur +1e300", "loop_set 0 1e300",
        "loop_set 1e300 1e301", "tempo +9223372036854775807", "count_in 4 nan", "count_in 4 0",
    ]
    static let listAllInfoCount = 200
    static let playlistInfoCount = 10_000

    /// The commands fuzzed: the command table's names, `kill` excluded.
    static var commandNames: [String] { CommandTable.commands.map(\.name).filter { !excluded.contains($0) } }

    /// The batches, in sending order: the known crash lines first (while the daemon plays), then the generated
    /// lines and lists, then the protocol-level oddities. The two oversized lists are `oversizedLists`.
    static func batches(seed: UInt64 = seed, linesPerBatch: Int = 48) -> [FuzzBatch] {
        var random = SplitMix64(seed: seed)
        var units: [FuzzUnit] = []
        for name in commandNames {
            let template = (validArguments[name] ?? []).map(token)
            units.append(.line(line(name, template)))
            // Each hostile class twice per command, in place of one argument of a valid line (rotating), so the
            // value gets past the checks of the arguments before it; every fourth line a second argument too.
            // A command without arguments gets the value as an extra one (the argument-count check).
            let rationed = rations[name] ?? Int.max
            let classes = HostileArgument.classes + HostileArgument.classes  // twice: other values, other positions
            for (index, hostile) in classes.enumerated() where index < rationed {
                var arguments = template
                if arguments.isEmpty {
                    arguments = [hostile.values.pick(&random)]
                } else {
                    arguments[index % arguments.count] = hostile.values.pick(&random)
                    if index % 4 == 3 && arguments.count > 1 {
                        arguments[(index + 1) % arguments.count] = HostileArgument.classes
                            .pick(&random).values.pick(&random)
                    }
                }
                units.append(.line(line(name, arguments)))
            }
            // And free draws: 0–3 arguments, each hostile or plausible.
            for _ in 0..<(rationed == Int.max ? 8 : 0) {
                let arguments = (0..<random.next(in: 0...3)).map { _ in anyArgument(&random) }
                units.append(.line(line(name, arguments)))
            }
        }
        units.shuffleInPlace(&random)
        // Command lists made of lines of the corpus (a list that fails stops at its first error).
        var lists: [FuzzUnit] = []
        let listable = units.filter { rations[$0.lines[0].name] == nil }
        for index in 0..<(units.count / 12) {
            let lines = (0..<random.next(in: 2...8)).map { _ in
                listable.pick(&random).lines[0]
            }
            lists.append(.list(ok: index % 2 == 0, lines))
        }
        var batches: [FuzzBatch] = [
            FuzzBatch(label: "known crash lines", units: knownCrashLines.map { .line(FuzzLine($0)) }),
        ]
        var listIterator = lists.makeIterator()
        var start = 0
        while start < units.count {
            var chunk = Array(units[start..<min(start + linesPerBatch, units.count)])
            for _ in 0..<4 { if let list = listIterator.next() { chunk.insert(list, at: chunk.count / 2) } }
            batches.append(FuzzBatch(label: "generated batch \(batches.count)", units: chunk))
            start += linesPerBatch
        }
        batches.append(FuzzBatch(label: "malformed protocol lines", units: malformedLines.map { .line($0) } + [
            .list(ok: true, [FuzzLine("status"), FuzzLine("command_list_begin"), FuzzLine("status")]),
            .list(ok: false, [FuzzLine("idle")]),
            .list(ok: true, []),
            .list(ok: false, knownCrashLines.map(FuzzLine.init)),
        ]))
        return batches
    }

    /// The two oversized command lists (each its own batch, with the daemon's memory read around them).
    static var oversizedLists: [FuzzBatch] {
        [
            FuzzBatch(label: "\(listAllInfoCount) × listallinfo",
                      units: [.list(ok: false, Array(repeating: FuzzLine("listallinfo"), count: listAllInfoCount))]),
            FuzzBatch(label: "\(playlistInfoCount) × playlistinfo",
                      units: [.list(ok: false, Array(repeating: FuzzLine("playlistinfo"),
                                                     count: playlistInfoCount))]),
        ]
    }

    /// Protocol-level oddities: names MPD refuses (and then closes), list markers out of place, stray bytes.
    static let malformedLines: [FuzzLine] = [
        FuzzLine("command_list_end"), FuzzLine("noidle"), FuzzLine("status "), FuzzLine("status\r"),
        FuzzLine("status\t\t"), FuzzLine("stats \"\""), FuzzLine("ping \"\\"), FuzzLine("ping \"a\"b"),
        FuzzLine([0x70, 0x69, 0x6E, 0x67, 0x20, 0x00]), FuzzLine([0x70, 0x69, 0x6E, 0x67, 0x20, 0xFF, 0xFE]),
        FuzzLine("nosuchcommand 1 2 3"), FuzzLine("p"), FuzzLine(String(repeating: "a", count: 8_000)),
        FuzzLine("ping " + String(repeating: "x ", count: 200)),
        FuzzLine("STATUS"), FuzzLine("Status"), FuzzLine("1status"), FuzzLine("_status"), FuzzLine("st@tus"),
        FuzzLine([0x73, 0x74, 0x61, 0x74, 0x75, 0x73, 0x00]), FuzzLine([0xFF, 0x73]), FuzzLine("\"status\""),
        FuzzLine(" status"), FuzzLine(""), FuzzLine("status " + String(repeating: "9", count: 9_000)),
    ]

    // MARK: building lines

    static func line(_ name: String, _ arguments: [[UInt8]]) -> FuzzLine {
        FuzzLine(arguments.reduce(Array(name.utf8)) { $0 + [0x20] + $1 })
    }

    /// An argument as it appears on the line: bare when the tokenizer takes it so, else in double quotes with `"` and
    /// `\` escaped.
    static func token(_ value: [UInt8]) -> [UInt8] {
        if !value.isEmpty, value.allSatisfy({ $0 > 0x20 && $0 != 0x22 && $0 != 0x27 && $0 != 0x5C }) { return value }
        return [0x22] + value.flatMap { $0 == 0x22 || $0 == 0x5C ? [0x5C, $0] : [$0] } + [0x22]
    }

    static func token(_ text: String) -> [UInt8] { token(Array(text.utf8)) }

    static func anyArgument(_ random: inout SplitMix64) -> [UInt8] {
        random.next() & 1 == 0 ? plausible(&random)
            : HostileArgument.classes.pick(&random).values.pick(&random)
    }

    static func plausible(_ random: inout SplitMix64) -> [UInt8] { plausibleValues.pick(&random) }

    /// A valid argument list for every command of the table (a test keeps it complete), the base that hostile
    /// values replace one argument of. Paths are the fixture's; `fuzz-list` is the stored playlist `save` makes.
    static let validArguments: [String: [String]] = [
        "add": [MusicFixture.uno.path], "addid": [MusicFixture.dos.path, "0"],
        "alarm_add": ["07:00", "weekdays", "playlist:fuzz-list", "40", "5"], "alarm_enable": ["1", "0"],
        "alarm_remove": ["1"], "alarms": [], "sleep_timer": ["600"],
        "audiolatency": ["48000"], "playtake": ["1", "alternate", "2"], "record": ["off"], "takedelete": ["1"], "takes": [],
        "albumart": [MusicFixture.one.path, "0"], "announce": ["fuzz"], "announce_mode": ["over", "tracks"],
        "binarylimit": ["8192"], "bpm": ["120", "0.5"], "cardassign": ["123", "action:next", "50"], "cardforget": ["123"],
        "cardlearn": ["album:Second"], "cardread": ["123"], "cards": [], "channels": [], "clear": [], "clearerror": [], "close": [], "commands": [], "consume": ["0"],
        "count": ["artist", "Beta"], "count_in": ["4", "120", "each"], "crossfade": ["0"], "currentsong": [],
        "decoders": [], "delete": ["0:1"], "deleteid": ["1"], "disableoutput": ["0"], "enableoutput": ["0"],
        "find": ["artist", "Beta"], "findadd": ["title", "Uno"], "getvol": [], "idle": ["player"],
        "list": ["album", "artist", "Beta"], "listall": ["Beta"], "listallinfo": ["Beta"], "listfiles": ["Beta"],
        "listplaylist": ["fuzz-list", "0:1"], "listplaylistinfo": ["fuzz-list", "0:1"], "listplaylists": [],
        "load": ["fuzz-list", "0:1", "0"], "loop_a": [], "loop_b": [], "loop_clear": [], "loop_cycle": [], "loop_last": ["2"],
        "loop_nudge": ["a", "10"], "loop_set": ["0.25", "0.75", "2"], "loop_status": [], "lsinfo": ["Beta"],
        "metronome": ["on", "3"], "move": ["0:1", "2"], "moveid": ["1", "0"], "next": [], "notcommands": [], "outputs": [],
        "password": ["secret"], "pause": ["0"], "ping": [], "play": ["0"], "playid": ["1"],
        "playlistadd": ["fuzz-list", MusicFixture.tres.path, "0"], "playlistclear": ["fuzz-other"],
        "playlistdelete": ["fuzz-list", "0"], "playlistfind": ["artist", "Beta"], "playlistid": ["1"],
        "playlistinfo": ["0:2"], "playlistlength": ["fuzz-list"], "playlistmove": ["fuzz-list", "0", "1"],
        "playlistsearch": ["artist", "bet"],
        "plchanges": ["0", "0:2"], "plchangesposid": ["0", "0:2"], "practice": ["week", "2026-11-25"],
        "previous": [], "prio": ["10", "0:2"], "prioid": ["10", "1"], "protocol": ["enable", "hide_playlists_in_root"],
        "random": ["0"], "rangeid": ["1", "0.25:0.75"], "readmessages": [],
        "readpicture": [MusicFixture.one.path, "0"],
        "rename": ["fuzz-other", "fuzz-third"], "repeat": ["1"], "replay_gain_mode": ["off"],
        "replay_gain_status": [], "rescan": ["Beta"], "rm": ["fuzz-third"], "save": ["fuzz-list", "append"],
        "scan_issues": [], "scan_status": [], "search": ["any", "bet"], "searchadd": ["any", "uno"], "searchcount": ["any", "bet"],
        "searchplaylist": ["fuzz-list", "(title contains 'u')", "window", "0:1"], "section_add": ["fuzz", "0.1", "0.5", "2"],
        "section_delete": ["1"], "section_next": [], "section_play": ["1"], "section_previous": [],
        "section_queue": [MusicFixture.uno.path, "fuzz"], "section_save": ["fuzz"], "section_trainer": ["1", "off"],
        "sections": [], "seek": ["0", "0.5"],
        "seekcur": ["0.5"], "seekid": ["1", "0.5"], "sendmessage": ["fuzz", "hi"], "setvol": ["80"], "shuffle": ["0:3"], "single": ["0"],
        "speed_trainer": ["80", "5", "2", "100"], "stats": [], "status": [],
        "sticker": ["set", "song", MusicFixture.uno.path, "rating", "5"], "stickernames": [],
        "stickernamestypes": ["song"], "stickertypes": [], "stop": [], "subscribe": ["fuzz"], "swap": ["0", "1"], "swapid": ["1", "2"],
        "tagtypes": ["disable", "album"], "tempo": ["100"], "toggleoutput": ["0"], "tap_tempo": [], "transpose": ["-2.5"], "unsubscribe": ["fuzz"], "update": ["Beta"],
        "urlhandlers": [], "volume": ["+5"], "webpassword": ["guest", "fuzz-password"],
    ]

    /// Values that pass a command's first checks (positions, ids, booleans, paths of the fixture, tag and
    /// subcommand names, playlist names), so the hostile value beside them reaches deeper code.
    static let plausibleValues: [[UInt8]] = [
        "0", "1", "2", "3", "9", "100", "a", "b", "off", "on", "tag", "each", "over", "before", "tracks", "all", "clear",
        "enable", "disable", "artist", "album", "title", "Artist", "any", "file", "base", "group", "window", "sort",
        "Beta", "Alpha Band", "Beta/Second/01 Uno.flac", "Alpha Band/First Album/01 One.flac", "Alpha Band/First Album",
        "Alpha Band/First Album/cover.jpg", "/", "passwd.flac", "Elsewhere/Secret.flac", "file:///etc/passwd",
        "fuzz-list", "song", "get", "set", "list", "find", "delete", "player", "mixer", "playlist", "options",
        "(artist == \"Beta\")", "(!(title contains 'o'))", "tempo", "rating", "4", "120", "50", "150", "+5", "-5",
    ].map(token)
}

/// One hostile argument class and its values (each already a token: bare or quoted as the line carries it).
///
/// Immutable data.
struct HostileArgument: Sendable {
    let name: String
    let values: [[UInt8]]

    private init(_ name: String, _ values: [[UInt8]]) {
        self.name = name
        self.values = values
    }

    private init(_ name: String, texts: [String]) { self.init(name, texts.map(ProtocolFuzzCorpus.token)) }

    static let classes: [HostileArgument] = [
        HostileArgument("not a number", texts: ["nan", "NaN", "-nan", "+nan", "nan(0x7ff)", "snan", "NAN"]),
        HostileArgument("infinite", texts: ["inf", "-inf", "+inf", "infinity", "-Infinity", "1e309", "-1e309"]),
        HostileArgument("huge or tiny float", texts: [
            "1e308", "-1e308", "1e300", "+1e300", "1.7976931348623157e308", "4.9e-324", "-0.0", "0x1p1023", "1e-320",
            "1e19", "-9.3e18",
        ]),
        HostileArgument("64-bit limits", texts: [
            "9223372036854775807", "-9223372036854775808", "+9223372036854775807", "9223372036854775808",
            "-9223372036854775809", "18446744073709551615", "18446744073709551616", "99999999999999999999999999",
        ]),
        HostileArgument("32-bit limits", texts: [
            "2147483647", "2147483648", "-2147483648", "-2147483649", "4294967295", "4294967296", "+2147483647",
        ]),
        HostileArgument("negative or zero", texts: ["-1", "0", "-0", "+0", "+1", "00", "-00001", "-", "+", "+-1"]),
        HostileArgument("empty", texts: ["", " ", "\t"]),
        HostileArgument("long", [
            ProtocolFuzzCorpus.token(String(repeating: "A", count: 10_240)),  // over the line limit: client dropped
            ProtocolFuzzCorpus.token(String(repeating: "x", count: 7_900)),
            ProtocolFuzzCorpus.token(String(repeating: "1", count: 5_000)),
            ProtocolFuzzCorpus.token(String(repeating: "a/", count: 3_000)),
            ProtocolFuzzCorpus.token(String(repeating: "é", count: 3_000)),
        ]),
        HostileArgument("invalid UTF-8", [
            [0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x80], [0xE2, 0x82],
            [0x31, 0xFF, 0x3A, 0x32], [0xFE, 0xFF, 0x00, 0x61],
        ].map(ProtocolFuzzCorpus.token)),
        HostileArgument("NUL and control bytes", [
            [0x00], [0x61, 0x00, 0x62], [0x30, 0x00], [0x31, 0x00, 0x3A, 0x32], [0x0D], [0x1B, 0x5B, 0x32, 0x4A],
            [0x7F], [0x09, 0x0B, 0x0C],
        ].map(ProtocolFuzzCorpus.token) + [[0x31, 0x00]]),  // the last one bare: the tokenizer refuses a bare NUL
        HostileArgument("unbalanced quotes", [
            "\"abc", "abc\"", "'", "'abc", "\"a\"b", "\"\\", "\"", "\"\"\"", "\\\"", "\"a\\\"",
        ].map { Array($0.utf8) }),
        HostileArgument("ranges", texts: [
            "5:2", ":", "-1:", "1:", "0:", ":5", "0:0", "1:1", "-1:-1", "0:-1", "2147483647:", "0:2147483648",
            "9223372036854775807:9223372036854775807", "1:2:3", "1::", "+1:+2", " 1:2", "nan:inf", "0x1:0x2", "-1",
            "2147483647:2147483647", "0:9223372036854775808",
        ]),
        HostileArgument("broken filters", texts: [
            "(", ")", "()", "(artist)", "(artist ==)", "(artist == \"x\"", "((artist == 'x') AND)", "(!)",
            "(base '')", "(base '../..')", "(modified-since '9999999999999999999')",
            "(modified-since '2147483647-99-99T99:99:99Z')", "(modified-since '-1')", "(file =~ '[')",
            "(AudioFormat == '44100:16:2')", String(repeating: "(", count: 2_000),
            String(repeating: "(", count: 1_000) + "artist == 'x'" + String(repeating: ")", count: 1_000),
            String(repeating: "(!", count: 800) + "(title == '')" + String(repeating: ")", count: 800),
            "(artist == 'x' \\", "(artist starts_with '')", "(any contains '\u{0}')", "(file == \"\\\"\")",
        ]),
        HostileArgument("path tricks", texts: [
            "..", "../", "/..", "/etc/passwd", "Alpha Band/../../outside", "./", "//", "Beta/Second/../../..",
            "Elsewhere/../../..", "~", "%2e%2e/", "Beta\\Second",
        ]),
    ]
}

/// Draws that depend only on the generator (the standard library's `randomElement(using:)` and `shuffle(using:)`
/// may change their algorithms between toolchains, and with them the corpus).
extension Array {
    fileprivate func pick(_ random: inout SplitMix64) -> Element { self[random.next(in: 0...(count - 1))] }

    fileprivate mutating func shuffleInPlace(_ random: inout SplitMix64) {
        guard count > 1 else { return }
        for index in stride(from: count - 1, to: 0, by: -1) { swapAt(index, random.next(in: 0...index)) }
    }
}

extension String {
    /// The string left-padded with zeros to `width`.
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
