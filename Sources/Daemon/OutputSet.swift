import AudioCore
import AudioOutput
import Engine
import FermataConfig
import Logging
import MPDProtocol
import Player
import Synchronization

/// The daemon's audio outputs as MPD numbers them: the primary (ALSA, `null` or a capture; it paces playback) and
/// the secondary FIFO and command outputs fed from it. Built once from the configuration and the saved enabled flags.
///
/// Threads: Sendable; the backend calls `infos` and `set` from any task. The primary sink and the taps are handed to
/// the engine by `make`'s caller.
public final class OutputSet: Sendable {
    /// How one output is switched.
    enum Control: Sendable {
        case primary(OutputSwitch)
        case tap(OutputTap)
    }

    struct Entry: Sendable {
        let name: String
        let plugin: String
        let control: Control
    }

    let entries: [Entry]

    init(entries: [Entry]) { self.entries = entries }

    /// The outputs for `config`, with `saved` flags (by name) winning over the configured ones.
    /// Returns the primary sink and the taps for the engine.
    public static func make(
        config: DaemonConfig, saved: [String: Bool], logger: Logger
    ) -> (outputs: OutputSet, sink: any AudioSink, taps: [OutputTap], destination: String) {
        var sections = config.outputs
        if !sections.isEmpty, let origin = config.origins["audio.output"] {
            let device = sections.first { $0.kind == .alsa }.map { "[output-\($0.name)] device" } ?? "no alsa output"
            logger.warning("audio.output (\(origin)) is not used: [output-*] sections name the outputs (\(device))")
        }
        if sections.isEmpty {
            var legacy = OutputConfig(name: config.output, kind: .alsa)
            legacy.device = config.output
            sections = [legacy]
        }
        var entries: [Entry] = []
        var taps: [OutputTap] = []
        let alsa = sections.first { $0.kind == .alsa }
        let spec = OutputSpec(parsing: alsa?.device ?? "null")
        let control = OutputSwitch(enabled: alsa.map { saved[$0.name] ?? $0.enabled } ?? true)
        let sink = SwitchableSink(primary: spec.makeSink(), control: control)
        var destinations = alsa == nil ? ["the paced null output (pacing only)"] : []
        for section in sections {
            let enabled = saved[section.name] ?? section.enabled
            let log: TapLog = { logger.notice("\($0)") }
            switch section.kind {
            case .alsa:
                let plugin = if case .null = spec { "null" } else { "alsa" }
                entries.append(Entry(name: section.name, plugin: plugin, control: .primary(control)))
                destinations.append(spec.destination + (enabled ? "" : " (disabled: paced null in its place)"))
            case .fifo, .pipe:
                let writer = Self.writer(fifo: section.kind == .fifo, path: section.path, command: section.command,
                                         log: log)
                let label = writer.label
                let tap = OutputTap(name: section.name, format: section.format, writer: writer, enabled: enabled, log: log)
                taps.append(tap)
                entries.append(Entry(name: section.name, plugin: section.kind.rawValue, control: .tap(tap)))
                destinations.append("\(label) at \(section.format)" + (enabled ? "" : " (disabled)"))
            }
        }
        return (OutputSet(entries: entries), sink, taps, destinations.joined(separator: ", "))
    }

    /// A FIFO or command writer, made for the tap that will own it.
    private static func writer(fifo: Bool, path: String, command: String, log: @escaping TapLog) -> sending any TapWriter {
        fifo ? FIFOWriter(path: path, log: log) : CommandWriter(command: command, log: log)
    }

    /// What `outputs` prints; drop and delivery counters as attributes of the FIFO and command outputs.
    public func infos() -> [OutputInfo] {
        entries.enumerated().map { id, entry in
            switch entry.control {
            case let .primary(control):
                return OutputInfo(id: id, name: entry.name, plugin: entry.plugin, enabled: control.enabled)
            case let .tap(tap):
                return OutputInfo(id: id, name: entry.name, plugin: entry.plugin, enabled: tap.enabled, attributes: [
                    OutputAttribute("format", "\(tap.format.sampleRate):\(tap.format.validBits):\(tap.format.channels)"),
                    OutputAttribute("connected", tap.isConnected ? "1" : "0"),
                    OutputAttribute("written_frames", String(tap.writtenFrames)),
                    OutputAttribute("dropped_frames", String(tap.droppedFrames)),
                ])
            }
        }
    }

    /// Enables, disables or toggles (`nil`) output `id`; returns its name and new state, nil for an unknown id.
    public func set(_ id: Int, enabled: Bool?) -> (name: String, enabled: Bool)? {
        guard entries.indices.contains(id) else { return nil }
        let entry = entries[id]
        switch entry.control {
        case let .primary(control):
            control.enabled = enabled ?? !control.enabled
            return (entry.name, control.enabled)
        case let .tap(tap):
            tap.enabled = enabled ?? !tap.enabled
            return (entry.name, tap.enabled)
        }
    }
}
