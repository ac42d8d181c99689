import Library
import Logging
import ServiceLifecycle
import StateDatabase

/// The daemon's background work: forwards changes to MPD `idle` clients, and runs the start-up scan when the
/// configuration asks for one (after audio has started, at the scanner's lower priority).
/// Threads: `run` is called once by the service group.
struct BackgroundTasks: Service {
    let backend: FermataBackend
    let library: Library
    let scanOnStart: Bool
    let logger: Logger

    func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { await backend.forwardChanges() }
            group.addTask {
                // It reads every page: not while a restart resumes and answers its first clients. A stop during the
                // wait skips it (the cancelled check used to log "cannot check the state database" as an error).
                guard (try? await Task.sleep(for: .seconds(2))) != nil else { return }
                await StateDatabaseOpener.verifyInBackground(library.database, logger: logger)
            }
            if scanOnStart {
                group.addTask {
                    do {
                        let summary = try await library.scan(.incremental)
                        logger.info("start-up scan: \(summary)")
                    } catch {
                        logger.error("start-up scan failed: \(error)")
                    }
                }
            }
            try? await gracefulShutdown()
            library.cancelScan()
            group.cancelAll()
        }
    }
}
