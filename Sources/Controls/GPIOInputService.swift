import FermataCore
import Logging
import ServiceLifecycle

/// The physical controls as a service: buttons and rotary encoders on GPIO lines (libgpiod v1 or v2), debounced,
/// turned into gestures and then, through the keymap, into actions delivered to a `PlayerControl` in order.
///
/// Lines that cannot be had (no such chip or line, in use, no permission) are logged once each and left out; the
/// service keeps running with the rest — and with none — until graceful shutdown or cancellation, so it never ends
/// its `ServiceGroup` early. The GPIO work happens on its own thread (`InputReactor`, SCHED_FIFO when allowed), and
/// `run` consumes the events and calls the player with that thread as its task executor, so an edge reaches the
/// player without a hop through the shared pool. `run` is called once; the value itself may be shared.
///
/// A daemon builds it from a board profile and the user's overrides:
///
///     let profile = try BoardProfile.load(file: "/usr/share/fermata/boards/rpi-4.toml", overrides: userEntries)
///     let controls = GPIOInputService(config: profile.controls, player: player, logger: logger,
///                                      extraActions: { action in /* shutdown */ })
///     // add `controls` to the ServiceGroup
public struct GPIOInputService: Service {
    let config: ControlsConfig
    let player: any PlayerControl
    let logger: Logger
    let input: ControlsInput
    let reportEdges: Bool
    let extraActions: (@Sendable (KeyAction) async -> Void)?
    let cards: (@Sendable (_ id: String, _ input: String) async -> Void)?
    let observer: (@Sendable (ControlEvent) async -> Void)?

    /// - Parameters:
    ///   - config: the controls (usually `BoardProfile.controls`, with the user's overrides applied).
    ///   - player: receives the actions, one at a time, in order.
    ///   - input: `.gpio`, or edge records for tests and benchmarks.
    ///   - reportEdges: also pass raw edges to `observer` (for `fermata gpio monitor`).
    ///   - extraActions: handles the actions that are not the player's (`KeyAction.controlAction` answers nil:
    ///     shutdown); without it they are logged as unsupported. Tempo and announcements are player actions.
    ///   - cards: handles the ids card readers type (`[input-NAME]` with `cards = true`), in order; without it they
    ///     are logged.
    ///   - observer: sees every event after it was handled (actions after the player took them).
    public init(config: ControlsConfig, player: any PlayerControl, logger: Logger, input: ControlsInput = .gpio,
                reportEdges: Bool = false, extraActions: (@Sendable (KeyAction) async -> Void)? = nil,
                cards: (@Sendable (_ id: String, _ input: String) async -> Void)? = nil,
                observer: (@Sendable (ControlEvent) async -> Void)? = nil) {
        self.config = config
        self.player = player
        self.logger = logger
        self.input = input
        self.reportEdges = reportEdges
        self.extraActions = extraActions
        self.cards = cards
        self.observer = observer
    }

    /// The libgpiod this build uses and where debouncing happens, e.g. "libgpiod 1.6.3 (v1 API; debounce 10 ms in
    /// user space)".
    public static func libraryDescription(debounceMs: Int) -> String {
        GPIOLineOpener.describeLibrary(debounceMs: UInt64(debounceMs))
    }

    public func run() async throws {
        var keymap = Keymap(config)
        if !config.enabled {
            logger.info("controls: disabled in the configuration")
            keymap = Keymap(ControlsConfig())
        }
        let (events, continuation) = AsyncStream.makeStream(of: ControlEvent.self,
                                                            bufferingPolicy: .bufferingNewest(1024))
        let reactor = InputReactor(keymap: keymap, input: input, consumer: config.consumer,
                                   realtimePriority: config.realtimePriority, logger: logger,
                                   reportEdges: reportEdges, continuation: continuation)
        reactor.start()
        // Consume on the GPIO thread itself (see InputReactor): no other thread has to wake for an action.
        await withTaskCancellationOrGracefulShutdownHandler {
            await withTaskExecutorPreference(reactor) {
                for await event in events {
                    switch event {
                    case let .action(action, source, time):
                        await deliver(action, from: source, at: time)
                    case let .card(id, input, _):
                        if let cards { await cards(id, input) } else { logger.notice("controls: \(input): card \(id) (no card handler)") }
                    default:
                        break
                    }
                    await observer?(event)
                }
            }
        } onCancelOrGracefulShutdown: {
            reactor.stop()
        }
        reactor.release()
    }

    /// `time`: when the control acted (CLOCK_MONOTONIC ns; a tap-tempo tap is timed by it, not by its arrival here).
    private func deliver(_ action: KeyAction, from source: String, at time: UInt64) async {
        do {
            let mode = action.needsStatus ? await player.status().repeatMode : .off
            if let control = action.controlAction(currentRepeat: mode, at: time) {
                try await player.perform(control)
            } else if let extraActions {
                await extraActions(action)
            } else {
                logger.notice("controls: \(source): \(action) is not supported by the player yet")
            }
        } catch {
            logger.info("controls: \(source): \(action): \(error)")
        }
    }
}
