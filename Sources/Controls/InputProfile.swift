import Foundation
import FermataConfig

/// Profiles for common input devices — foot pedals, remotes, keypads, card readers — beside the board profiles
/// (`boards/inputs/NAME.toml`, installed to `/usr/share/fermata/boards/inputs`; `/etc/fermata/boards/inputs` first).
/// An `[input-NAME]` section names one with `profile = "pcsensor-footswitch"`; the profile brings how the device is
/// matched (its `[device]` section: `name`, `id` or `phys`, `cards`) and its controls (`[button-B]`, `[encoder-E]`,
/// which become `[button-NAME-B]`, `[encoder-NAME-E]` on that input). What the user writes wins key by key: their own
/// `name`/`id`/`phys` in `[input-NAME]`, their own keys in `[button-NAME-B]`.
///
/// Pure apart from reading the profile files; any thread.
public enum InputProfile {
    /// Where input profiles are looked up, in order: beside each board-profile directory, in `inputs/`.
    public static let directories = BoardProfile.directories.map { $0 + "/inputs" }

    /// `entries` (the user's controls sections) with every `profile = …` of an `[input-NAME]` expanded.
    public static func expand(_ entries: [ProfileEntry], directories: [String] = directories) throws(ConfigError)
        -> [ProfileEntry] {
        var expanded: [ProfileEntry] = []
        var handled: Set<String> = []
        for entry in entries where entry.key == "profile" && isInput(entry.section) && !handled.contains(entry.section) {
            handled.insert(entry.section)
            guard case let .string(name) = entry.value, !name.isEmpty, !name.contains("/") || name.hasSuffix(".toml")
            else {
                throw ConfigError(file: entry.file, line: entry.line, key: "\(entry.section).profile",
                                  message: "expected an input profile's name (see /usr/share/fermata/boards/inputs)")
            }
            guard let file = self.file(for: name, in: directories) else {
                throw ConfigError(file: entry.file, line: entry.line, key: "\(entry.section).profile",
                                  message: "no input profile \"\(name)\" (looked in "
                                      + directories.joined(separator: ", ") + ")")
            }
            let input = String(entry.section.dropFirst("input-".count))
            let own = Set(entries.filter { $0.section == entry.section }.map(\.key))
            for item in try load(file) {
                switch item.section {
                case "device":
                    // The user's own match replaces the profile's whole match (one of name, id, phys).
                    let isMatch = ["name", "id", "phys"].contains(item.key)
                    if isMatch, !own.isDisjoint(with: ["name", "id", "phys"]) { continue }
                    if own.contains(item.key) { continue }
                    expanded.append(ProfileEntry(section: entry.section, key: item.key, value: item.value,
                                                 file: item.file, line: item.line))
                case let section where section.hasPrefix("button-") || section.hasPrefix("encoder-"):
                    let kind = section.hasPrefix("button-") ? "button-" : "encoder-"
                    let target = kind + input + "-" + section.dropFirst(kind.count)
                    if !expanded.contains(where: { $0.section == target }) {
                        expanded.append(ProfileEntry(section: target, key: "input", value: .string(input),
                                                     file: item.file, line: item.line))
                    }
                    expanded.append(ProfileEntry(section: target, key: item.key, value: item.value,
                                                 file: item.file, line: item.line))
                default:
                    throw ConfigError(file: item.file, line: item.line, key: item.section,
                                      message: "an input profile has [device], [button-*] and [encoder-*] sections")
                }
            }
        }
        // The profile's entries first, so the user's own keys (later) win.
        return expanded + entries.filter { !($0.key == "profile" && isInput($0.section)) }
    }

    /// Every profile in `directories` (name → its first comment line), for `fermata input profiles`.
    public static func available(in directories: [String] = directories) -> [(name: String, about: String)] {
        var seen: [String: String] = [:]
        for directory in directories {
            for name in ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
            where name.hasSuffix(".toml") {
                let key = String(name.dropLast(5))
                guard seen[key] == nil else { continue }
                let text = (try? String(contentsOfFile: directory + "/" + name, encoding: .utf8)) ?? ""
                let about = text.split(separator: "\n").first { $0.hasPrefix("#") }.map { $0.drop { $0 == "#" || $0 == " " } }
                seen[key] = about.map(String.init) ?? ""
            }
        }
        return seen.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    static func isInput(_ section: String) -> Bool { section.hasPrefix("input-") }

    static func file(for name: String, in directories: [String]) -> String? {
        if name.contains("/") { return FileManager.default.fileExists(atPath: name) ? name : nil }
        return directories.map { $0 + "/" + name + ".toml" }.first { FileManager.default.fileExists(atPath: $0) }
    }

    static func load(_ file: String) throws(ConfigError) -> [ProfileEntry] {
        guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
            throw ConfigError(file: file, line: 0, key: nil, message: "cannot read the input profile")
        }
        return try ProfileFile.parse(text, file: file)
    }
}
