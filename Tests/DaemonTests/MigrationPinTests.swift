import Daemon
import DatabaseFile
import Foundation
import Testing

/// A shipped migration never changes: every released one is pinned, in order, by what it did to the schema
/// (`Fixtures/released-migrations.txt`: the objects each added, changed or removed, as `SchemaShape` reads them). A
/// released migration whose body changed, one inserted before a released one, or one renamed or dropped fails here;
/// a migration not released yet is free to change until the release that ships it pins it.
///
/// Cutting a release pins the new ones: `FERMATA_PIN_RELEASE=1.1.0 swift test --filter MigrationPinTests`
/// (docs/development.md, "Releasing").
@Suite struct MigrationPinTests {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/released-migrations.txt").path

    /// One pinned migration: its name, the release that shipped it, the schema changes it made.
    struct Pin: Equatable {
        var name: String
        var release: String
        var changes: [String]
    }

    static let header = """
        # The state database's released migrations, in the order they run, each with the release that shipped it and what
        # it did to the schema ("+ object: SQL" added or changed to, "- object: SQL" removed or changed from). Written by
        # `FERMATA_PIN_RELEASE=VERSION swift test --filter MigrationPinTests` when a release is cut; never edited by hand.
        # MigrationPinTests fails when a migration listed here no longer does exactly this.

        """

    static func parse(_ text: String) -> [Pin] {
        var pins: [Pin] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) where !line.hasPrefix("#") {
            if line.hasPrefix("== ") {
                let words = line.dropFirst(3).split(separator: " ")
                pins.append(Pin(name: String(words.first ?? ""), release: String(words.dropFirst().first ?? ""), changes: []))
            } else if !pins.isEmpty {
                pins[pins.count - 1].changes.append(String(line))
            }
        }
        return pins
    }

    static func render(_ pins: [Pin]) -> String {
        header + pins.map { pin in
            (["== \(pin.name) \(pin.release)"] + pin.changes).joined(separator: "\n")
        }.joined(separator: "\n") + "\n"
    }

    /// What each migration of the whole file does to the schema, in order, from an empty database.
    static func current() throws -> [(name: String, changes: [String])] {
        var previous = SchemaShape(objects: [:])
        return try DatabaseSchema.fermata.migrations.shapes(schema: .fermata).map { step in
            defer { previous = step.shape }
            return (step.name, previous.changes(to: step.shape))
        }
    }

    @Test func everyReleasedMigrationStillDoesWhatItShipped() throws {
        let current = try Self.current()
        var pins = Self.parse((try? String(contentsOfFile: Self.file, encoding: .utf8)) ?? "")
        if let release = ProcessInfo.processInfo.environment["FERMATA_PIN_RELEASE"], !release.isEmpty {
            for step in current.dropFirst(pins.count) { pins.append(Pin(name: step.name, release: release, changes: step.changes)) }
            try Self.render(pins).write(toFile: Self.file, atomically: true, encoding: .utf8)
        }
        try #require(!pins.isEmpty, "no released migrations pinned in \(Self.file)")
        #expect(pins.count <= current.count, "released migrations were removed: \(pins.dropFirst(current.count).map(\.name))")
        for (pin, step) in zip(pins, current) {
            try #require(pin.name == step.name,
                         "released migration \(pin.name) (\(pin.release)) is now \(step.name): a migration was inserted before it, or it was renamed")
            #expect(pin.changes == step.changes,
                    "released migration \(pin.name) (\(pin.release)) changed: it now does \(step.changes), it shipped doing \(pin.changes)")
        }
    }

    /// The pins can fail: a released migration whose body gained a column reads as changed.
    @Test func anEditedReleasedMigrationIsSeen() throws {
        var edited = DatabaseSchema.fermata
        var migrations = SchemaMigrations()
        for name in edited.migrations.names {
            let original = edited.migrations
            migrations.register(name) { db in
                try original.steps.first { $0.name == name }!.run(db)
                if name == "v7-cards" { try db.execute(sql: "ALTER TABLE card ADD COLUMN colour TEXT") }
            }
        }
        edited.migrations = migrations
        let pins = Self.parse(try String(contentsOfFile: Self.file, encoding: .utf8))
        var previous = SchemaShape(objects: [:])
        let changed = try edited.migrations.shapes(schema: edited).compactMap { step -> String? in
            defer { previous = step.shape }
            let pin = pins.first { $0.name == step.name }
            return pin.map { $0.changes != previous.changes(to: step.shape) } == true ? step.name : nil
        }
        #expect(changed == ["v7-cards"])
    }
}
