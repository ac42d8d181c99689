import ArgumentParser
import Controls
import FermataConfig
import Foundation

/// `fermata input`: the input devices (foot pedals, remotes, keypads, card readers, the kernel's gpio-keys and
/// rotary-encoder overlays) as the controls see them. `list` names each with the ids an `[input-NAME]` section matches
/// by; `monitor` prints their events live, to learn which key a pedal sends. Neither needs fermatad.
struct InputCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "input", abstract: "List input devices or watch their events (pedals, remotes, card readers).",
        subcommands: [InputList.self, InputMonitor.self, InputProfiles.self], defaultSubcommand: InputList.self)
}

struct InputList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Each /dev/input/event* device: name, vendor:product, physical path.")
    @Option(help: "Where the event devices are.") var directory = "/dev/input"

    func run() throws {
        let nodes = InputDevices.list(directory: directory)
        guard !nodes.isEmpty else {
            print("no input devices in \(directory)")
            return
        }
        for node in nodes { print(node) }
        if nodes.contains(where: { $0.info == nil }) {
            print("some devices cannot be opened: add the user to the input group (sudo usermod -aG input $USER)")
        }
    }
}

struct InputMonitor: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor", abstract: "Print every event of every input device as it happens.")
    @Option(help: "Where the event devices are.") var directory = "/dev/input"
    @Option(help: "Stop after this many seconds (default: until Ctrl-C).") var seconds: Double?
    @Flag(help: "Take the devices for this program alone while it runs (as fermatad does).") var grab = false

    func validate() throws {
        if let seconds, !(seconds.isFinite && seconds > 0 && seconds <= 86_400) {
            throw ValidationError("--seconds must be more than 0 and at most 86400")
        }
    }

    func run() throws {
        // Unbuffered lines: a pipe into `grep` or a file shows each event as it happens.
        let watched = InputDevices.monitor(directory: directory, seconds: seconds, grab: grab) { line in
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }
        if !watched {
            print("no input device could be opened in \(directory)")
            throw ExitCode(ExitStatus.problems)
        }
    }
}

struct InputProfiles: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profiles", abstract: "The input profiles an [input-NAME] section can name with profile = \"…\".")
    @Option(help: "Where the profiles are (default: /etc/fermata/boards/inputs, then /usr/share/fermata/boards/inputs).")
    var directory: String?

    func run() throws {
        let found = InputProfile.available(in: directory.map { [$0] } ?? InputProfile.directories)
        guard !found.isEmpty else {
            print("no input profiles installed")
            return
        }
        for profile in found { print(profile.name.padding(toLength: 22, withPad: " ", startingAt: 0) + profile.about) }
    }
}
