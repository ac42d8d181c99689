import Controls
import FermataConfig
import FermataCore
import Logging
import MPDProtocol
import Player
import StateDatabase

/// What RFID cards (and barcodes) do on a household box: a card bound to a stored playlist, an album or a folder
/// replaces the queue with it and plays; one bound to an action performs it. The card whose music is in the queue
/// ("active") brings its volume cap, under the configuration's `volume_max`, until the queue is cleared or another
/// card's music replaces it (it survives restarts: saved with the player's state). The same card again pauses and
/// plays on, restarts, or does nothing (`[cards] again`). A card bound to nothing changes nothing: it is logged and
/// remembered, so `fermata card learn TARGET` binds it.
///
/// Bindings come from the configuration's `[card-ID]` sections and from `fermata card assign`/`learn` (kept in the
/// state database; an assigned card replaces a configured one with the same id).
///
/// An actor: the controls' card handler, the protocol commands and the backend's queue-cleared hook call it.
public actor CardService {
    let configured: CardsConfig
    /// `audio.volume_max`.
    let volumeMax: Int
    let backend: FermataBackend
    let player: Player
    let store: StateStore
    let logger: Logger
    private var assigned: [String: CardBinding] = [:]
    private var active: String?
    private var unknown: (id: String, at: ContinuousClock.Instant)?
    /// The queue clears this service makes itself (they do not lift the cap of the card being started).
    private var ownClears = 0
    /// What the next unknown card read is bound to (the web remote's "learn a card": swipe it while the page waits).
    private var learning: (target: CardTarget, volumeMax: Int?)?
    /// Told each card read: its id, whether it is bound, and the target it was just learnt for.
    private var onRead: (@Sendable (_ id: String, _ known: Bool, _ learned: String?) -> Void)?
    /// Does a card's action that is not the player's (`sleep-30`: the timers'), as the buttons' do.
    private var otherActions: (@Sendable (KeyAction) async -> Void)?

    public init(config: CardsConfig, volumeMax: Int, backend: FermataBackend, player: Player, store: StateStore,
                logger: Logger) {
        configured = config
        self.volumeMax = volumeMax
        self.backend = backend
        self.player = player
        self.store = store
        self.logger = logger
    }

    /// Reads the assigned cards and the active one, and sets the volume ceiling they call for.
    public func start() async {
        let saved = await store.loadCards()
        for card in saved.cards { assigned[card.id] = card }
        active = saved.active.flatMap { binding($0) == nil ? nil : $0 }
        await applyCeiling()
        let count = configured.bindings.count + assigned.keys.filter { id in !configured.bindings.contains { $0.id == id } }.count
        if count > 0 { logger.info("cards: \(count) bound\(active.map { "; card \($0)'s music is in the queue" } ?? "")") }
    }

    func binding(_ id: String) -> CardBinding? {
        assigned[id] ?? configured.bindings.first { $0.id == id }
    }

    /// Where each card read is reported (the web remote's events).
    public func reportReads(to handler: @escaping @Sendable (_ id: String, _ known: Bool, _ learned: String?) -> Void) {
        onRead = handler
    }

    /// Where a card's action that is not the player's goes (`KeyAction.controlAction` answers nil).
    public func handleOtherActions(with handler: @escaping @Sendable (KeyAction) async -> Void) {
        otherActions = handler
    }

    /// Binds the next unknown card read to `target` (until `stopLearning`, or until one is read).
    public func learnNext(target: CardTarget, volumeMax: Int?) throws {
        if case let .action(name) = target, KeyAction(parsing: name) == nil {
            throw MPDError(.argument, "\"\(name)\" is no action (play-pause, next, volume+5, …)")
        }
        learning = (target, volumeMax)
        logger.notice("cards: the next unknown card read will play \(target)")
    }

    public func stopLearning() { learning = nil }

    /// The target the next unknown card will play, while one is being learnt.
    public var learningTarget: String? { learning?.target.description }

    /// A reader (`input`) read card `id`.
    public func read(_ id: String, input: String) async {
        guard let card = binding(id) else {
            if let learning {
                self.learning = nil
                do {
                    try await assign(CardBinding(id: id, target: learning.target, volumeMax: learning.volumeMax,
                                                 origin: "assigned"))
                    onRead?(id, true, learning.target.description)
                } catch {
                    logger.warning("cards: card \(id) could not be learnt: \(error)")
                    onRead?(id, false, nil)
                }
                return
            }
            unknown = (id, .now)
            logger.notice("cards: unknown card \(id) from \(input): changes nothing; `fermata card learn TARGET` binds it")
            onRead?(id, false, nil)
            return
        }
        onRead?(id, true, nil)
        if case let .action(name) = card.target {
            await perform(name, card: id, from: input)
            return
        }
        let state = await player.status().state
        if active == id, state != .stopped {
            switch configured.again {
            case .pause:
                do {
                    try await backend.perform(.togglePause)
                    logger.notice("cards: card \(id) again (\(input)): \(state == .playing ? "paused" : "playing on")")
                } catch {
                    logger.warning("cards: card \(id) again (\(input)): \(error)")
                }
                return
            case .ignore:
                logger.info("cards: card \(id) again (\(input)): ignored ([cards] again = \"ignore\")")
                return
            case .restart:
                break
            }
        }
        await start(card, from: input)
    }

    private func perform(_ name: String, card id: String, from input: String) async {
        guard let action = KeyAction(parsing: name) else {
            logger.warning("cards: card \(id) (\(input)): \"\(name)\" is no action (play-pause, next, volume+5, …)")
            return
        }
        do {
            let mode = action.needsStatus ? await player.status().repeatMode : .off
            guard let control = action.controlAction(currentRepeat: mode) else {
                guard let otherActions else {
                    logger.warning("cards: card \(id) (\(input)): \(action) is not a player action")
                    return
                }
                await otherActions(action)
                logger.notice("cards: card \(id) (\(input)): \(action)")
                return
            }
            try await backend.perform(control)
            logger.notice("cards: card \(id) (\(input)): \(action)")
        } catch {
            logger.warning("cards: card \(id) (\(input)): \(action): \(error)")
        }
    }

    /// Replaces the queue with what `card` plays and plays it; nothing changes when it names nothing playable.
    private func start(_ card: CardBinding, from input: String) async {
        guard let source = QueueSource(target: card.target) else { return }
        do {
            // Resolved first: a card whose playlist or folder is gone leaves the queue as it was.
            let songs = try await backend.resolve(source)
            guard !songs.isEmpty else {
                logger.warning("cards: card \(card.id) (\(input)): \(card.target) has no songs; nothing changed")
                return
            }
            ownClears += 1
            defer { ownClears -= 1 }
            try await backend.editQueue(.clear)
            let added = try await backend.editQueue(.add(source, at: .end))
            active = card.id
            await store.saveActiveCard(card.id)
            await applyCeiling()
            try await backend.perform(.play)
            // A practice piece at the card's tempo and loop (without them, its practice memory comes back), once the
            // piece is what is heard: a loop is set on the heard track.
            if card.tempoPercent != nil || card.loop != nil, let first = added.first {
                for _ in 0..<150 {
                    let status = await player.status()
                    if status.entryID == first, status.sourceSampleRate > 0 { break }
                    try await Task.sleep(for: .milliseconds(20))
                }
                if let tempo = card.tempoPercent { try await backend.perform(.setTempo(percent: tempo)) }
                if let loop = card.loop {
                    try await backend.perform(.setLoop(startSeconds: loop.start, endSeconds: loop.end))
                }
            }
            let cap = card.volumeMax.map { ", volume at most \($0)" } ?? ""
            logger.notice("cards: card \(card.id) (\(input)): playing \(card.target), \(songs.count) songs\(cap)")
        } catch {
            logger.warning("cards: card \(card.id) (\(input)): \(card.target): \(error)")
        }
    }

    /// A client cleared the queue: the active card's music is gone, and its volume cap with it.
    public func queueCleared() async {
        guard ownClears == 0, let card = active else { return }
        active = nil
        await store.saveActiveCard(nil)
        await applyCeiling()
        logger.info("cards: queue cleared; card \(card)'s volume cap no longer holds")
    }

    private func applyCeiling() async {
        let cap = active.flatMap { binding($0)?.volumeMax } ?? 100
        await player.setVolumeCeiling(min(volumeMax, cap))
    }

    public func report() -> CardsReport {
        var report = CardsReport()
        report.cards = configured.bindings.filter { assigned[$0.id] == nil }
            + assigned.values.sorted { $0.id < $1.id }
        report.active = active
        report.unknown = unknown.map { ($0.id, (ContinuousClock.now - $0.at).components.seconds) }
        return report
    }

    public func edit(_ edit: CardEdit) async throws {
        switch edit {
        case let .assign(id, target, cap):
            try await assign(CardBinding(id: id, target: target, volumeMax: cap, origin: "assigned"))
        case let .learn(target, cap):
            guard let card = unknown else { throw MPDError(.noExist, "no unknown card has been read since the start") }
            // (`assign` takes it off the unknown list, and only it: another read meanwhile stays listed.)
            try await assign(CardBinding(id: card.id, target: target, volumeMax: cap, origin: "assigned"))
        case let .forget(id):
            guard assigned[id] != nil else {
                let configuredHere = configured.bindings.contains { $0.id == id }
                throw MPDError(.noExist, configuredHere ? "card \(id) is bound in the configuration file; edit it there"
                    : "no card \(id) is assigned")
            }
            guard await store.forgetCard(id) else { throw MPDError(.system, "the card could not be forgotten (see the log)") }
            assigned[id] = nil
            if active == id, binding(id) == nil { active = nil; await store.saveActiveCard(nil) }
            await applyCeiling()
            logger.notice("cards: card \(id) forgotten")
        case let .read(id):
            await read(id, input: "a client")
        }
    }

    private func assign(_ card: CardBinding) async throws {
        if case let .action(name) = card.target, KeyAction(parsing: name) == nil {
            throw MPDError(.argument, "\"\(name)\" is no action (play-pause, next, volume+5, …)")
        }
        guard await store.saveCard(card) else { throw MPDError(.system, "the card could not be saved (see the log)") }
        assigned[card.id] = card
        // Bound now: no longer unknown (it stayed listed as "unknown" on the web page and in `cards`).
        if unknown?.id == card.id { unknown = nil }
        if active == card.id { await applyCeiling() }
        logger.notice("cards: card \(card.id) bound to \(card.target)\(card.volumeMax.map { ", volume at most \($0)" } ?? "")")
    }
}
