import AudioCore

/// One `[output-NAME]` section of the configuration: an audio output MPD clients see in `outputs`.
///
/// `alsa` is the primary output (it paces playback; at most one), `fifo` writes raw PCM at `format` into a named pipe
/// (snapserver's `pipe://` source), `pipe` feeds `command`'s stdin. A value type; any thread.
public struct OutputConfig: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case alsa, fifo, pipe
    }

    /// NAME from the section header (what `outputs` prints as `outputname`).
    public var name: String
    public var kind: Kind
    /// alsa: the PCM (`default`, `plughw:...`, `null` or `file:PATH`, as `audio.output`).
    public var device = "default"
    /// fifo: the named pipe (created when missing).
    public var path = ""
    /// pipe: run with `/bin/sh -c`.
    public var command = ""
    /// fifo and pipe: the fixed format written, `RATE:BITS:CHANNELS` (snapserver's `sampleformat`).
    public var format = AudioFormat(sampleRate: 48_000, channels: 2, encoding: .s16)
    /// Enabled at first start (afterwards the state saved by `enableoutput`/`disableoutput` wins).
    public var enabled = true
    /// Where the section was written ("FILE:LINE"), for messages.
    public var origin = ""
    /// Where each key written in the section was written ("FILE:LINE"), for `fermata config show`.
    public var keyOrigins: [String: String] = [:]

    public init(name: String, kind: Kind) {
        self.name = name
        self.kind = kind
    }

    static let prefix = "output-"

    /// Builds the outputs from the entries of every `[output-NAME]` section, in the order they first appear.
    static func parse(_ entries: [ConfigEntry], file: String) throws(ConfigError) -> [OutputConfig] {
        var order: [String] = []
        var sections: [String: [ConfigEntry]] = [:]
        for entry in entries {
            if sections[entry.section] == nil { order.append(entry.section) }
            sections[entry.section, default: []].append(entry)
        }
        var outputs: [OutputConfig] = []
        for section in order {
            let output = try parseSection(section, sections[section] ?? [], file: file)
            if output.kind == .alsa, let first = outputs.first(where: { $0.kind == .alsa }) {
                throw ConfigError(file: file, line: sections[section]?.first?.line ?? 0, key: "\(section).type",
                                  message: "only one alsa output is supported (the first is [output-\(first.name)])")
            }
            outputs.append(output)
        }
        return outputs
    }

    private static func parseSection(
        _ section: String, _ entries: [ConfigEntry], file: String
    ) throws(ConfigError) -> OutputConfig {
        let name = String(section.dropFirst(prefix.count))
        let firstLine = entries.first?.line ?? 0
        guard !name.isEmpty else {
            throw ConfigError(file: file, line: firstLine, key: nil, message: "[output-] needs a name: [output-NAME]")
        }
        guard let typeEntry = entries.first(where: { $0.key == "type" }) else {
            throw ConfigError(file: file, line: firstLine, key: "\(section).type",
                              message: "missing: say type = \"alsa\", \"fifo\" or \"pipe\"")
        }
        guard case let .string(typeText) = typeEntry.value, let kind = Kind(rawValue: typeText) else {
            throw ConfigError(file: file, line: typeEntry.line, key: typeEntry.qualifiedKey,
                              message: "must be \"alsa\", \"fifo\" or \"pipe\"")
        }
        var output = OutputConfig(name: name, kind: kind)
        output.origin = "\(file):\(firstLine)"
        for entry in entries { output.keyOrigins[entry.key] = "\(file):\(entry.line)" }
        for entry in entries where entry.key != "type" {
            if let problem = apply(entry, to: &output) {
                throw ConfigError(file: file, line: entry.line, key: entry.qualifiedKey, message: problem)
            }
        }
        let missing = kind == .fifo && output.path.isEmpty ? "path" : kind == .pipe && output.command.isEmpty ? "command" : nil
        if let missing {
            throw ConfigError(file: file, line: typeEntry.line, key: "\(section).\(missing)",
                              message: "missing: a \(kind.rawValue) output needs \(missing) = \"...\"")
        }
        return output
    }

    /// Applies one key; nil when fine, else what is wrong.
    private static func apply(_ entry: ConfigEntry, to output: inout OutputConfig) -> String? {
        let allowed: Set<String> = switch output.kind {
        case .alsa: ["device", "enabled"]
        case .fifo: ["path", "format", "enabled"]
        case .pipe: ["command", "format", "enabled"]
        }
        guard allowed.contains(entry.key) else {
            return "unknown key for a \(output.kind.rawValue) output (known: "
                + allowed.sorted().joined(separator: ", ") + ")"
        }
        if entry.key == "enabled" {
            guard case let .boolean(on) = entry.value else { return "must be true or false" }
            output.enabled = on
            return nil
        }
        guard case let .string(text) = entry.value, !text.isEmpty else { return "must be a non-empty quoted string" }
        switch entry.key {
        case "device": output.device = text
        case "path":
            guard text.hasPrefix("/") else { return "must be an absolute path" }
            output.path = text
        case "command": output.command = text
        default:
            guard let format = AudioFormat(spec: text), format.encoding != .f32 else {
                return "must be RATE:BITS:CHANNELS with 16, 24 or 32 bits, such as 48000:16:2"
            }
            output.format = format
        }
        return nil
    }
}
