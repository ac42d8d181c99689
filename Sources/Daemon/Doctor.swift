import AudioOutput
import Controls
import Decoders
import FermataConfig
import FermataCore
import Foundation
import MPDProtocol
import Recording

/// One thing `fermata doctor` (and the web remote's box page) checked: whether it is well, in words, and the exact fix.
public struct DoctorFinding: Sendable, Hashable {
    public var ok: Bool
    public var what: String
    public var fix: String?

    public init(ok: Bool, what: String, fix: String? = nil) {
        self.ok = ok
        self.what = what
        self.fix = fix
    }
}

/// What Fermata needs on this board, checked: the formats that play here (and the library's files that wait for
/// FFmpeg), the ALSA device, the state directory (writable, free space, the database's integrity and schema), the music
/// directory, the GPIO chips and the input devices. `fermata doctor` prints these after its own checks (the
/// configuration file, whether fermatad answers); the daemon answers them to the web remote.
///
/// A value; `findings` blocks (files, a device probe, `sqlite3`): call it off the cooperative pool and event loops.
public struct Doctor: Sendable {
    /// The configuration file, named in the fixes.
    public var configPath: String
    public var settings: DaemonConfig

    public init(configPath: String, settings: DaemonConfig) {
        self.configPath = configPath
        self.settings = settings
    }

    /// Every finding after the configuration's and the daemon's; `scanIssues`: what the library could not index
    /// (nil: unknown, fermatad not reached).
    public func findings(scanIssues: [ScanIssueLine]?) -> [DoctorFinding] {
        var out = decoderFindings(scanIssues)
        out.append(audioFinding(settings.output))
        if let record = recordFinding(settings.recordDevice) { out.append(record) }
        out += stateFindings(settings.stateDirectory)
        out.append(musicFinding(settings.musicDirectory))
        out.append(gpioFinding())
        out += inputFindings(settings)
        return out
    }

    /// Which formats play here, and the files in the library that do not (by reason, from `scan_issues`).
    func decoderFindings(_ issues: [ScanIssueLine]?) -> [DoctorFinding] {
        let builtIn = DecoderRegistry.formats.filter { $0.pluginName != "ffmpeg" }.map(\.name).joined(separator: ", ")
        var out = [DoctorFinding(ok: true, what: "formats: \(builtIn) (built in)")]
        let (available, why) = MP4Decoder.availability
        var needFFmpeg = 0, unplayable: [String] = []
        for issue in issues ?? [] where issue.kind == "unsupported" {
            if issue.reason.contains("need FFmpeg") { needFFmpeg += 1 } else { unplayable.append(issue.path) }
        }
        if available {
            out.append(DoctorFinding(ok: true, what: "AAC and ALAC (MP4, M4A, M4B, ADTS): FFmpeg is installed"))
        } else {
            out.append(DoctorFinding(ok: needFFmpeg == 0, what: "AAC and ALAC need FFmpeg, which is not installed (\(why))"
                                   + (needFFmpeg > 0 ? "; \(needFFmpeg) files in the library need it" : ""),
                               fix: "sudo apt install \(MP4Decoder.packages), then `fermata scan --full`"))
        }
        if !unplayable.isEmpty {
            out.append(DoctorFinding(ok: true, what: "\(unplayable.count) files are in formats Fermata does not play "
                                   + "(`fermata scan --follow` lists them), e.g. " + unplayable.prefix(3).joined(separator: ", ")))
        }
        return out
    }

    func audioFinding(_ output: String) -> DoctorFinding {
        let spec = OutputSpec(parsing: output)
        guard case let .alsa(device) = spec else { return DoctorFinding(ok: true, what: "audio goes to \(spec.destination)") }
        if let reason = OutputSpec.probeALSA(device: device) {
            let busy = reason.lowercased().contains("busy")
            return DoctorFinding(ok: busy, what: "ALSA device \(device): \(busy ? "in use (by fermatad, normally)" : reason)",
                           fix: "list devices with `aplay -L`; set audio.output in \(configPath) to a plughw:CARD=NAME,DEV=0")
        }
        return DoctorFinding(ok: true, what: "ALSA device \(device) opens")
    }

