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
        guard let sub = c.argument(0) else {
            for tag in TagType.allCases where c.client.tagTypes.contains(tag) {
                c.response.line("tagtype", tag.rawValue)
            }
            return
        }
        let names = c.arguments.dropFirst()
        switch sub {
        case "all", "clear", "available":
            guard names.isEmpty else { throw MPDError.badArgument("Too many arguments") }
            if sub == "available" {
                for tag in TagType.allCases { c.response.line("tagtype", tag.rawValue) }
            } else {
                c.client.tagTypes = sub == "all" ? Set(TagType.allCases) : []
            }
        case "enable": c.client.tagTypes.formUnion(try tags(names))
        case "disable": c.client.tagTypes.subtract(try tags(names))
        case "reset": c.client.tagTypes = Set(try tags(names))
        default: throw MPDError.badArgument("Unknown sub command")
        }
    }

    /// MPD's `ParseTagMask`: at least one name, each a known tag.
    static func tags(_ names: ArraySlice<String>) throws(MPDError) -> [TagType] {
        guard !names.isEmpty else { throw .badArgument("Not enough arguments") }
        var result: [TagType] = []
        for name in names {
            guard let tag = TagType(name: name) else { throw .badArgument("Unknown tag type") }
            result.append(tag)
        }
        return result
    }

    /// `protocol [all|clear|enable NAME…|disable NAME…|available]` (MPD 0.24): the connection's protocol features.
    static func protocolFeatures(_ c: inout CommandContext) async throws {
        guard let sub = c.argument(0) else {
            for feature in ProtocolFeature.allCases where c.client.protocolFeatures.contains(feature) {
                c.response.line("feature", feature.rawValue)
            }
            return
        }
        let names = c.arguments.dropFirst()
        switch sub {
        case "all", "clear", "available":
            guard names.isEmpty else { throw MPDError.badArgument("Too many arguments") }
            if sub == "available" {
                for feature in ProtocolFeature.allCases { c.response.line("feature", feature.rawValue) }
            } else {
                c.client.protocolFeatures = sub == "all" ? Set(ProtocolFeature.allCases) : []
            }
        case "enable": c.client.protocolFeatures.formUnion(try features(names))
        case "disable": c.client.protocolFeatures.subtract(try features(names))
        default: throw MPDError.badArgument("Unknown sub command")
        }
    }

    static func features(_ names: ArraySlice<String>) throws(MPDError) -> [ProtocolFeature] {
        guard !names.isEmpty else { throw .badArgument("Not enough arguments") }
        var result: [ProtocolFeature] = []
        for name in names {
            guard let feature = ProtocolFeature(name: name) else { throw .badArgument("Unknown protocol feature") }
            result.append(feature)
        }
        return result
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
