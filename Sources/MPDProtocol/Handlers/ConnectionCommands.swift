/// Handlers about the connection itself: `close`, `ping`, `password`, `idle`, `commands`, `notcommands`, `tagtypes`,
/// `protocol`, `binarylimit`, and the static lists `urlhandlers` and `decoders`.
///
/// Stateless; run on the executing command's task.
enum ConnectionCommands {
    static func close(_ c: inout CommandContext) async throws { c.outcome = .close }
    static func ping(_ c: inout CommandContext) async throws {}

    static func password(_ c: inout CommandContext) async throws {
        guard let permissions = c.config.passwords[c.arguments[0]] else {
            throw MPDError(.password, "incorrect password")
        }
        c.client.permissions = permissions
    }

    static func idle(_ c: inout CommandContext) async throws {
        var wanted = IdleSet()
        for name in c.arguments {
            guard let subsystem = IdleSubsystem(rawValue: name.lowercased()) else {
                throw MPDError.badArgument("Unrecognized idle event: \(name)")
            }
            wanted.insert(subsystem.set)
        }
        c.outcome = .idle(wanted.isEmpty ? .all : wanted)
    }

    static func commands(_ c: inout CommandContext) async throws {
        for spec in CommandTable.available(to: c.client.permissions, c.backend.capabilities) {
            c.response.line("command", spec.name)
        }
    }

    static func notCommands(_ c: inout CommandContext) async throws {
        let allowed = Set(CommandTable.available(to: c.client.permissions, c.backend.capabilities).map(\.name))
        for spec in CommandTable.commands where !allowed.contains(spec.name) { c.response.line("command", spec.name) }
    }

    /// `tagtypes [all|clear|enable NAME…|disable NAME…|available|reset NAME…]`, with MPD 0.24's answers.
    static func tagTypes(_ c: inout CommandContext) async throws {
        try editNames(&c, \.tagTypes, key: "tagtype", unknown: "Unknown tag type", allowsReset: true,
                      parse: TagType.init(name:))
    }

    /// `protocol [all|clear|enable NAME…|disable NAME…|available]` (MPD 0.24): the connection's protocol features.
    static func protocolFeatures(_ c: inout CommandContext) async throws {
        try editNames(&c, \.protocolFeatures, key: "feature", unknown: "Unknown protocol feature", allowsReset: false,
                      parse: ProtocolFeature.init(name:))
    }

    /// The sub-commands `tagtypes` and `protocol` share over one of the connection's named sets: none lists the set,
    /// `available` every name, `all`/`clear` fill or empty it, `enable`/`disable` (and `reset` where allowed) take
    /// names (MPD's `ParseTagMask`: at least one, each known).
    static func editNames<Name: CaseIterable & RawRepresentable & Hashable>(
        _ c: inout CommandContext, _ set: WritableKeyPath<ClientSettings, Set<Name>>, key: String, unknown: String,
        allowsReset: Bool, parse: (String) -> Name?
    ) throws where Name.RawValue == String {
        guard let sub = c.argument(0) else {
            for name in Name.allCases where c.client[keyPath: set].contains(name) { c.response.line(key, name.rawValue) }
            return
        }
        let arguments = c.arguments.dropFirst()
        func names() throws(MPDError) -> [Name] {
            guard !arguments.isEmpty else { throw .badArgument("Not enough arguments") }
            return try arguments.map { (text) throws(MPDError) -> Name in
                guard let name = parse(text) else { throw .badArgument(unknown) }
                return name
            }
        }
        switch sub {
        case "all", "clear", "available":
            guard arguments.isEmpty else { throw MPDError.badArgument("Too many arguments") }
            if sub == "available" {
                for name in Name.allCases { c.response.line(key, name.rawValue) }
            } else {
                c.client[keyPath: set] = sub == "all" ? Set(Name.allCases) : []
            }
        case "enable": c.client[keyPath: set].formUnion(try names())
        case "disable": c.client[keyPath: set].subtract(try names())
        case "reset" where allowsReset: c.client[keyPath: set] = Set(try names())
        default: throw MPDError.badArgument("Unknown sub command")
        }
    }

    static func binaryLimit(_ c: inout CommandContext) async throws {
        let value = try c.unsigned(0)
        guard value >= ClientSettings.minimumBinaryLimit else { throw MPDError.badArgument("Value too small") }
        guard value <= c.config.maxBinaryLimit else { throw MPDError.badArgument("Number too large: \(value)") }
        c.client.binaryLimit = value
    }

    static func urlHandlers(_ c: inout CommandContext) async throws {
        for handler in c.backend.capabilities.urlHandlers { c.response.line("handler", handler) }
    }

    static func decoders(_ c: inout CommandContext) async throws {
        for decoder in c.backend.capabilities.decoders {
            c.response.line("plugin", decoder.name)
            for suffix in decoder.suffixes { c.response.line("suffix", suffix) }
            for mime in decoder.mimeTypes { c.response.line("mime_type", mime) }
        }
    }
}
