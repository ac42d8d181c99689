import ArgumentParser
import FermataCore

/// `fermata card`: what each RFID card (or barcode) plays. `list` shows the cards of the configuration and those
/// assigned here, the card whose music is in the queue, and the last card read that is bound to nothing; `assign`
/// binds a card, `learn` binds that last unknown card, `forget` unbinds an assigned one, `read` does what reading
/// the card would (to try a binding without it).
struct CardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "card", abstract: "Bind RFID cards to what they play.",
        subcommands: [CardList.self, CardAssign.self, CardLearn.self, CardForget.self, CardRead.self],
        defaultSubcommand: CardList.self)
}

/// The target text, checked before anything is sent.
private func checkedTarget(_ text: String) throws -> String {
    guard CardTarget(parsing: text) != nil else { throw ValidationError(CardTarget.expected) }
    return text
}

private func checkedID(_ text: String) throws -> String {
    guard let id = CardBinding.normalized(text) else {
        throw ValidationError("a card id is 1 to \(CardBinding.maxIDLength) digits or letters A-F, as the reader types it")
    }
    return id
}

struct CardList: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "The cards and what each plays.")
    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        try withConnection(connection) { client in
            var lines: [String] = []
            var card: [String: String] = [:]
            func flush() {
                guard let id = card["card"] else { return }
                let cap = card["volume_max"].map { ", volume at most \($0)" } ?? ""
                lines.append("\(id)  \(card["play"] ?? "?")\(cap)  (\(card["origin"] ?? "?"))")
                card = [:]
            }
            var tail: [String] = []
            for (key, value) in try client.command("cards") {
                switch key {
                case "card": flush(); card["card"] = value
                case "play", "volume_max", "origin": card[key] = value
                case "active_card": tail.append("in the queue: card \(value)'s music")
                case "unknown_card": tail.append("last unknown card: \(value) (`fermata card learn TARGET` binds it)")
                default: break
                }
            }
            flush()
            print(lines.isEmpty ? "no cards bound" : lines.joined(separator: "\n"))
            for line in tail { print(line) }
        }
    }
}

struct CardAssign: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assign", abstract: "Bind a card: playlist:NAME, album:NAME, folder:PATH or action:ACTION.")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The card's id, as the reader types it.") var id: String
    @Argument(help: "What it plays: playlist:NAME, album:NAME, folder:PATH or action:ACTION.") var target: String
    @Option(name: .customLong("volume-max"), help: "The highest volume while its music plays (0-100).")
    var volumeMax: Int?

    func validate() throws {
        _ = try checkedID(id)
        _ = try checkedTarget(target)
        if let volumeMax, !(0...100).contains(volumeMax) { throw ValidationError("--volume-max must be 0-100") }
    }

    func run() throws {
        try withConnection(connection) { client in
            let cap = volumeMax.map { " \($0)" } ?? ""
            _ = try client.command("cardassign \(try checkedID(id)) \(ControlConnection.quote(target))\(cap)")
            print("card \(try checkedID(id)): \(target)")
        }
    }
}

struct CardLearn: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "learn", abstract: "Bind the last card read that is bound to nothing.")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "What it plays: playlist:NAME, album:NAME, folder:PATH or action:ACTION.") var target: String
    @Option(name: .customLong("volume-max"), help: "The highest volume while its music plays (0-100).")
    var volumeMax: Int?

    func validate() throws {
        _ = try checkedTarget(target)
        if let volumeMax, !(0...100).contains(volumeMax) { throw ValidationError("--volume-max must be 0-100") }
    }

    func run() throws {
        try withConnection(connection) { client in
            let unknown = dictionary(try client.command("cards"))["unknown_card"]
            let cap = volumeMax.map { " \($0)" } ?? ""
            _ = try client.command("cardlearn \(ControlConnection.quote(target))\(cap)")
            print("card \(unknown ?? "?"): \(target)")
        }
    }
}

struct CardForget: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "forget", abstract: "Unbind an assigned card.")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The card's id.") var id: String

    func validate() throws { _ = try checkedID(id) }

    func run() throws {
        try withConnection(connection) { client in _ = try client.command("cardforget \(try checkedID(id))") }
    }
}

struct CardRead: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read", abstract: "Do what reading the card would do (try a binding without the card).")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The card's id.") var id: String

    func validate() throws { _ = try checkedID(id) }

    func run() throws {
        try withConnection(connection) { client in _ = try client.command("cardread \(try checkedID(id))") }
    }
}
