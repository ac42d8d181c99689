import ArgumentParser
import AudioCore
import AudioOutput
import Engine
import FermataConfig
import Foundation
import Player

/// `fermata audio test`: a 440 Hz tone on the configured device (the alsa output section's device, else
/// `audio.output`), to check a DAC, its wiring and its volume without the library or the daemon.
struct AudioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "audio", abstract: "Check the audio output.",
                                                    subcommands: [Test.self, Latency.self], defaultSubcommand: Test.self)

    /// `fermata audio latency`: asks fermatad to play clicks on the output and hear them on `record.device`, and to
    /// keep the round trip (a take is moved by it to line up with its pass). Playback must be stopped.
    struct Latency: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "latency",
            abstract: "Measure the round trip from the output to the capture device (playback stopped), for recording.")
        @OptionGroup var connection: ConnectionOptions
        @Option(help: "The rate to measure at (8000-384000 Hz; default: the output's).") var rate: Int?

        func validate() throws {
            if let rate, !(8_000...384_000).contains(rate) { throw ValidationError("--rate must be 8000-384000 Hz") }
        }

        func run() throws {
            try withConnection(connection) { client in
                let answer = dictionary(try client.command(rate.map { "audiolatency \($0)" } ?? "audiolatency"))
                print("round trip: \(answer["latency_ms"] ?? "?") ms (\(answer["latency_frames"] ?? "?") frames at "
                    + "\(answer["rate"] ?? "?") Hz); takes are moved by it from now on")
            }
        }
    }

    struct Test: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "test", abstract: "Play a 440 Hz test tone on the configured device (or --device).")
        @Option(help: "Configuration file.") var config = "/etc/fermata/fermata.toml"
        @Option(help: "ALSA device (or null, file:PATH) instead of the configured one.") var device: String?
        @Option(help: "How long, in seconds (0.1-30).") var seconds = 2.0

        func validate() throws {
            guard (0.1...30).contains(seconds) else { throw ValidationError("--seconds must be between 0.1 and 30") }
        }

        func run() throws {
            let settings: DaemonConfig
            do { settings = try DaemonConfig.load(file: config, required: false) } catch {
                FileHandle.standardError.write(Data("fermata: configuration error: \(error)\n".utf8))
                throw ExitCode(ExitStatus.problems)
            }
            let spec = OutputSpec(parsing: device ?? settings.outputs.first { $0.kind == .alsa }?.device ?? settings.output)
            let sink = spec.makeSink()
            let format: AudioFormat
            do {
                format = try sink.open(AudioFormat(sampleRate: 48_000, channels: 2, encoding: .s16), periodFrames: 1024, periods: 4)
            } catch {
                let hint = "\(error)".lowercased().contains("busy")
                    ? "a hw: device plays one program at a time: if fermatad is playing on it, pause it (`fermata pause`) "
                        + "or test through `default`"
                    : "`aplay -L` lists the device names this machine has"
                FileHandle.standardError.write(Data("fermata: \(error); \(hint)\n".utf8))
                throw ExitCode(ExitStatus.problems)
            }
            defer { sink.close() }
            print("playing a 440 Hz tone for \(seconds) s on \(spec.destination), \(format)")
            try Self.play(seconds: seconds, on: sink, format: format)
            sink.drain()
            print("done: if nothing was heard, check the card's mixer (`alsamixer`), the wiring and audio.output")
        }

        /// Writes the tone (−12 dBFS, 10 ms fades) in the device's own format.
        static func play(seconds: Double, on sink: any AudioSink, format: AudioFormat) throws {
            let chunk = 1024, total = Int(seconds * Double(format.sampleRate)), fade = format.sampleRate / 100
            let floats = UnsafeMutablePointer<Float>.allocate(capacity: chunk * format.channels)
            let bytes = UnsafeMutableRawPointer.allocate(byteCount: chunk * format.bytesPerFrame, alignment: 16)
            defer { floats.deallocate(); bytes.deallocate() }
            var frame = 0
            while frame < total {
                let n = min(chunk, total - frame)
                for i in 0..<n {
                    let f = frame + i
                    let envelope = Float(min(1, Double(min(f, total - 1 - f)) / Double(fade)))
                    let value = 0.25 * envelope * Float(sin(2 * Double.pi * 440 * Double(f) / Double(format.sampleRate)))
                    for c in 0..<format.channels { floats[i * format.channels + c] = value }
                }
                SampleConversion.fromFloat(floats, frames: n, to: format, into: bytes)
                var done = 0
                while done < n {
                    switch sink.write(bytes + done * format.bytesPerFrame, frames: n - done) {
                    case let .written(count): done += count
                    case .recovered: continue
                    case .deviceLost:
                        FileHandle.standardError.write(Data("fermata: the audio device went away during the test\n".utf8))
                        throw ExitCode(ExitStatus.problems)
                    case let .failed(code):
                        FileHandle.standardError.write(Data("fermata: writing to the device failed (error \(code))\n".utf8))
                        throw ExitCode(ExitStatus.problems)
                    }
                }
                frame += n
            }
        }
    }
}
