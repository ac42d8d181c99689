import Foundation
import GRDB
import Library
import Logging

/// Opens the state database for the daemon, never refusing to start: a damaged file (it will not open, or
/// `quick_check` fails) is moved aside with a timestamp, logged, and replaced by a fresh one. A database written by a
/// newer Fermata is not damaged: that is refused with its own clear message, since moving it aside would lose data.
public enum StateDatabaseOpener {
    public static func open(stateDirectory: String, logger: Logger) throws -> LibraryDatabase {
        do {
            let database = try StateStore.open(stateDirectory: stateDirectory)
            let check = try database.pool.read { try String.fetchOne($0, sql: "PRAGMA quick_check") }
            guard check == "ok" else { throw DamagedDatabase(reason: check ?? "quick_check returned nothing") }
            return database
        } catch let error as SchemaMigrations.Failure {
            throw error
        } catch let error as LibraryDatabase.OpenError {
            throw error
        } catch {
            let path = stateDirectory + "/" + LibraryDatabase.fileName
            let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "")
            let aside = "\(path).damaged-\(stamp)"
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
                try? FileManager.default.moveItem(atPath: path + suffix, toPath: aside + suffix)
            }
            logger.error("the state database was damaged (\(error)); moved it to \(aside) and started with a new one")
            return try StateStore.open(stateDirectory: stateDirectory)
        }
    }

    struct DamagedDatabase: Error, CustomStringConvertible {
        var reason: String
        var description: String { "integrity check failed: \(reason)" }
    }
}