    func stateFindings(_ directory: String) -> [DoctorFinding] {
        var out: [DoctorFinding] = []
        let probe = directory + "/.doctor-\(getpid())"
        if FileManager.default.createFile(atPath: probe, contents: Data("x".utf8)) {
            try? FileManager.default.removeItem(atPath: probe)
            out.append(DoctorFinding(ok: true, what: "state directory \(directory) is writable"))
        } else {
            out.append(DoctorFinding(ok: false, what: "state directory \(directory) is not writable",
                               fix: "sudo install -d -o fermata -g fermata -m 0750 \(directory)"))
        }
        var stats = statvfs()
        if statvfs(directory, &stats) == 0 {
            let free = Double(stats.f_bavail) * Double(stats.f_frsize) / 1_048_576
            out.append(DoctorFinding(ok: free > 50, what: String(format: "%.0f MiB free for the state directory", free),
                               fix: "free some space on that filesystem (Fermata keeps playing from memory when full)"))
        }
        let database = directory + "/library.sqlite"
        if FileManager.default.fileExists(atPath: database) {
            let result = Self.shell("/usr/bin/sqlite3", [database, "PRAGMA quick_check;"])
            if let result {
                out.append(DoctorFinding(ok: result == "ok", what: "database integrity: \(result)",
                                   fix: "stop fermatad; it moves a damaged database aside and starts clean"))
            }
            out.append(Self.schemaFinding(database))
        }
        return out
    }

    /// Whether the database's tables are what its recorded migrations make (`StateSchemaCheck`).
    static func schemaFinding(_ database: String) -> DoctorFinding {
        switch StateSchemaCheck.check(path: database) {
        case let .matches(count):
            return DoctorFinding(ok: true, what: "database schema is what its \(count) migrations make")
        case let .differs(changes):
            return DoctorFinding(ok: false, what: "database schema differs from what its migrations make:\n      "
                               + changes.prefix(12).joined(separator: "\n      "),
                           fix: "restore the file from a backup, or stop fermatad and move it aside to start a new one "
                               + "(the music is not touched; the queue and statistics are lost)")
        case let .newer(unknown):
            return DoctorFinding(ok: false, what: "database was written by a newer Fermata (migrations \(unknown.joined(separator: ", ")))",
                           fix: "install that version again, or move the file aside to start a new library")
        case let .unreadable(reason):
            return DoctorFinding(ok: false, what: "cannot read the database to check its schema: \(reason)",
                           fix: "run fermata doctor as root or as the fermata user (sudo -u fermata fermata doctor)")
        }
    }

    func musicFinding(_ directory: String) -> DoctorFinding {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) && isDirectory.boolValue
        return DoctorFinding(ok: exists && FileManager.default.isReadableFile(atPath: directory),
                       what: "music directory \(directory) " + (exists ? "is readable" : "is missing"),
                       fix: "set paths.music in \(configPath), or mount the music there")
    }

    func gpioFinding() -> DoctorFinding {
        let chips = ((try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? []).filter { $0.hasPrefix("gpiochip") }
        guard !chips.isEmpty else {
            return DoctorFinding(ok: true, what: "no GPIO chip on this machine (buttons disabled; playback is not affected)")
        }
        let readable = chips.filter { FileManager.default.isReadableFile(atPath: "/dev/" + $0) }
        return DoctorFinding(ok: readable.count == chips.count, what: "GPIO chips: \(chips.sorted().joined(separator: ", "))",
                       fix: "add the user to the gpio group: sudo usermod -aG gpio fermata (see deploy/99-fermata-gpio.rules)")
    }

    /// The input devices: which the configuration's `[input-NAME]` sections take, and whether the nodes can be read.
    func inputFindings(_ settings: DaemonConfig) -> [DoctorFinding] {
        let nodes = InputDevices.list()
        let entries = settings.controlsEntries.filter { $0.section.hasPrefix("input-") || $0.section.hasPrefix("input.") }
        let own = entries.map { ProfileEntry($0, file: settings.file ?? "fermata.toml") }
        let wanted = (try? BoardProfile(entries: InputProfile.expand(own)))?.controls.inputs ?? []
        var out: [DoctorFinding] = []
        let readable = nodes.filter { $0.info != nil }
        if nodes.isEmpty {
            out.append(DoctorFinding(ok: true, what: "no input devices (/dev/input): pedals, remotes and card readers appear here when plugged in"))
        } else {
            let names = readable.compactMap { node in node.info.map { "\(node.path.split(separator: "/").last ?? "") \"\($0.name)\"" } }
            out.append(DoctorFinding(ok: readable.count == nodes.count,
                               what: "input devices: " + (names.isEmpty ? "none readable" : names.joined(separator: ", ")),
                               fix: "add the user to the input group: sudo usermod -aG input fermata (see deploy/99-fermata-input.rules)"))
        }
        for input in wanted {
            let taken = readable.filter { node in node.info.map(input.matches) == true }.map(\.path)
            out.append(DoctorFinding(ok: true, what: "input \(input.name) (\(input.match))"
                + (taken.isEmpty ? ": not plugged in now (fermatad takes it when it appears)" : ": \(taken.joined(separator: ", "))")
                + (input.cards ? ", a card reader" : "")))
        }
        return out
    }

    static func shell(_ tool: String, _ arguments: [String]) -> String? {
        guard FileManager.default.isExecutableFile(atPath: tool) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        guard (try? process.run()) != nil else { return nil }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
