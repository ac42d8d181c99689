import ArgumentParser
import AudioCore
import AudioOutput
import Decoders
import Engine
import FermataCore
import Foundation
import Logging
import Player

/// `fermata play FILE...`: plays files through the engine without a daemon (gapless, loops, all transport features).
/// `fermata play` or `fermata play POSITION` instead asks fermatad to play.
struct PlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play files here (no daemon needed), or tell fermatad to play (no argument or a queue position).",
        discussion: """
        With FILE arguments the files are played by this process. OUTPUT is `auto` (ALSA `default`, or the paced null output when no sound card opens), `null`, \
        `file:PATH` (raw PCM capture through ALSA's file plugin) or an ALSA PCM name such as \
        `plughw:CARD=sndrpihifiberry,DEV=0`.
        """
    )

    @Option(name: .shortAndLong, help: "Where audio goes: auto, null, file:PATH or an ALSA PCM name.")
    var output = "auto"
    @Option(help: "fixed (keep the device at the first track's format and convert), follow, or RATE:s16|s24|s32|f32:CH.")
    var format = DeviceFormatSetting.fixed
    @Option(help: "With --format follow: milliseconds to wait after reopening the device.")
    var settleMs = 0
    @Option(help: "Output period in milliseconds.")
    var periodMs = 5
    @Option(help: "Periods in the device buffer.")
    var periods = 4
    @Option(help: "off, track or queue.")
    var `repeat` = RepeatMode.off
    @Option(help: "Volume 0-100 (100 is bit-exact).")
    var volume = 100
    @Option(help: "ReplayGain: off, track, album or auto.")
    var replayGain = ReplayGainMode.off
    @Option(help: "A-B loop in seconds of the first track, as A:B.")
    var loop: String?
    @Option(help: "Loop passes before playing on (default: for ever).")
    var loopRepeat: Int?
    @Option(help: "Speed without pitch change, 50-150 % (100: untouched, bit-exact).")
    var tempo = 100
    @Option(help: "Crossfade at the loop seam in milliseconds (0 = hard cut).")
    var crossfadeMs = 5
    @Option(help: "Start the first track at this many seconds.")
    var start: Double = 0
    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false
    @Argument(help: "Audio files (FLAC, MP3, AAC/ALAC in M4A, Opus, Ogg Vorbis, WAV); or nothing / a 1-based queue position for fermatad.")
    var files: [String] = []
    @OptionGroup var connection: ConnectionOptions

    /// No files, or one number: the daemon's queue. Any run of digits counts (`play 99999999999999999999` is a
    /// position out of range, not a file of that name).
    var remote: Bool {
        guard files.count == 1 else { return files.isEmpty }
        let digits = files[0].first == "+" || files[0].first == "-" ? files[0].dropFirst() : Substring(files[0])
        return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// The queue position asked for (`fermata play 3`), checked: 0 and negatives are refused.
    func queuePosition() throws -> QueuePosition? {
        guard remote, let text = files.first else { return nil }
        guard let position = QueuePosition(argument: text) else { throw ValidationError(QueuePosition.problem(text)) }
        return position
    }

    func validate() throws {
        if !(0...100).contains(volume) { throw ValidationError("--volume must be 0-100") }
        if !(50...150).contains(tempo) { throw ValidationError("--tempo must be 50-150") }
        // The daemon's own ranges (ConfigKey) for the same settings; `--start` as a seek (finite, at most 240 h).
        if !(start >= 0 && start <= 864_000) { throw ValidationError("--start must be seconds from 0 to 864000") }
        if !(0...200).contains(crossfadeMs) { throw ValidationError("--crossfade-ms must be 0-200") }
        if !(1...200).contains(periodMs) { throw ValidationError("--period-ms must be 1-200") }
        if !(2...16).contains(periods) { throw ValidationError("--periods must be 2-16") }
        if !(0...5000).contains(settleMs) { throw ValidationError("--settle-ms must be 0-5000") }
        if let loopRepeat, !(0...1_000_000).contains(loopRepeat) { throw ValidationError("--loop-repeat must be 0-1000000") }
        _ = try loopSeconds()
        _ = try queuePosition()
    }

    func run() async throws {
        if remote {
            try SimpleCommand.send(connection, try queuePosition().map { "play \($0.index)" } ?? "play")
            return
        }
        // Not one file that can be opened (a typo in every name): say so and fail, rather than play nothing and
        // exit 0. A file that opens but does not decode is skipped while playing, as before.
        let unreadable = files.compactMap(Self.unplayable)
        if unreadable.count == files.count {
            FileHandle.standardError.write(Data(("fermata play: nothing to play\n" + unreadable.map { "  \($0)\n" }.joined()).utf8))
            throw ExitCode(66)
        }
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: "fermata.play")
        logger.logLevel = quiet ? .error : .info
        let spec = chooseOutput(logger: logger)
        var config = EngineConfig()
        config.formatPolicy = formatPolicy()
        config.periodMilliseconds = periodMs
        config.periods = periods
        config.loopCrossfadeMilliseconds = crossfadeMs
        let engine = PlaybackEngine(sink: spec.makeSink(), config: config)
        logger.info("audio goes to \(spec.destination); output thread: \(engine.schedulingNote)")
        let player = Player(engine: engine, logger: logger)
        let events = Task { await player.run() }
        let ids = try await player.add(paths: files)
        try await player.perform(.setRepeat(`repeat`))
        try await player.perform(.setReplayGain(replayGain))
        try await player.perform(.setVolume(volume))
        if tempo != 100 { try await player.perform(.setTempo(percent: tempo)) }
        if let (a, b) = try loopSeconds() { try await applyLoop(player, entry: ids[0], a, b, logger: logger) }
        try await player.perform(.playEntry(ids[0]))
        if start > 0 { try await player.perform(.seek(seconds: start)) }
        let progress = Task { await report(player, logger: logger) }
        let interrupt = InterruptWatch { Task { try? await player.perform(.stop) } }
        await player.waitUntilStopped()
        progress.cancel()
        interrupt.cancel()
        engine.shutdown()
        _ = await events.value
        if let error = await player.status().lastError, !quiet { logger.notice("last problem: \(error)") }
    }

    /// Why `path` cannot be played here (missing, unreadable, a directory), or nil.
    static func unplayable(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0, access(path, R_OK) == 0 else { return "\(path): \(String(cString: strerror(errno)))" }
        return info.st_mode & S_IFMT == S_IFREG ? nil : "\(path): not a file"
    }

    private func applyLoop(_ player: Player, entry: EntryID, _ a: Double, _ b: Double, logger: Logger) async throws {
        let rate = Double((try? TagReader.read(path: files[0]))?.sampleRate ?? 0)
        guard rate > 0 else { throw ValidationError("cannot read the sample rate of \(files[0]) for --loop") }
        try await player.setLoop(entry: entry, LoopRegion(start: Int64(a * rate), end: Int64(b * rate),
                                                          repeatCount: loopRepeat))
        logger.info("looping \(a)s–\(b)s\(loopRepeat.map { " \($0) times" } ?? "")")
    }

    private func report(_ player: Player, logger: Logger) async {
        var last: EntryID?
        while !Task.isCancelled {
            let status = await player.status()
            if status.entryID != last, let entry = status.entryID, status.state != .stopped {
                last = entry
                logger.info("playing \(status.path ?? "?") → \(status.outputFormat ?? "opening device")")
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    private func chooseOutput(logger: Logger) -> OutputSpec {
        guard output == "auto" else { return OutputSpec(parsing: output) }
        if let reason = OutputSpec.probeALSA(device: "default") {
            logger.notice("no usable sound card (ALSA default: \(reason))")
            return .null
        }
        return .alsa(device: "default")
    }

    private func formatPolicy() -> FormatPolicy {
        switch format {
        case .fixed: .fixed(nil)
        case .follow: .follow(settleMilliseconds: settleMs)
        case let .exact(format): .fixed(format)
        }
    }

    private func loopSeconds() throws -> (Double, Double)? {
        guard let loop else { return nil }
        let parts = loop.split(separator: ":").compactMap { Double($0) }
        // At most a day: `Int64(seconds * rate)` traps on 1e15 s (and NaN never passes `>=`).
        guard parts.count == 2, parts[0] >= 0, parts[1] > parts[0], parts[1] <= 86_400 else {
            throw ValidationError("--loop must be A:B in seconds with 0 <= A < B <= 86400")
        }
        return (parts[0], parts[1])
    }
}

/// Runs `action` on SIGINT or SIGTERM until cancelled. Holds both dispatch sources: a source nobody keeps is
/// released, and its signal then stays ignored (that is how `fermata play` once shrugged off SIGTERM).
/// Created and cancelled by one task; the handler runs on a global queue.
final class InterruptWatch {
    private let sources: [any DispatchSourceSignal]

    init(_ action: @escaping @Sendable () -> Void) {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        sources = [SIGINT, SIGTERM].map { DispatchSource.makeSignalSource(signal: $0, queue: .global()) }
        for source in sources {
            source.setEventHandler(handler: action)
            source.resume()
        }
    }

    func cancel() { sources.forEach { $0.cancel() } }
}
