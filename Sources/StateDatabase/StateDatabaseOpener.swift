import DatabaseFile
import Foundation
import GRDB
import Logging

/// Opens the state database for the daemon: a damaged file (SQLite says it is corrupt or not a database) is moved
/// aside with a timestamp, logged, and replaced by a fresh one. Any other failure (an I/O error, a read-only or full
/// disk, no permission) says nothing about the file, so it is left as it is and the error stops the start with the
/// path in the message. A database written by a newer Fermata is not damaged either: that is refused with its own
/// clear message, since moving it aside would lose data. The full `quick_check` (it reads every page: slow on a Pi with a big library) runs after audio has
/// started, through `verifyInBackground`.
public enum StateDatabaseOpener {
    public static func open(stateDirectory: String, schema: DatabaseSchema, logger: Logger) throws -> FermataDatabase {
        do {
            let database = try FermataDatabase(stateDirectory: stateDirectory, schema: schema)
            _ = try database.pool.read { try Row.fetchOne($0, sql: "SELECT * FROM player_state") }
            return database
        } catch let error as SchemaMigrations.Failure {
            throw error
        } catch let error as FermataDatabase.OpenError {
            throw error
        } catch let error as DatabaseError
                    where error.resultCode != .SQLITE_CORRUPT && error.resultCode != .SQLITE_NOTADB {
            throw StateOpenError(path: stateDirectory + "/" + FermataDatabase.fileName, reason: "\(error)")
        } catch {
            let path = stateDirectory + "/" + FermataDatabase.fileName
            let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "")
            let aside = "\(path).damaged-\(stamp)"
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
                try? FileManager.default.moveItem(atPath: path + suffix, toPath: aside + suffix)
            }
            logger.error("the state database was damaged (\(error)); moved it to \(aside) and started with a new one")
            return try FermataDatabase(stateDirectory: stateDirectory, schema: schema)
        }
    }

    /// The state database could not be opened for a reason that is not damage (the file is left alone).
    public struct StateOpenError: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String {
            "cannot open the state database \(path): \(reason) (the file is left as it is; check the disk and the "
                + "permissions of its folder)"
        }
    }

    /// Runs `quick_check` and logs damage with the fix (the file is moved aside at the next start if it cannot be read).
    public static func verifyInBackground(_ database: FermataDatabase, logger: Logger) async {
        do {
            let check = try await database.pool.read { try String.fetchOne($0, sql: "PRAGMA quick_check") }
            if check != "ok" {
                logger.error("the state database fails its integrity check (\(check ?? "?")); run `fermata doctor`")
            }
        } catch is CancellationError {
            return  // the daemon is stopping: not a finding about the database
        } catch {
            logger.error("cannot check the state database: \(error)")
        }
    }
}
