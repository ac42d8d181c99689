import DatabaseFile
import Foundation
import GRDB
import Logging
import StateDatabase
import Testing
import TestSupport

/// What the daemon does with a state database it cannot open: damage is moved aside, anything else is left alone.
@Suite struct StateDatabaseOpenerTests {
    let logger = Logger(label: "test.opener")

    func asideFiles(_ dir: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".damaged-") }
    }

    @Test func aDamagedFileIsMovedAsideAndANewOneStarted() throws {
        let dir = try TemporaryDirectory(prefix: "fermata-opener")
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: dir.url("library.sqlite"))
        let database = try StateDatabaseOpener.open(stateDirectory: dir.path, schema: .stateFile, logger: logger)
        #expect(try database.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM player_state") } != nil)
        let aside = try asideFiles(dir)
        #expect(aside.count == 1 && aside[0].hasPrefix("library.sqlite.damaged-"), "\(aside)")
        #expect(FileManager.default.contents(atPath: dir.file(aside.first ?? "")) == garbage, "kept as it was")
    }

    @Test func aFileThatCannotBeOpenedForAnotherReasonIsLeftAlone() throws {
        let dir = try TemporaryDirectory(prefix: "fermata-opener")
        // A folder where the database should be: SQLite cannot open it, but nothing says it is damaged.
        try FileManager.default.createDirectory(atPath: dir.file("library.sqlite"), withIntermediateDirectories: true)
        try Data("precious".utf8).write(to: dir.url("library.sqlite/inside"))
        #expect(throws: (any Error).self) { try StateDatabaseOpener.open(stateDirectory: dir.path, schema: .stateFile, logger: logger) }
        #expect(try asideFiles(dir).isEmpty, "nothing moved aside")
        #expect(FileManager.default.contents(atPath: dir.file("library.sqlite/inside")) == Data("precious".utf8))
    }
}
