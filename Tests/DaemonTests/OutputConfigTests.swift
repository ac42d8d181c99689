import AudioCore
import Daemon
import FermataConfig
import Foundation
import Logging
import Testing
import TestSupport

/// `[output-NAME]` sections: what they build, and errors that name FILE:LINE: key.
@Suite struct OutputConfigTests {
    func load(_ text: String) throws -> (DaemonConfig, String) {
        let dir = try TemporaryDirectory()
        let path = dir.file("fermata.toml")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return (try DaemonConfig.load(file: path, required: true), path)
    }

    func message(_ text: String) throws -> String {
        let dir = try TemporaryDirectory()
        let path = dir.file("fermata.toml")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        do {
            _ = try DaemonConfig.load(file: path, required: true)
            return "no error"
        } catch {
            return error.description.replacingOccurrences(of: path, with: "FILE")
        }
    }

    @Test func sectionsBecomeOutputsInFileOrder() throws {
        let (config, _) = try load("""
            [audio]
            volume = 80
            [output-room]
            type = "alsa"
            device = "plughw:CARD=DAC,DEV=0"
            [output-snapcast]
            type = "fifo"
            path = "/run/fermata/snapfifo"
            format = "44100:24:2"
            enabled = false
            [output-recorder]
            type = "pipe"
            command = "cat > /dev/null"
            """)
        #expect(config.volume == 80)
        #expect(config.outputs.map(\.name) == ["room", "snapcast", "recorder"])
        #expect(config.outputs.map(\.kind) == [.alsa, .fifo, .pipe])
        #expect(config.outputs[0].device == "plughw:CARD=DAC,DEV=0")
        #expect(config.outputs[1].format == AudioFormat(sampleRate: 44_100, channels: 2, encoding: .s32, validBits: 24))
        #expect(config.outputs[1].enabled == false && config.outputs[2].enabled)
        #expect(config.outputs[2].format == AudioFormat(sampleRate: 48_000, channels: 2, encoding: .s16))
    }

    @Test func noSectionsMeansNoOutputList() throws {
        #expect(try load("[audio]\noutput = \"null\"\n").0.outputs.isEmpty)
    }

    /// With output sections, `audio.output` (from the file or `--output`) is not used; the daemon says so once
    /// instead of ignoring it silently. Without sections it is the output, and nothing is said.
    @Test func audioOutputBesideSectionsIsReportedAsUnused() throws {
        var (config, _) = try load("[output-room]\ntype = \"alsa\"\ndevice = \"null\"\n")
        try config.override("audio.output", with: "plughw:CARD=DAC", flag: "--output")
        let logs = LogCollector()
        let made = OutputSet.make(config: config, saved: [:], logger: Logger(label: "test") { _ in logs })
        #expect(made.destination.contains("null"), "the section's device: \(made.destination)")
        #expect(logs.lines.withLock { $0 } == [
            "warning: audio.output (--output) is not used: [output-*] sections name the outputs ([output-room] device)",
        ])

        var plain = DaemonConfig()
        try plain.override("audio.output", with: "null", flag: "--output")
        let quiet = LogCollector()
        _ = OutputSet.make(config: plain, saved: [:], logger: Logger(label: "test") { _ in quiet })
        #expect(quiet.lines.withLock { $0 }.isEmpty)
    }

    @Test func errorsNameFileLineAndKey() throws {
        #expect(try message("[output-a]\ntype = \"fifo\"\npath = \"/x\"\nformat = \"48000:8:2\"\n")
                == "FILE:4: output-a.format: must be RATE:BITS:CHANNELS with 16, 24 or 32 bits, such as 48000:16:2")
        #expect(try message("[output-a]\ntype = \"fifo\"\n") == "FILE:2: output-a.path: missing: a fifo output needs path = \"...\"")
        #expect(try message("[output-a]\npath = \"/x\"\n")
                == "FILE:2: output-a.type: missing: say type = \"alsa\", \"fifo\" or \"pipe\"")
        #expect(try message("[output-a]\ntype = \"jack\"\n") == "FILE:2: output-a.type: must be \"alsa\", \"fifo\" or \"pipe\"")
        #expect(try message("[output-a]\ntype = \"pipe\"\ncommand = \"x\"\npath = \"/y\"\n")
                == "FILE:4: output-a.path: unknown key for a pipe output (known: command, enabled, format)")
        #expect(try message("[output-a]\ntype = \"alsa\"\n[output-b]\ntype = \"alsa\"\n")
                == "FILE:4: output-b.type: only one alsa output is supported (the first is [output-a])")
        #expect(try message("[output-a]\ntype = \"fifo\"\npath = \"relative\"\n")
                == "FILE:3: output-a.path: must be an absolute path")
    }
}
